package ghfake

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// checkRunBody is the body of a check run create or update request.
// https://docs.github.com/en/rest/checks/runs#create-a-check-run
type checkRunBody struct {
	Name        *string `json:"name"`
	HeadSHA     *string `json:"head_sha"`
	Status      *string `json:"status"`
	Conclusion  *string `json:"conclusion"`
	StartedAt   *string `json:"started_at"`
	CompletedAt *string `json:"completed_at"`
	DetailsURL  *string `json:"details_url"`
	Output      *struct {
		Title   *string `json:"title"`
		Summary *string `json:"summary"`
		Text    *string `json:"text"`
	} `json:"output"`
}

var (
	checkStatuses    = []string{"queued", "in_progress", "completed", "waiting", "requested", "pending"}
	checkConclusions = []string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"}
)

// checkAppOnly answers 403 unless the token is a GitHub App's (the Actions
// GITHUB_TOKEN is one): GitHub lets only apps write check runs; a personal
// token gets "You must authenticate via a GitHub App."
// https://docs.github.com/en/rest/checks/runs#create-a-check-run ("OAuth
// apps and authenticated users are not able to create a check suite").
func checkAppOnly(id Identity, w http.ResponseWriter) bool {
	if id.Bot {
		return true
	}
	writeJSON(w, http.StatusForbidden, map[string]any{"message": "You must authenticate via a GitHub App.", "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run"})
	return false
}

// apply validates a create or update body onto cr; it returns the 422
// message of a bad one. A conclusion completes the run (GitHub sets the
// status to completed); completed needs a conclusion.
func (b checkRunBody) apply(cr *CheckRun, now time.Time) string {
	if b.Status != nil {
		if !slices.Contains(checkStatuses, *b.Status) {
			return fmt.Sprintf("Invalid request.\n\n%q is not a member of %q.", *b.Status, checkStatuses)
		}
		cr.Status = strings.ToUpper(*b.Status)
	}
	if b.Conclusion != nil {
		if !slices.Contains(checkConclusions, *b.Conclusion) {
			return fmt.Sprintf("Invalid request.\n\n%q is not a member of %q.", *b.Conclusion, checkConclusions)
		}
		cr.Conclusion, cr.Status = strings.ToUpper(*b.Conclusion), "COMPLETED"
	}
	if cr.Status == "COMPLETED" && cr.Conclusion == "" {
		return "Invalid request.\n\nNo subschema in \"anyOf\" matched.\n\"conclusion\" wasn't supplied."
	}
	if cr.Status == "COMPLETED" {
		cr.CompletedAt = now
	} else {
		cr.CompletedAt, cr.Conclusion = time.Time{}, ""
	}
	if o := b.Output; o != nil {
		if o.Title == nil || o.Summary == nil {
			return "Invalid request.\n\n\"title\", \"summary\" weren't supplied."
		}
		cr.Title, cr.Summary = *o.Title, *o.Summary
		if o.Text != nil {
			cr.Text = *o.Text
		}
		// GitHub caps the summary and the text at 65535 characters.
		if len(cr.Summary) > 65535 || len(cr.Text) > 65535 {
			return "Invalid request.\n\nOnly 65535 characters are allowed; the output is too long."
		}
	}
	return ""
}

// https://docs.github.com/en/rest/checks/runs#create-a-check-run
func createCheckRun(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	if !checkAppOnly(id, w) {
		return
	}
	var in checkRunBody
	if err := decodeBody(r, &in); err != nil || in.Name == nil || *in.Name == "" || in.HeadSHA == nil || *in.HeadSHA == "" {
		unprocessable(w, "Invalid request.\n\n\"name\", \"head_sha\" weren't supplied.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	if !rp.isCommit(r.Context(), *in.HeadSHA) {
		unprocessable(w, "No commit found for SHA: "+*in.HeadSHA)
		return
	}
	now := f.opts.Now().UTC()
	cr := &CheckRun{ID: f.id(), HeadSHA: *in.HeadSHA, Name: *in.Name, AppSlug: strings.TrimSuffix(id.Login, "[bot]"), Status: "QUEUED", StartedAt: now}
	if msg := in.apply(cr, now); msg != "" {
		unprocessable(w, msg)
		return
	}
	cr.NodeID = fmt.Sprintf("CR_%d", cr.ID)
	if cr.AppSlug == "github-actions" {
		// GitHub files a check run created with GITHUB_TOKEN into an
		// existing GitHub Actions check suite of the commit: the newest
		// workflow run's suite here. review-loop's own gate can so show up
		// as a job of an engine's workflow (ENGINES.md round 3, MG2).
		var suite *CheckRun
		for _, c := range rp.checkRuns[cr.HeadSHA] {
			if c.AppSlug == "github-actions" && c.WorkflowPath != "" && (suite == nil || c.ID > suite.ID) {
				suite = c
			}
		}
		if suite != nil {
			cr.WorkflowPath = suite.WorkflowPath
		}
	}
	f.nodes[cr.NodeID] = cr
	rp.checkRuns[cr.HeadSHA] = append(rp.checkRuns[cr.HeadSHA], cr)
	writeJSON(w, http.StatusCreated, f.checkRunJSON(rp, cr))
}

// https://docs.github.com/en/rest/checks/runs#update-a-check-run
// Only the app that created a check run may update it.
func updateCheckRun(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	if !checkAppOnly(id, w) {
		return
	}
	n, ok := pathInt(r, "check_run_id")
	if !ok {
		notFound(w)
		return
	}
	var in checkRunBody
	if err := decodeBody(r, &in); err != nil {
		unprocessable(w, "Problems parsing JSON")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	var cr *CheckRun
	for _, runs := range rp.checkRuns {
		for _, c := range runs {
			if c.ID == n {
				cr = c
			}
		}
	}
	if cr == nil {
		notFound(w)
		return
	}
	if !strings.EqualFold(cr.AppSlug, strings.TrimSuffix(id.Login, "[bot]")) {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "Invalid OAuth application client_id or secret provided.", "documentation_url": "https://docs.github.com/rest/checks/runs#update-a-check-run"})
		return
	}
	next := *cr
	if in.Name != nil {
		next.Name = *in.Name
	}
	if msg := in.apply(&next, f.opts.Now().UTC()); msg != "" {
		unprocessable(w, msg)
		return
	}
	*cr = next
	writeJSON(w, http.StatusOK, f.checkRunJSON(rp, cr))
}

// checkRunJSON is a check run as the REST API answers it (the OpenAPI
// description's check-run schema: every required field present).
func (f *Fake) checkRunJSON(rp *repo, c *CheckRun) map[string]any {
	base := fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
	app := map[string]any{"id": workflowID(c.AppSlug), "slug": c.AppSlug, "node_id": "A_" + c.AppSlug, "client_id": "Iv1." + c.AppSlug,
		"owner": f.simpleUser("github"), "name": c.AppSlug, "description": nil, "external_url": "https://github.com/apps/" + c.AppSlug,
		"html_url": "https://github.com/apps/" + c.AppSlug, "created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-01T00:00:00Z",
		"permissions": map[string]any{"checks": "write"}, "events": []any{}}
	m := map[string]any{"id": c.ID, "node_id": c.NodeID, "head_sha": c.HeadSHA, "name": c.Name, "external_id": nil,
		"url": fmt.Sprintf("%s/check-runs/%d", base, c.ID), "html_url": fmt.Sprintf("https://github.com/%s/%s/runs/%d", rp.owner, rp.name, c.ID),
		"details_url": nil, "status": strings.ToLower(c.Status), "conclusion": nil, "started_at": ts(c.StartedAt), "completed_at": nil,
		"check_suite": map[string]any{"id": c.ID}, "app": app, "pull_requests": []any{},
		"output": map[string]any{"title": nullStr(c.Title), "summary": nullStr(c.Summary), "text": nullStr(c.Text),
			"annotations_count": 0, "annotations_url": fmt.Sprintf("%s/check-runs/%d/annotations", base, c.ID)}}
	if c.Conclusion != "" {
		m["conclusion"] = strings.ToLower(c.Conclusion)
		m["completed_at"] = ts(c.CompletedAt)
	}
	return m
}

// workflowText is `git cat-file -p <commit>:.github/workflows/<file>`,
// ok false when git finds nothing there. A file is looked up in the
// commit's tree listing (treeLookup), which the GraphQL configuration
// lookups at the same commit share: a file that is not there then costs
// no git process.
func workflowText(ctx context.Context, rp *repo, commit, file string) (string, bool) {
	expr := commit + ":.github/workflows/" + file
	if sha, typ, ok := treeLookup(ctx, rp, expr); ok && typ != "tree" {
		if sha == "" {
			return "", false
		}
		text, err := gitObjectCached(ctx, rp, "cat-file", "blob", sha)
		return text, err == nil
	}
	text, err := gitObjectCached(ctx, rp, "cat-file", "-p", expr)
	return text, err == nil
}

// dispatchRefused is GitHub's 422 for a workflow_dispatch GitHub refuses:
// a ref that names no branch ("No ref found for: <ref>"), or a workflow
// file that, at that ref, has no workflow_dispatch trigger ("Workflow does
// not have 'workflow_dispatch' trigger"). A workflow file the repository
// does not hold at all is accepted: scenario repositories leave out the
// loop's own workflow file, which the loop re-dispatches (W5).
func dispatchRefused(rp *repo, file, ref string) string {
	branch := strings.TrimPrefix(ref, "refs/heads/")
	sha := rp.branchSHA(branch)
	if sha == "" {
		return "No ref found for: " + ref
	}
	text, ok := workflowText(context.Background(), rp, sha, file)
	if !ok {
		return ""
	}
	if !strings.Contains(text, "workflow_dispatch") {
		return "Workflow does not have 'workflow_dispatch' trigger"
	}
	return ""
}
