package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The repository scorecard (EQ2) reads recent pull requests' loop states
// read-only, in batched GraphQL: one query pages the pull requests, most
// recently updated first, each with its first comments, and the config
// file (for the prices) rides along on the first page. A pull request
// whose first comments hold no state and that has more is read again in a
// batch of aliased queries, at most two more pages each. Nothing is read
// per finding.
const (
	// LoopStatePRsPerPage is how many pull requests one page reads.
	LoopStatePRsPerPage = 25
	// loopStateComments is how many comments one page of a pull request
	// reads; a status comment is posted early, by the loop's first cycle.
	loopStateComments = 100
	// LoopStateExtraPages is how many more pages of comments a pull
	// request's state is looked for in.
	LoopStateExtraPages = 2
)

// LoopStateBudget is the most requests LoopStates makes for prs pull
// requests read: a page per LoopStatePRsPerPage of them, one more page
// that shows where the window ends, and per LoopStatePRsPerPage pull
// requests with long threads LoopStateExtraPages batched pages more.
func LoopStateBudget(prs int) int {
	pages := (prs + LoopStatePRsPerPage - 1) / LoopStatePRsPerPage
	return 1 + pages*(1+LoopStateExtraPages)
}

// StateComment is a comment that carries the state marker.
type StateComment struct {
	ID        int64
	Author    string
	CreatedAt time.Time
	Body      string
}

// PRStates is one pull request of the window with the comments of it
// that carry marker, oldest first.
type PRStates struct {
	Number    int
	UpdatedAt time.Time
	Comments  []StateComment
	// Incomplete is set when the comments were not all read (more than
	// the pages LoopStates reads) and none of those read carries a state.
	Incomplete bool
}

// LoopStatesResult is what LoopStates read.
type LoopStatesResult struct {
	PRs []PRStates
	// Config is the repository's config file on its default branch; ""
	// when there is none.
	Config string
	// Requests is how many requests were made; Truncated is set when the
	// window held more than maxPRs pull requests.
	Requests  int
	Truncated bool
}

type lsComment struct {
	FullDatabaseID json.RawMessage `json:"fullDatabaseId"`
	Author         *struct {
		Login string `json:"login"`
	} `json:"author"`
	CreatedAt time.Time `json:"createdAt"`
	Body      string    `json:"body"`
}

type lsComments struct {
	Nodes    []lsComment `json:"nodes"`
	PageInfo struct {
		HasNextPage bool   `json:"hasNextPage"`
		EndCursor   string `json:"endCursor"`
	} `json:"pageInfo"`
}

type lsPR struct {
	Number    int        `json:"number"`
	UpdatedAt time.Time  `json:"updatedAt"`
	Comments  lsComments `json:"comments"`
}

const lsCommentFields = `nodes { fullDatabaseId author { login } createdAt body } pageInfo { hasNextPage endCursor }`

// LoopStates reads the pull requests of owner/repo updated since since,
// at most maxPRs, most recently updated first, with their comments that
// carry marker; configFile ("" for DefaultConfigFile) is read from the
// default branch on the first page. It makes at most
// LoopStateBudget(len(PRs)) requests.
func (c *Client) LoopStates(ctx context.Context, owner, repo, marker string, since time.Time, maxPRs int, configFile string) (LoopStatesResult, error) {
	const op = "loop states"
	if configFile == "" {
		configFile = DefaultConfigFile
	}
	var out LoopStatesResult
	type more struct {
		i      int
		cursor string
	}
	var pending []more
	cursor := ""
	for len(out.PRs) < maxPRs {
		n := min(LoopStatePRsPerPage, maxPRs-len(out.PRs))
		vars := map[string]any{"owner": owner, "name": repo, "n": n, "c": loopStateComments}
		after, cfg := "", ""
		if cursor != "" {
			after, vars["after"] = ", after: $after", cursor
		} else {
			cfg, vars["expr"] = ` config: object(expression: $expr) { ... on Blob { text } }`, "HEAD:"+configFile
		}
		doc := `query($owner: String!, $name: String!, $n: Int!, $c: Int!` + map[bool]string{true: ", $after: String", false: ""}[cursor != ""] +
			map[bool]string{true: ", $expr: String", false: ""}[cursor == ""] + `) { repository(owner: $owner, name: $name) {` + cfg +
			` pullRequests(first: $n` + after + `, orderBy: {field: UPDATED_AT, direction: DESC}) { nodes { number updatedAt comments(first: $c) { ` +
			lsCommentFields + ` } } pageInfo { hasNextPage endCursor } } } }`
		data, errs, err := c.rawGraphQL(ctx, op, true, doc, vars)
		out.Requests++
		if err != nil {
			return out, fmt.Errorf("reading the pull requests of %s/%s: %w", owner, repo, err)
		}
		if len(errs) > 0 {
			return out, fmt.Errorf("reading the pull requests of %s/%s: %w", owner, repo, gqlErrors(op, errs))
		}
		var q struct {
			Repository *struct {
				Config *struct {
					Text string `json:"text"`
				} `json:"config"`
				PullRequests struct {
					Nodes    []lsPR `json:"nodes"`
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
				} `json:"pullRequests"`
			} `json:"repository"`
		}
		if err := json.Unmarshal(data, &q); err != nil {
			return out, fmt.Errorf("%s: decoding response: %w", op, err)
		}
		if q.Repository == nil {
			return out, &APIError{Op: op, Status: 404, Message: fmt.Sprintf("repository %s/%s not found", owner, repo)}
		}
		if q.Repository.Config != nil {
			out.Config = q.Repository.Config.Text
		}
		ended := false
		for _, p := range q.Repository.PullRequests.Nodes {
			if p.UpdatedAt.Before(since) {
				ended = true
				break
			}
			ps := PRStates{Number: p.Number, UpdatedAt: p.UpdatedAt, Comments: markerComments(p.Comments.Nodes, marker)}
			if len(ps.Comments) == 0 && p.Comments.PageInfo.HasNextPage {
				pending = append(pending, more{i: len(out.PRs), cursor: p.Comments.PageInfo.EndCursor})
			}
			out.PRs = append(out.PRs, ps)
		}
		pi := q.Repository.PullRequests.PageInfo
		if ended || !pi.HasNextPage {
			break
		}
		if len(out.PRs) >= maxPRs {
			out.Truncated = true
			break
		}
		cursor = pi.EndCursor
	}
	// Long threads: further pages of comments, batched with aliases.
	for round := 0; round < LoopStateExtraPages && len(pending) > 0; round++ {
		var next []more
		for start := 0; start < len(pending); start += LoopStatePRsPerPage {
			batch := pending[start:min(start+LoopStatePRsPerPage, len(pending))]
			var b strings.Builder
			b.WriteString(`query($owner: String!, $name: String!, $c: Int!) { repository(owner: $owner, name: $name) {`)
			for k, m := range batch {
				fmt.Fprintf(&b, ` p%d: pullRequest(number: %d) { number updatedAt comments(first: $c, after: %s) { %s } }`,
					k, out.PRs[m.i].Number, strconv.Quote(m.cursor), lsCommentFields)
			}
			b.WriteString(` } }`)
			data, errs, err := c.rawGraphQL(ctx, op, true, b.String(), map[string]any{"owner": owner, "name": repo, "c": loopStateComments})
			out.Requests++
			if err != nil {
				return out, fmt.Errorf("reading the comments of %s/%s's pull requests: %w", owner, repo, err)
			}
			if len(errs) > 0 {
				return out, fmt.Errorf("reading the comments of %s/%s's pull requests: %w", owner, repo, gqlErrors(op, errs))
			}
			var q struct {
				Repository map[string]*lsPR `json:"repository"`
			}
			if err := json.Unmarshal(data, &q); err != nil {
				return out, fmt.Errorf("%s: decoding response: %w", op, err)
			}
			for k, m := range batch {
				p := q.Repository["p"+strconv.Itoa(k)]
				if p == nil {
					continue
				}
				ps := &out.PRs[m.i]
				ps.Comments = markerComments(p.Comments.Nodes, marker)
				if len(ps.Comments) == 0 && p.Comments.PageInfo.HasNextPage {
					next = append(next, more{i: m.i, cursor: p.Comments.PageInfo.EndCursor})
				}
			}
		}
		pending = next
	}
	for _, m := range pending {
		out.PRs[m.i].Incomplete = true
	}
	return out, nil
}

func markerComments(nodes []lsComment, marker string) []StateComment {
	var out []StateComment
	for _, n := range nodes {
		if !strings.Contains(n.Body, marker) {
			continue
		}
		sc := StateComment{CreatedAt: n.CreatedAt, Body: n.Body}
		if n.Author != nil {
			sc.Author = n.Author.Login
		}
		sc.ID, _ = strconv.ParseInt(strings.Trim(string(n.FullDatabaseID), `"`), 10, 64)
		out = append(out, sc)
	}
	return out
}
