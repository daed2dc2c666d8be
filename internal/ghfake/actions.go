package ghfake

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WorkflowRun is a GitHub Actions workflow run as the fake stores it.
//
// A run's commit depends on its event: for pull_request it is the PR's
// merge ref or head, but for issue_comment (and the other events that run
// only from the default branch) GITHUB_SHA is the last commit of the
// default branch (docs.github.com/en/actions/writing-workflows/
// choosing-when-your-workflow-runs/events-that-trigger-workflows#issue_comment):
// the run, its check suite and its jobs' check runs hang off that commit,
// not the PR head, and pull_requests is empty.
type WorkflowRun struct {
	ID           int64
	NodeID       string
	Name         string // the workflow's name
	DisplayTitle string // the run-name the workflow gave the run; Name when empty
	Path         string // ".github/workflows/claude.yml"
	Event        string // pull_request, issue_comment, ...
	Status       string // queued, in_progress, completed (REST spelling)
	Conclusion   string // success, failure, skipped, ... or "" while running
	HeadSHA      string
	HeadBranch   string
	Actor        string // login of the user whose action started the run
	PRs          []int  // pull_requests: open PRs whose head matches the run's
	RunNumber    int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	RunStartedAt time.Time
}

// WorkflowRunOptions describe a workflow run to create or update.
type WorkflowRunOptions struct {
	// ID updates that run (one SetWorkflowRun returned); zero creates one.
	ID int64
	// NewID is the id of a run to create, as GitHub's own run ids are a
	// sequence of their own (GITHUB_RUN_ID); zero takes the fake's next id.
	NewID        int64
	Name         string
	DisplayTitle string
	Path         string
	Event        string
	Status       string // default queued
	Conclusion   string
	HeadSHA      string
	HeadBranch   string
	Actor        string
	PRs          []int
}

// SetWorkflowRun creates or updates a workflow run of the repository and
// returns its id. Status and conclusion are stored in REST spelling.
func (f *Fake) SetWorkflowRun(owner, repoName string, o WorkflowRunOptions) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, repoName)
	}
	now := f.opts.Now().UTC()
	status := strings.ToLower(o.Status)
	if status == "" {
		status = "queued"
	}
	var run *WorkflowRun
	if o.ID != 0 {
		i := slices.IndexFunc(r.workflowRuns, func(w *WorkflowRun) bool { return w.ID == o.ID })
		if i < 0 {
			return 0, fmt.Errorf("no workflow run %d in %s/%s", o.ID, owner, repoName)
		}
		run = r.workflowRuns[i]
	} else {
		if o.Path == "" || o.Event == "" || o.HeadSHA == "" {
			return 0, fmt.Errorf("a new workflow run needs a path, an event and a head SHA")
		}
		n := 1
		for _, w := range r.workflowRuns {
			if w.Path == o.Path {
				n++
			}
		}
		id := o.NewID
		if id == 0 {
			id = f.id()
		} else if slices.ContainsFunc(r.workflowRuns, func(w *WorkflowRun) bool { return w.ID == id }) {
			return 0, fmt.Errorf("workflow run %d exists in %s/%s", id, owner, repoName)
		}
		run = &WorkflowRun{ID: id, Name: o.Name, DisplayTitle: o.DisplayTitle, Path: o.Path, Event: o.Event, HeadSHA: o.HeadSHA, HeadBranch: o.HeadBranch,
			Actor: o.Actor, PRs: slices.Clone(o.PRs), RunNumber: n, CreatedAt: now}
		run.NodeID = fmt.Sprintf("WFR_%d", run.ID)
		r.workflowRuns = append(r.workflowRuns, run)
	}
	if status != "queued" && run.RunStartedAt.IsZero() {
		run.RunStartedAt = now
	}
	run.Status, run.Conclusion, run.UpdatedAt = status, strings.ToLower(o.Conclusion), now
	return run.ID, nil
}

// WorkflowRuns returns the repository's workflow runs, oldest first.
func (f *Fake) WorkflowRuns(owner, repoName string) []WorkflowRun {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return nil
	}
	out := make([]WorkflowRun, 0, len(r.workflowRuns))
	for _, w := range r.workflowRuns {
		c := *w
		c.PRs = slices.Clone(w.PRs)
		out = append(out, c)
	}
	return out
}

// BranchSHA is the commit a branch of the repository points to, "" when
// there is no such branch.
func (f *Fake) BranchSHA(owner, repoName, branch string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return ""
	}
	if branch == "" {
		branch = r.defaultBranch
	}
	return r.branchSHA(branch)
}

// workflowID is a stable id for a workflow file (GitHub's are database ids).
func workflowID(p string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(p))
	return int64(h.Sum32())
}

// createdFilter reads the `created` query parameter in GitHub's search
// date syntax (>=T, >T, <=T, <T, T..T, or one date-time): it reports
// whether t matches; ok is false when the value cannot be read.
func createdFilter(v string) (match func(time.Time) bool, ok bool) {
	parse := func(s string) (time.Time, bool) {
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	switch {
	case v == "":
		return func(time.Time) bool { return true }, true
	case strings.Contains(v, ".."):
		a, b, _ := strings.Cut(v, "..")
		lo, ok1 := parse(a)
		hi, ok2 := parse(b)
		return func(t time.Time) bool { return !t.Before(lo) && !t.After(hi) }, ok1 && ok2
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, found := strings.CutPrefix(v, op); found {
			at, ok := parse(rest)
			return func(t time.Time) bool {
				switch op {
				case ">=":
					return !t.Before(at)
				case "<=":
					return !t.After(at)
				case ">":
					return t.After(at)
				}
				return t.Before(at)
			}, ok
		}
	}
	at, ok := parse(v)
	return func(t time.Time) bool { return t.Equal(at) }, ok
}

// https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
// {workflow_id} is the workflow's id or its file name ("claude.yml").
// Runs come newest first, filtered by event, status, actor, head_sha and
// created, as GitHub filters them.
func listWorkflowRuns(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	wf := r.PathValue("workflow_id")
	q := r.URL.Query()
	created, ok := createdFilter(q.Get("created"))
	if !ok {
		unprocessable(w, "Invalid request.\n\n"+strconv.Quote(q.Get("created"))+" is not a valid date range for \"created\".")
		return
	}
	known := false
	var runs []*WorkflowRun
	for i := len(rp.workflowRuns) - 1; i >= 0; i-- {
		run := rp.workflowRuns[i]
		if path.Base(run.Path) != wf && strconv.FormatInt(workflowID(run.Path), 10) != wf {
			continue
		}
		known = true
		switch {
		case q.Get("event") != "" && q.Get("event") != run.Event,
			q.Get("status") != "" && q.Get("status") != run.Status && q.Get("status") != run.Conclusion,
			q.Get("actor") != "" && !strings.EqualFold(q.Get("actor"), run.Actor),
			q.Get("head_sha") != "" && q.Get("head_sha") != run.HeadSHA,
			!created(run.CreatedAt):
			continue
		}
		runs = append(runs, run)
	}
	if !known && !f.workflowFileLocked(rp, wf) {
		notFound(w)
		return
	}
	out := []any{}
	for _, run := range page(w, r, runs) {
		out = append(out, f.workflowRunJSON(rp, run))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "workflow_runs": out})
}

// getWorkflowRun serves one run by id; 404 when the repository has none.
//
// https://docs.github.com/en/rest/actions/workflow-runs#get-a-workflow-run
func getWorkflowRun(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("run_id"), 10, 64)
	i := slices.IndexFunc(rp.workflowRuns, func(run *WorkflowRun) bool { return run.ID == id })
	if err != nil || i < 0 {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, f.workflowRunJSON(rp, rp.workflowRuns[i]))
}

// workflowFileLocked reports whether the default branch has the workflow
// file named (a workflow with no runs yet still exists).
func (f *Fake) workflowFileLocked(rp *repo, file string) bool {
	sha := rp.branchSHA(rp.defaultBranch)
	if sha == "" {
		return false
	}
	expr := sha + ":.github/workflows/" + file
	if blob, _, ok := treeLookup(context.Background(), rp, expr); ok { // the listing shared with the GraphQL lookups
		return blob != ""
	}
	_, err := gitObjectCached(context.Background(), rp, "cat-file", "-e", expr)
	return err == nil
}

func (f *Fake) workflowRunJSON(rp *repo, run *WorkflowRun) map[string]any {
	base := fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
	self := base + "/actions/runs/" + strconv.FormatInt(run.ID, 10)
	var conclusion any
	if run.Conclusion != "" {
		conclusion = run.Conclusion
	}
	prs := []any{}
	for _, n := range run.PRs {
		p := rp.prs[n]
		if p == nil {
			continue
		}
		repoRef := map[string]any{"id": rp.id, "url": base, "name": rp.name}
		prs = append(prs, map[string]any{"id": int64(n), "number": n, "url": fmt.Sprintf("%s/pulls/%d", base, n),
			"head": map[string]any{"ref": p.HeadRef, "sha": p.headSHA, "repo": repoRef},
			"base": map[string]any{"ref": p.BaseRef, "sha": rp.branchSHA(p.BaseRef), "repo": repoRef}})
	}
	person := map[string]any{"name": "ghfake", "email": "ghfake@example.invalid"}
	actor := run.Actor
	if actor == "" {
		actor = rp.owner
	}
	if f.userLocked(actor) == nil {
		f.addUserLocked(actor, 0, false)
	}
	m := map[string]any{"id": run.ID, "node_id": run.NodeID, "name": run.Name, "head_branch": run.HeadBranch, "head_sha": run.HeadSHA,
		"path": run.Path, "display_title": cmp.Or(run.DisplayTitle, run.Name), "run_number": run.RunNumber, "run_attempt": 1, "event": run.Event,
		"status": run.Status, "conclusion": conclusion, "workflow_id": workflowID(run.Path), "check_suite_id": run.ID + 1,
		"url": self, "html_url": fmt.Sprintf("https://github.com/%s/%s/actions/runs/%d", rp.owner, rp.name, run.ID),
		"pull_requests": prs, "created_at": ts(run.CreatedAt), "updated_at": ts(run.UpdatedAt),
		"actor": f.simpleUser(actor), "triggering_actor": f.simpleUser(actor),
		"jobs_url": self + "/jobs", "logs_url": self + "/logs", "check_suite_url": base + "/check-suites/" + strconv.FormatInt(run.ID+1, 10),
		"artifacts_url": self + "/artifacts", "cancel_url": self + "/cancel", "rerun_url": self + "/rerun",
		"workflow_url": base + "/actions/workflows/" + strconv.FormatInt(workflowID(run.Path), 10),
		"head_commit": map[string]any{"id": run.HeadSHA, "tree_id": run.HeadSHA, "message": "commit", "timestamp": ts(run.CreatedAt),
			"author": person, "committer": person},
		"repository": f.repoJSON(rp), "head_repository": f.repoJSON(rp)}
	if !run.RunStartedAt.IsZero() {
		m["run_started_at"] = ts(run.RunStartedAt)
	}
	return m
}
