package action

import (
	"strconv"
	"testing"
)

// commentBy is an issue_comment event for a command comment.
func commentBy(id int64, login, association, body string) map[string]any {
	return map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": 1, "pull_request": map[string]any{"url": "x"}},
		"comment":    map[string]any{"id": id, "body": body, "author_association": association, "user": map[string]any{"login": login, "type": "User"}},
		"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":     map[string]any{"login": login, "type": "User"},
	}
}

// TB3: writing commands need write, maintain or admin permission as the
// collaborator permission API reports it; a COLLABORATOR or MEMBER
// association with a triage or read role is refused (😕, nothing written
// to the loop), and the permission is asked once per run.
func TestRule_TB3_TriageAndReadRolesCannotCommandWrites(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	before, _ := statusState(t, w.fake)
	for _, tc := range []struct{ login, association, role, body string }{
		{"triager", "COLLABORATOR", "triage", "@review-loop approve copilot-1 use the base"},
		{"reader", "MEMBER", "read", "@review-loop stop"},
		{"reader2", "COLLABORATOR", "read", "@review-loop reset"},
	} {
		if err := w.fake.SetPermission("octo", "app", tc.login, tc.role); err != nil {
			t.Fatal(err)
		}
		cid, _ := w.fake.AddIssueComment("octo", "app", 1, tc.login, tc.association, tc.body)
		w.fake.ResetRequests()
		if _, err := w.cycle("issue_comment", commentBy(cid, tc.login, tc.association, tc.body), nil); err != nil {
			t.Fatal(err)
		}
		var mine []string
		for _, r := range w.fake.Reactions() {
			if r.CommentID == cid {
				mine = append(mine, r.Content)
			}
		}
		if len(mine) != 1 || mine[0] != "confused" {
			t.Errorf("%s (%s) %q: reactions %v, want only confused", tc.login, tc.role, tc.body, mine)
		}
		asked := 0
		for _, r := range w.fake.Requests() {
			if r.Method != "GET" && r.Operation != "query" && r.Path != "/repos/octo/app/issues/comments/"+strconv.FormatInt(cid, 10)+"/reactions" {
				t.Errorf("%s (%s) %q wrote %s %s", tc.login, tc.role, tc.body, r.Method, r.Path)
			}
			if r.Path == "/repos/octo/app/collaborators/"+tc.login+"/permission" {
				asked++
			}
		}
		if asked != 1 {
			t.Errorf("%s: the permission was asked %d times, want once", tc.login, asked)
		}
		after, _ := statusState(t, w.fake)
		if after.Status != before.Status || len(after.Approvals) != len(before.Approvals) {
			t.Errorf("%s (%s) %q changed the loop: %+v → %+v", tc.login, tc.role, tc.body, before.Status, after.Status)
		}
	}

	// A maintain role may: the stop is applied.
	if err := w.fake.SetPermission("octo", "app", "keeper", "maintain"); err != nil {
		t.Fatal(err)
	}
	cid, _ := w.fake.AddIssueComment("octo", "app", 1, "keeper", "COLLABORATOR", "@review-loop stop")
	if _, err := w.cycle("issue_comment", commentBy(cid, "keeper", "COLLABORATOR", "@review-loop stop"), nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := statusState(t, w.fake); st.Status == before.Status {
		t.Errorf("a maintainer's stop was not applied: status %q", st.Status)
	}
}
