package sim

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// Webhook payloads, minimal but shaped like GitHub's: the fields
// internal/event reads and a few that identify the delivery.

type jsonUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

func (w *World) user(login string, bot bool) jsonUser {
	if bot {
		if !strings.HasSuffix(login, "[bot]") {
			login += "[bot]"
		}
		return jsonUser{Login: login, Type: "Bot"}
	}
	return jsonUser{Login: strings.TrimPrefix(login, ghfake.UserPrefix), Type: "User"}
}

func (w *World) repository() map[string]any {
	return map[string]any{"name": w.Repo, "full_name": w.Owner + "/" + w.Repo, "owner": jsonUser{Login: w.Owner, Type: "User"}}
}

func (w *World) prRef(sha string) map[string]any {
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	return map[string]any{"number": w.Number, "head": map[string]any{"ref": snap.HeadRef, "sha": sha}, "base": map[string]any{"ref": snap.BaseRef}}
}

// prRefs is check_run.pull_requests / workflow_run.pull_requests: GitHub
// leaves it empty when the head branch lives in a fork.
func (w *World) prRefs(sha string) []map[string]any {
	if w.Scenario.PR.Fork {
		return []map[string]any{}
	}
	return []map[string]any{w.prRef(sha)}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (w *World) checkRunPayload(name, appSlug, appName, sha, conclusion string) []byte {
	return mustJSON(map[string]any{
		"action": "completed",
		"check_run": map[string]any{
			"name": name, "head_sha": sha, "status": "completed", "conclusion": strings.ToLower(conclusion),
			"app":           map[string]any{"slug": appSlug, "name": appName},
			"pull_requests": w.prRefs(sha),
		},
		"repository": w.repository(),
		"sender":     w.user(appSlug, true),
	})
}

func (w *World) workflowRunPayload(name, path, sha, conclusion string) []byte {
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	return mustJSON(map[string]any{
		"action":   "completed",
		"workflow": map[string]any{"name": name, "path": path},
		"workflow_run": map[string]any{
			"name": name, "head_sha": sha, "head_branch": snap.HeadRef, "status": "completed", "conclusion": conclusion,
			"event": "pull_request", "pull_requests": w.prRefs(sha),
		},
		"repository": w.repository(),
		"sender":     w.user(ActionsLogin, true),
	})
}

// claudeRunPayload is workflow_run for Claude's job: a push-triggered run
// names the PR; a comment-triggered one runs on the default branch's head
// with event issue_comment and an empty pull_requests list (its head
// matches no open PR).
func (w *World) claudeRunPayload(j *job, conclusion string) []byte {
	if !j.byComment {
		return w.workflowRunPayload(ClaudeWorkflowName, ClaudeWorkflowPath, j.sha, conclusion)
	}
	run := map[string]any{
		"id": j.runID, "name": ClaudeWorkflowName, "path": ClaudeWorkflowPath, "head_sha": j.checkSHA(), "head_branch": w.defaultBranch(),
		"status": "completed", "conclusion": conclusion, "event": "issue_comment", "pull_requests": []map[string]any{},
	}
	for _, r := range w.Fake.WorkflowRuns(w.Owner, w.Repo) {
		if r.ID == j.runID {
			run["created_at"], run["updated_at"] = r.CreatedAt.Format(time.RFC3339), r.UpdatedAt.Format(time.RFC3339)
			run["run_started_at"], run["actor"] = r.RunStartedAt.Format(time.RFC3339), w.user(r.Actor, false)
		}
	}
	return mustJSON(map[string]any{
		"action":       "completed",
		"workflow":     map[string]any{"name": ClaudeWorkflowName, "path": ClaudeWorkflowPath},
		"workflow_run": run,
		"repository":   w.repository(),
		"sender":       w.user(ActionsLogin, true),
	})
}

func (w *World) reviewPayload(id int64, login, sha string) []byte {
	return mustJSON(map[string]any{
		"action":       "submitted",
		"review":       map[string]any{"id": id, "user": w.user(login, true), "commit_id": sha, "state": "commented", "author_association": "NONE"},
		"pull_request": w.prRef(sha),
		"repository":   w.repository(),
		"sender":       w.user(login, true),
	})
}

func (w *World) issueCommentPayload(c ghfake.IssueComment, bot bool) []byte {
	assoc := c.Association
	if assoc == "" {
		assoc = "NONE"
	}
	u := w.user(c.Author, bot)
	return mustJSON(map[string]any{
		"action": "created",
		"issue": map[string]any{"number": w.Number,
			"pull_request": map[string]any{"url": "https://api.github.com/repos/" + w.Owner + "/" + w.Repo + "/pulls/" + itoa(w.Number)}},
		"comment":    map[string]any{"id": c.ID, "body": c.Body, "user": u, "author_association": assoc},
		"repository": w.repository(),
		"sender":     u,
	})
}

func (w *World) pullRequestPayload(action, before, after, sender string) []byte {
	return mustJSON(map[string]any{
		"action": action, "number": w.Number, "before": before, "after": after,
		"pull_request": w.prRef(after),
		"repository":   w.repository(),
		"sender":       w.user(sender, false),
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
