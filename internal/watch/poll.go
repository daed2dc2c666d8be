package watch

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// This file is watch's poll: a few conditional REST reads (If-None-Match
// with the ETag of the last answer) that say whether anything on the PR
// changed since the last look. GitHub answers an unchanged resource with
// 304 Not Modified, which does not count against the rate limit
// (docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate);
// only a change starts a full observation (one GraphQL query and pages).

// Head is what the poll learns of the PR itself.
type Head struct {
	SHA, Ref    string
	Fork        bool
	Author      string
	AuthorBot   bool
	State       string
	HeadRepoURL string // the head repository's clone URL
}

// poller holds the ETags of the resources a poll reads.
type poller struct {
	http        *http.Client
	api, token  string
	owner, repo string
	number      int
	etags       map[string]string
	// sums are the bodies' digests: a server that sends no ETag (or a
	// proxy that drops it) still answers the same body when nothing
	// changed, which is not a change, though GitHub counts it.
	sums          map[string][32]byte
	head          Head
	counted, free int // answers GitHub counts, and 304s it does not
}

// resources are the cheap REST reads of a poll: the PR (its head, state,
// comment and review-comment counts, labels), its reviews, and the check
// runs of its head (every engine's completion signal, the Actions jobs'
// included).
func (p *poller) resources() []string {
	base := fmt.Sprintf("/repos/%s/%s", url.PathEscape(p.owner), url.PathEscape(p.repo))
	out := []string{
		fmt.Sprintf("%s/pulls/%d", base, p.number),
		fmt.Sprintf("%s/pulls/%d/reviews?per_page=100", base, p.number),
	}
	if p.head.SHA != "" {
		out = append(out, fmt.Sprintf("%s/commits/%s/check-runs?per_page=100", base, p.head.SHA))
	}
	return out
}

// poll reads every resource conditionally and reports whether any
// answer differs from the last one (the first poll always does).
func (p *poller) poll(ctx context.Context) (changed bool, err error) {
	for i := 0; i < len(p.resources()); i++ {
		// The PR's answer may name a new head, whose check runs are
		// then read in the same poll.
		res := p.resources()[i]
		c, err := p.get(ctx, res, i == 0)
		if err != nil {
			return changed, err
		}
		changed = changed || c
	}
	return changed, nil
}

// get reads one resource with If-None-Match; pr says it is the PR, whose
// head the answer updates.
func (p *poller) get(ctx context.Context, path string, pr bool) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(p.api, "/")+path, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Authorization", "Bearer "+p.token)
	if tag := p.etags[path]; tag != "" {
		req.Header.Set("If-None-Match", tag)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("polling %s: %w", redactPath(path), err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		p.free++
		return false, nil
	case http.StatusOK:
		p.counted++
	default:
		p.counted++
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return false, fmt.Errorf("polling %s: %s: %s", redactPath(path), resp.Status, strings.TrimSpace(string(b)))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return false, fmt.Errorf("polling %s: %w", redactPath(path), err)
	}
	if p.etags == nil {
		p.etags, p.sums = map[string]string{}, map[string][32]byte{}
	}
	p.etags[path] = resp.Header.Get("ETag")
	sum := sha256.Sum256(body)
	old, seen := p.sums[path]
	p.sums[path] = sum
	if seen && old == sum {
		return false, nil
	}
	if pr {
		h, err := parseHead(body)
		if err != nil {
			return false, fmt.Errorf("polling %s: %w", redactPath(path), err)
		}
		p.head = h
	}
	return true, nil
}

// parseHead reads the PR answer's head, author and state.
func parseHead(body []byte) (Head, error) {
	var pr struct {
		State string `json:"state"`
		User  struct {
			Login string `json:"login"`
			Type  string `json:"type"`
		} `json:"user"`
		Head struct {
			SHA  string `json:"sha"`
			Ref  string `json:"ref"`
			Repo *struct {
				Fork     bool   `json:"fork"`
				FullName string `json:"full_name"`
				CloneURL string `json:"clone_url"`
			} `json:"repo"`
		} `json:"head"`
		Base struct {
			Repo struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"base"`
	}
	if err := json.Unmarshal(body, &pr); err != nil {
		return Head{}, fmt.Errorf("reading the pull request: %w", err)
	}
	h := Head{SHA: pr.Head.SHA, Ref: pr.Head.Ref, Author: pr.User.Login, AuthorBot: pr.User.Type == "Bot", State: pr.State}
	// A head repository that is gone (a deleted fork) is a fork too.
	h.Fork = pr.Head.Repo == nil || !strings.EqualFold(pr.Head.Repo.FullName, pr.Base.Repo.FullName)
	if pr.Head.Repo != nil {
		h.HeadRepoURL = pr.Head.Repo.CloneURL
	}
	return h, nil
}

// redactPath is a resource path for an error message (it holds no secret;
// kept as one place to change if it ever does).
func redactPath(p string) string {
	path, _, _ := strings.Cut(p, "?")
	return path
}
