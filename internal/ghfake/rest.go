package ghfake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

type idKey struct{}

var (
	muxOnce sync.Once
	mux     *http.ServeMux
)

func (f *Fake) serveREST(w http.ResponseWriter, r *http.Request, id Identity) {
	muxOnce.Do(buildMux)
	ctx := context.WithValue(r.Context(), idKey{}, restCtx{f: f, id: id})
	mux.ServeHTTP(w, r.WithContext(ctx))
}

type restCtx struct {
	f  *Fake
	id Identity
}

type handler func(f *Fake, id Identity, w http.ResponseWriter, r *http.Request)

func buildMux() {
	mux = http.NewServeMux()
	h := func(pattern string, fn handler) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			rc := r.Context().Value(idKey{}).(restCtx)
			fn(rc.f, rc.id, w, r)
		})
	}
	h("GET /user", getUser)
	h("GET /rate_limit", getRateLimit)
	h("POST /repos/{owner}/{repo}/issues/{number}/comments", createIssueComment)
	h("GET /repos/{owner}/{repo}/issues/comments/{id}", getIssueComment)
	h("PATCH /repos/{owner}/{repo}/issues/comments/{id}", updateIssueComment)
	h("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", createReaction)
	h("POST /repos/{owner}/{repo}/pulls/{number}/comments/{id}/replies", replyToReviewComment)
	h("POST /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", requestReviewers)
	h("POST /repos/{owner}/{repo}/pulls/{number}/copilot-code-review", requestCopilot)
	h("POST /repos/{owner}/{repo}/actions/workflows/{file}/dispatches", dispatchWorkflow)
	h("POST /repos/{owner}/{repo}/issues", createIssue)
	h("POST /repos/{owner}/{repo}/issues/{number}/labels", addLabels)
	h("DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}", removeLabel)
	h("GET /repos/{owner}/{repo}/branches/{branch...}", getBranch)
	h("GET /repos/{owner}/{repo}/compare/{basehead}", compareCommits)
	h("GET /repos/{owner}/{repo}/pulls/{number}", getPull)
	h("GET /repos/{owner}/{repo}/commits/{ref}", getCommit)
	h("GET /repos/{owner}/{repo}/contents/{path...}", getContent)
	h("GET /repos/{owner}/{repo}/collaborators/{username}/permission", getCollaboratorPermission)
	h("GET /repos/{owner}/{repo}/pulls/{number}/reviews", listReviews)
	h("GET /repos/{owner}/{repo}/pulls/{number}/comments", listReviewComments)
	h("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", listCheckRuns)
	h("POST /repos/{owner}/{repo}/check-runs", createCheckRun)
	h("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", updateCheckRun)
	h("GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", listWorkflowRuns)
	h("GET /repos/{owner}/{repo}/actions/secrets", listRepoSecrets)
	h("GET /repos/{owner}/{repo}/actions/runs/{run_id}", getWorkflowRun)
	h("GET /repos/{owner}/{repo}/rulesets", listRulesets)
	h("GET /repos/{owner}/{repo}/rulesets/{ruleset_id}", getRuleset)
	h("GET /repos/{owner}/{repo}/rules/branches/{branch...}", getBranchRules)
	h("POST /repos/{owner}/{repo}/git/blobs", createBlob)
	h("GET /repos/{owner}/{repo}/git/trees/{tree_sha}", getTree)
	h("POST /repos/{owner}/{repo}/git/trees", createTree)
	h("GET /repos/{owner}/{repo}/git/commits/{commit_sha}", getGitCommit)
	h("POST /repos/{owner}/{repo}/git/commits", createGitCommit)
	h("GET /repos/{owner}/{repo}/git/ref/{ref...}", getGitRef)
	h("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", updateGitRef)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
	})
}

// pathRepoLocked is the repository the request path names
// (/repos/{owner}/{repo}/…), or nil after answering 404. f.mu is held.
func (f *Fake) pathRepoLocked(w http.ResponseWriter, r *http.Request) *repo {
	rp := f.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	if rp == nil {
		notFound(w)
	}
	return rp
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

func unprocessable(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

const api = "https://api.github.com"

func restLogin(u *user) string {
	if u.Bot {
		return u.Login + "[bot]"
	}
	return u.Login
}

func (f *Fake) simpleUser(login string) map[string]any {
	u := f.userLocked(login)
	l := restLogin(u)
	typ := "User"
	if u.Bot {
		typ = "Bot"
	}
	m := map[string]any{"login": l, "id": u.ID, "node_id": u.NodeID, "avatar_url": "https://avatars.githubusercontent.com/u/" + strconv.FormatInt(u.ID, 10),
		"gravatar_id": "", "url": api + "/users/" + l, "html_url": "https://github.com/" + l, "type": typ, "site_admin": false}
	for _, k := range []string{"followers", "following", "gists", "starred", "subscriptions", "organizations", "repos", "events", "received_events"} {
		m[k+"_url"] = api + "/users/" + l + "/" + k
	}
	return m
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (f *Fake) issueCommentJSON(r *repo, number int, c *IssueComment) map[string]any {
	base := api + "/repos/" + r.owner + "/" + r.name
	return map[string]any{"id": c.ID, "node_id": c.NodeID, "url": base + "/issues/comments/" + strconv.FormatInt(c.ID, 10),
		"html_url":  fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", r.owner, r.name, number, c.ID),
		"issue_url": fmt.Sprintf("%s/issues/%d", base, number), "body": c.Body, "user": f.simpleUser(c.Author),
		"created_at": ts(c.CreatedAt), "updated_at": ts(c.UpdatedAt), "author_association": c.Association}
}

func pathInt(r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return n, err == nil
}

func decodeBody(r *http.Request, v any) error {
	return json.NewDecoder(r.Body).Decode(v)
}

// https://docs.github.com/en/rest/users/users#get-the-authenticated-user
func getUser(f *Fake, id Identity, w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	m := f.simpleUser(id.Login)
	f.mu.Unlock()
	for _, k := range []string{"name", "company", "blog", "location", "email", "hireable", "bio", "twitter_username"} {
		m[k] = nil
	}
	m["public_repos"], m["public_gists"], m["followers"], m["following"] = 0, 0, 0, 0
	m["created_at"], m["updated_at"] = "2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z"
	writeJSON(w, http.StatusOK, m)
}

func (f *Fake) prFromPath(w http.ResponseWriter, r *http.Request) (*pr, bool) {
	n, ok := pathInt(r, "number")
	if !ok {
		notFound(w)
		return nil, false
	}
	p, err := f.prLocked(r.PathValue("owner"), r.PathValue("repo"), int(n))
	if err != nil {
		notFound(w)
		return nil, false
	}
	f.syncPRLocked(p)
	return p, true
}

// https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
func createIssueComment(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	body, ok := requiredBody(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		f.mu.Unlock()
		return
	}
	c := f.addIssueCommentLocked(p, id.Login, id.Association, body)
	out := f.issueCommentJSON(p.repo, p.Number, c)
	hooks := slices.Clone(f.onIssueComment)
	ev := IssueCommentEvent{Owner: p.repo.owner, Repo: p.repo.name, Number: p.Number, Comment: *c}
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
	for _, hk := range hooks {
		hk(ev)
	}
}

func (f *Fake) commentFromPath(w http.ResponseWriter, r *http.Request) (*repo, int, *IssueComment, bool) {
	cid, ok := pathInt(r, "id")
	rp := f.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	if !ok || rp == nil {
		notFound(w)
		return nil, 0, nil, false
	}
	for _, p := range rp.prs {
		for _, c := range p.Comments {
			if c.ID == cid {
				return rp, p.Number, c, true
			}
		}
	}
	notFound(w)
	return nil, 0, nil, false
}

// https://docs.github.com/en/rest/issues/comments#get-an-issue-comment
func getIssueComment(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp, n, c, ok := f.commentFromPath(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, f.issueCommentJSON(rp, n, c))
}

// https://docs.github.com/en/rest/issues/comments#update-an-issue-comment
func updateIssueComment(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	body, ok := requiredBody(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp, n, c, ok := f.commentFromPath(w, r)
	if !ok {
		return
	}
	if !strings.EqualFold(c.Author, id.Login) && !f.mayEditOthersLocked(rp, id) {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": permissionMessage, "documentation_url": "https://docs.github.com/rest"})
		return
	}
	c.Body = body
	c.UpdatedAt = f.opts.Now().UTC()
	writeJSON(w, http.StatusOK, f.issueCommentJSON(rp, n, c))
}

// requiredBody reads the request's required "body" field, answering 422
// as GitHub does when it is missing.
func requiredBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := decodeBody(r, &in); err != nil || in.Body == nil {
		unprocessable(w, "Invalid request.\n\n\"body\" wasn't supplied.")
		return "", false
	}
	return *in.Body, true
}

const permissionMessage = "Resource not accessible by integration"

var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// https://docs.github.com/en/rest/reactions/reactions#create-reaction-for-an-issue-comment
func createReaction(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Content string `json:"content"`
	}
	if err := decodeBody(r, &in); err != nil || !slices.Contains(reactionContents, in.Content) {
		unprocessable(w, "Validation Failed")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp, _, c, ok := f.commentFromPath(w, r)
	if !ok {
		return
	}
	status := http.StatusCreated
	for _, x := range f.reacts {
		if x.CommentID == c.ID && x.Content == in.Content && x.By == id.Login {
			status = http.StatusOK
		}
	}
	if status == http.StatusCreated {
		f.reacts = append(f.reacts, Reaction{Owner: rp.owner, Repo: rp.name, CommentID: c.ID, Content: in.Content, By: id.Login})
	}
	rid := f.id()
	writeJSON(w, status, map[string]any{"id": rid, "node_id": fmt.Sprintf("REA_%d", rid), "user": f.simpleUser(id.Login),
		"content": in.Content, "created_at": ts(f.opts.Now())})
}

// https://docs.github.com/en/rest/pulls/comments#create-a-reply-for-a-review-comment
func replyToReviewComment(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	body, ok := requiredBody(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		return
	}
	parent, _ := pathInt(r, "id")
	cid, _, err := f.addReviewCommentLocked(p, CommentOptions{Author: id.Login, Body: body, InReplyTo: parent})
	if err != nil {
		notFound(w)
		return
	}
	c := f.nodes[fmt.Sprintf("PRRC_%d", cid)].(*ReviewComment)
	writeJSON(w, http.StatusCreated, f.reviewCommentJSON(p, c))
}

func (f *Fake) reviewCommentJSON(p *pr, c *ReviewComment) map[string]any {
	base := fmt.Sprintf("%s/repos/%s/%s", api, p.repo.owner, p.repo.name)
	var t *Thread
	for _, x := range p.Threads {
		if slices.Contains(x.Comments, c) {
			t = x
		}
	}
	html := fmt.Sprintf("https://github.com/%s/%s/pull/%d#discussion_r%d", p.repo.owner, p.repo.name, p.Number, c.ID)
	self := fmt.Sprintf("%s/pulls/comments/%d", base, c.ID)
	prURL := fmt.Sprintf("%s/pulls/%d", base, p.Number)
	m := map[string]any{"url": self, "id": c.ID, "node_id": c.NodeID, "pull_request_review_id": c.ReviewID,
		"diff_hunk": "@@ -1 +1 @@", "path": "", "commit_id": c.CommitSHA, "original_commit_id": c.OriginalCommitSHA,
		"user": f.simpleUser(c.Author), "body": c.Body, "created_at": ts(c.CreatedAt), "updated_at": ts(c.CreatedAt),
		"html_url": html, "pull_request_url": prURL, "author_association": "NONE",
		"_links": map[string]any{"self": map[string]any{"href": self}, "html": map[string]any{"href": html}, "pull_request": map[string]any{"href": prURL}}}
	if t != nil {
		m["path"] = t.Path
		if t.Line != 0 {
			m["line"] = t.Line
		} else {
			m["line"] = nil
		}
		m["original_line"] = t.OriginalLine
	}
	if c.InReplyTo != 0 {
		m["in_reply_to_id"] = c.InReplyTo
	}
	return m
}

// https://docs.github.com/en/rest/pulls/review-requests#request-reviewers-for-a-pull-request
func requestReviewers(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Reviewers     []string `json:"reviewers"`
		TeamReviewers []string `json:"team_reviewers"`
	}
	if err := decodeBody(r, &in); err != nil {
		unprocessable(w, "Invalid request.")
		return
	}
	f.mu.Lock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		f.mu.Unlock()
		return
	}
	var logins []string
	for _, l := range in.Reviewers {
		l = strings.TrimSuffix(l, "[bot]")
		f.userLocked(l)
		if !slices.Contains(p.Requested, l) {
			p.Requested = append(p.Requested, l)
		}
		logins = append(logins, l)
	}
	out := f.pullSimpleJSON(p)
	hooks := slices.Clone(f.onReviewRequested)
	ev := ReviewRequestEvent{Owner: p.repo.owner, Repo: p.repo.name, Number: p.Number, Logins: logins}
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
	for _, hk := range hooks {
		hk(ev)
	}
}

// CopilotLogin is the reviewer login GitHub uses for Copilot code review.
const CopilotLogin = "copilot-pull-request-reviewer"

// https://docs.github.com/en/rest/pulls/pulls (copilot-code-review, API 2026-03-10); 409 while one is pending.
func requestCopilot(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		f.mu.Unlock()
		return
	}
	if slices.Contains(p.Requested, CopilotLogin) {
		f.mu.Unlock()
		writeJSON(w, http.StatusConflict, map[string]any{"message": "A Copilot code review is already pending for this pull request.", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	f.addUserLocked(CopilotLogin, 175728472, true)
	p.Requested = append(p.Requested, CopilotLogin)
	hooks := slices.Clone(f.onReviewRequested)
	ev := ReviewRequestEvent{Owner: p.repo.owner, Repo: p.repo.name, Number: p.Number, Logins: []string{CopilotLogin}}
	f.mu.Unlock()
	writeJSON(w, http.StatusAccepted, map[string]any{"message": "Copilot code review requested."})
	for _, hk := range hooks {
		hk(ev)
	}
}

// https://docs.github.com/en/rest/actions/workflows#create-a-workflow-dispatch-event
func dispatchWorkflow(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Ref    string         `json:"ref"`
		Inputs map[string]any `json:"inputs"`
	}
	if err := decodeBody(r, &in); err != nil || in.Ref == "" {
		unprocessable(w, "Invalid request.\n\n\"ref\" wasn't supplied.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	if msg := dispatchRefused(rp, r.PathValue("file"), in.Ref); msg != "" {
		unprocessable(w, msg)
		return
	}
	f.dispatch = append(f.dispatch, Dispatch{Owner: rp.owner, Repo: rp.name, Workflow: r.PathValue("file"), Ref: in.Ref, Inputs: in.Inputs, By: id.Login})
	w.WriteHeader(http.StatusNoContent)
}

// https://docs.github.com/en/rest/issues/issues#create-an-issue
func createIssue(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if err := decodeBody(r, &in); err != nil || in.Title == "" {
		unprocessable(w, "Invalid request.\n\n\"title\" wasn't supplied.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	n := rp.nextNumber
	rp.nextNumber++
	is := &Issue{Number: n, Title: in.Title, Body: in.Body, Labels: in.Labels, Author: id.Login,
		URL: fmt.Sprintf("https://github.com/%s/%s/issues/%d", rp.owner, rp.name, n)}
	rp.issues[n] = is
	base := fmt.Sprintf("%s/repos/%s/%s/issues/%d", api, rp.owner, rp.name, n)
	iid := f.id()
	labels := []any{}
	for _, l := range in.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	now := ts(f.opts.Now())
	writeJSON(w, http.StatusCreated, map[string]any{"id": iid, "node_id": fmt.Sprintf("I_%d", iid), "url": base,
		"repository_url": fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name), "labels_url": base + "/labels{/name}",
		"comments_url": base + "/comments", "events_url": base + "/events", "html_url": is.URL, "number": n,
		"state": "open", "title": in.Title, "body": in.Body, "user": f.simpleUser(id.Login), "labels": labels,
		"assignee": nil, "milestone": nil, "locked": false, "comments": 0, "closed_at": nil,
		"created_at": now, "updated_at": now, "author_association": id.Association})
}

// https://docs.github.com/en/rest/branches/branches#get-a-branch
func getBranch(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	branch := r.PathValue("branch")
	if rp == nil {
		notFound(w)
		return
	}
	sha := rp.branchSHA(branch)
	if sha == "" {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Branch not found", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	base := fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
	person := map[string]any{"name": "ghfake", "email": "ghfake@example.invalid", "date": "2020-01-01T00:00:00Z"}
	commit := map[string]any{"url": base + "/commits/" + sha, "sha": sha, "node_id": "C_" + sha, "html_url": "https://github.com/" + rp.owner + "/" + rp.name + "/commit/" + sha,
		"comments_url": base + "/commits/" + sha + "/comments", "author": nil, "committer": nil, "parents": []any{},
		"commit": map[string]any{"url": base + "/git/commits/" + sha, "author": person, "committer": person, "message": "commit", "comment_count": 0,
			"tree": map[string]any{"sha": sha, "url": base + "/git/trees/" + sha}}}
	prot := rp.protected[branch]
	writeJSON(w, http.StatusOK, map[string]any{"name": branch, "commit": commit, "protected": prot,
		"protection": map[string]any{"enabled": prot}, "protection_url": base + "/branches/" + branch + "/protection",
		"_links": map[string]any{"html": "https://github.com/" + rp.owner + "/" + rp.name + "/tree/" + branch, "self": base + "/branches/" + branch}})
}

// page applies REST page/per_page and sets the Link header.
func page[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pg = max(pg, 1)
	lo := min((pg-1)*per, len(items))
	hi := min(lo+per, len(items))
	if hi < len(items) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(pg+1))
		q.Set("per_page", strconv.Itoa(per))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, u.String()))
	}
	return items[lo:hi]
}

// https://docs.github.com/en/rest/pulls/reviews#list-reviews-for-a-pull-request
func listReviews(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		return
	}
	var out []any
	for _, rv := range page(w, r, p.Reviews) {
		html := fmt.Sprintf("https://github.com/%s/%s/pull/%d#pullrequestreview-%d", p.repo.owner, p.repo.name, p.Number, rv.ID)
		prURL := fmt.Sprintf("%s/repos/%s/%s/pulls/%d", api, p.repo.owner, p.repo.name, p.Number)
		out = append(out, map[string]any{"id": rv.ID, "node_id": rv.NodeID, "user": f.simpleUser(rv.Author), "body": rv.Body,
			"state": rv.State, "html_url": html, "pull_request_url": prURL, "commit_id": rv.CommitSHA,
			"submitted_at": ts(rv.SubmittedAt), "author_association": "NONE",
			"_links": map[string]any{"html": map[string]any{"href": html}, "pull_request": map[string]any{"href": prURL}}})
	}
	writeJSON(w, http.StatusOK, nonNil(out))
}

// https://docs.github.com/en/rest/pulls/comments#list-review-comments-on-a-pull-request
func listReviewComments(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		return
	}
	var all []*ReviewComment
	for _, t := range p.Threads {
		all = append(all, t.Comments...)
	}
	var out []any
	for _, c := range page(w, r, all) {
		out = append(out, f.reviewCommentJSON(p, c))
	}
	writeJSON(w, http.StatusOK, nonNil(out))
}

// https://docs.github.com/en/rest/checks/runs#list-check-runs-for-a-git-reference
func listCheckRuns(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	runs := rp.checkRuns[r.PathValue("ref")]
	var out []any
	for _, c := range page(w, r, runs) {
		m := map[string]any{"id": c.ID, "node_id": c.NodeID, "head_sha": c.HeadSHA, "name": c.Name,
			"status": strings.ToLower(c.Status), "conclusion": nil, "started_at": ts(c.StartedAt),
			"app": map[string]any{"slug": c.AppSlug}, "output": map[string]any{"title": c.Title, "summary": c.Summary, "text": c.Text}}
		if c.Conclusion != "" {
			m["conclusion"] = strings.ToLower(c.Conclusion)
			m["completed_at"] = ts(c.CompletedAt)
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": nonNil(out)})
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func (f *Fake) repoJSON(r *repo) map[string]any {
	full := r.owner + "/" + r.name
	base := api + "/repos/" + full
	m := map[string]any{"id": r.id, "node_id": r.nodeID, "name": r.name, "full_name": full, "owner": f.simpleUser(r.owner),
		"private": false, "html_url": "https://github.com/" + full, "description": nil, "fork": false, "url": base,
		"clone_url": "https://github.com/" + full + ".git", "git_url": "git://github.com/" + full + ".git",
		"ssh_url": "git@github.com:" + full + ".git", "svn_url": "https://github.com/" + full, "mirror_url": nil, "homepage": nil,
		"language": nil, "default_branch": r.defaultBranch, "forks": 0, "forks_count": 0, "open_issues": 0, "open_issues_count": 0,
		"stargazers_count": 0, "watchers": 0, "watchers_count": 0, "size": 1, "has_downloads": true, "has_issues": true,
		"has_projects": false, "has_wiki": false, "has_pages": false, "archived": false, "disabled": false, "license": nil,
		"pushed_at": "2020-01-01T00:00:00Z", "created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-01T00:00:00Z"}
	for _, k := range []string{"archive", "assignees", "blobs", "branches", "collaborators", "comments", "commits", "compare",
		"contents", "contributors", "deployments", "downloads", "events", "forks", "git_commits", "git_refs", "git_tags",
		"hooks", "issue_comment", "issue_events", "issues", "keys", "labels", "languages", "merges", "milestones",
		"notifications", "pulls", "releases", "stargazers", "statuses", "subscribers", "subscription", "tags", "teams", "trees"} {
		m[k+"_url"] = base + "/" + strings.ReplaceAll(k, "_", "/")
	}
	return m
}

func (f *Fake) pullSimpleJSON(p *pr) map[string]any {
	r := p.repo
	base := fmt.Sprintf("%s/repos/%s/%s", api, r.owner, r.name)
	self := fmt.Sprintf("%s/pulls/%d", base, p.Number)
	html := fmt.Sprintf("https://github.com/%s/%s/pull/%d", r.owner, r.name, p.Number)
	state := "open"
	if p.State != "OPEN" {
		state = "closed"
	}
	ref := func(branch, sha string) map[string]any {
		return map[string]any{"label": r.owner + ":" + branch, "ref": branch, "sha": sha, "user": f.simpleUser(r.owner), "repo": f.repoJSON(r)}
	}
	baseSHA := r.branchSHA(p.BaseRef)
	head := ref(p.HeadRef, p.headSHA)
	if p.Fork {
		// A fork's head lives in the fork: its repository is the
		// author's copy, marked fork (pulls/get's head.repo).
		hr := f.repoJSON(r)
		hr["full_name"], hr["fork"] = p.HeadRepo, true
		hr["clone_url"] = "https://github.com/" + p.HeadRepo + ".git"
		hr["owner"] = f.simpleUser(p.Author)
		head["repo"], head["user"], head["label"] = hr, f.simpleUser(p.Author), p.Author+":"+p.HeadRef
	}
	var reviewers []any
	for _, l := range p.Requested {
		reviewers = append(reviewers, f.simpleUser(l))
	}
	link := func(u string) map[string]any { return map[string]any{"href": u} }
	// The PR's id is its own, the same on every read (an ETag depends on it).
	dbID, _ := strconv.ParseInt(strings.TrimPrefix(p.NodeID, "PR_"), 10, 64)
	return map[string]any{"url": self, "id": dbID, "node_id": p.NodeID, "html_url": html, "diff_url": html + ".diff",
		"patch_url": html + ".patch", "issue_url": fmt.Sprintf("%s/issues/%d", base, p.Number), "commits_url": self + "/commits",
		"review_comments_url": self + "/comments", "review_comment_url": base + "/pulls/comments{/number}",
		"comments_url": fmt.Sprintf("%s/issues/%d/comments", base, p.Number), "statuses_url": base + "/statuses/" + p.headSHA,
		"number": p.Number, "state": state, "locked": false, "title": p.Title, "user": f.simpleUser(p.Author), "body": p.Body,
		"labels": []any{}, "milestone": nil, "created_at": ts(p.CreatedAt), "updated_at": ts(p.CreatedAt), "closed_at": nil,
		"merged_at": nil, "merge_commit_sha": nil, "assignee": nil, "requested_reviewers": nonNil(reviewers),
		"head": head, "base": ref(p.BaseRef, baseSHA), "author_association": "OWNER", "auto_merge": nil,
		"draft": p.Draft,
		"_links": map[string]any{"self": link(self), "html": link(html), "issue": link(fmt.Sprintf("%s/issues/%d", base, p.Number)),
			"comments": link(fmt.Sprintf("%s/issues/%d/comments", base, p.Number)), "review_comments": link(self + "/comments"),
			"review_comment": link(base + "/pulls/comments{/number}"), "commits": link(self + "/commits"),
			"statuses": link(base + "/statuses/" + p.headSHA)}}
}
