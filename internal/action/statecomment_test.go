package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// ourState posts a status comment as review-loop's own identity.
func (w *world) ourState(st state.State, visible string) int64 {
	w.t.Helper()
	return w.addOurState(1, visible, st)
}

func (w *world) chatter(n int) {
	w.t.Helper()
	for i := range n {
		if _, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", fmt.Sprintf("note %d", i)); err != nil {
			w.t.Fatal(err)
		}
	}
}

func stoppedState() state.State {
	st := state.New()
	st.Status, st.EndReason, st.Engines = state.StatusStopped, string(loop.EndStopped), []string{"copilot"}
	st.Iteration = 4
	return st
}

func stateComments(f *ghfake.Fake) []ghfake.IssueComment {
	var out []ghfake.IssueComment
	for _, c := range f.PR("octo", "app", 1).Comments {
		if _, found, _ := state.Decode(c.Body); found {
			out = append(out, c)
		}
	}
	return out
}

func commandPayload(id int64, body string) map[string]any {
	return map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": 1, "pull_request": map[string]any{"url": "x"}},
		"comment":    map[string]any{"id": id, "body": body, "author_association": "OWNER", "user": map[string]any{"login": "maintainer", "type": "User"}},
		"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
	}
}

// SC3: a stopped loop stays stopped however many comments follow its state.
func TestRule_SC3_StateIsFoundAfterOneHundredFiftyLaterComments(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.ourState(stoppedState(), "stopped")
	w.chatter(150)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.PRs[0].Plan.Action; a == loop.ActionTrigger || res.PRs[0].State.Status != state.StatusStopped {
		t.Errorf("plan %s, status %q: the stopped loop restarted after 150 later comments", a, res.PRs[0].State.Status)
	}
	if n := len(stateComments(w.fake)); n != 1 {
		t.Errorf("%d state comments, want the one", n)
	}
}

// SC3: our own state comment that cannot be read fails the cycle closed;
// nothing is written and only reset starts over.
func TestRule_SC3_AnUnreadableStateFailsClosedAndResetStartsOver(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	body, err := state.Encode("status", stoppedState())
	if err != nil {
		t.Fatal(err)
	}
	// The hidden JSON is damaged, the marker intact.
	i := strings.Index(body, state.Marker)
	broken := body[:i] + state.Marker + " v1\n{\"status\": \"stopp" + "\n-->"
	sid, _ := w.fake.AddIssueComment("octo", "app", 1, "github-actions", "NONE", broken)
	_, err = w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err == nil || !strings.Contains(err.Error(), "reset") {
		t.Fatalf("error = %v, want a fail-closed error naming reset", err)
	}
	if ws := writes(w.fake); len(ws) != 0 {
		t.Errorf("wrote despite an unreadable state: %+v", ws)
	}

	cid, _ := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "@review-loop reset")
	if _, err := w.cycle("issue_comment", commandPayload(cid, "@review-loop reset"), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatalf("reset: %v", err)
	}
	cs := stateComments(w.fake)
	if len(cs) != 1 || cs[0].ID != sid {
		t.Fatalf("state comments %d (first %d), want our one comment %d rewritten", len(cs), cs[0].ID, sid)
	}
	st, _, err := state.Decode(cs[0].Body)
	if err != nil || st.Status != state.StatusActive {
		t.Errorf("after reset: status %q, err %v; want a new active loop", st.Status, err)
	}
}

// SC3: when the observation could not read every comment page and the
// state is not in the pages read, the cycle fails closed too.
func TestRule_SC3_UnreadCommentPagesFailClosed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.chatter(120)
	w.ourState(stoppedState(), "stopped")
	_, err := w.cycleOpts(github.Options{MaxPages: 1}, "workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err == nil || !strings.Contains(err.Error(), "reset") {
		t.Fatalf("error = %v, want a fail-closed error", err)
	}
	if ws := writes(w.fake); len(ws) != 0 {
		t.Errorf("wrote despite unread comment pages: %+v", ws)
	}
}

// SC4: the earliest state comment by our identity is the state; a later
// one with the marker is reported and never adopted.
func TestRule_SC4_TheEarliestStateCommentWins(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	first := state.New()
	first.Status, first.Engines, first.Iteration = state.StatusActive, []string{"copilot"}, 3
	firstID := w.ourState(first, "first")
	w.chatter(3)
	later := stoppedState()
	laterID := w.ourState(later, "later")
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.PRs[0].State; st.Status != state.StatusActive {
		t.Errorf("status %q: the later state comment was adopted", st.Status)
	}
	var firstBody, laterBody string
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		switch c.ID {
		case firstID:
			firstBody = c.Body
		case laterID:
			laterBody = c.Body
		}
	}
	if _, _, err := state.Decode(laterBody); err != nil || !strings.Contains(laterBody, "later") || strings.Contains(laterBody, "claim") {
		t.Errorf("the later state comment was written to:\n%s", laterBody)
	}
	if !strings.Contains(firstBody, fmt.Sprint(laterID)) {
		t.Errorf("the status comment does not report the later state comment %d:\n%s", laterID, firstBody)
	}
	if !strings.Contains(w.out.String(), "::warning") || !strings.Contains(w.out.String(), fmt.Sprint(laterID)) {
		t.Errorf("no warning about the later state comment:\n%s", w.out.String())
	}
}

// cycleOpts is cycle with client options (page caps).
func (w *world) cycleOpts(opts github.Options, eventName string, payload any, inputs map[string]string) (Result, error) {
	w.t.Helper()
	w.clientOpts = &opts
	defer func() { w.clientOpts = nil }()
	return w.cycleWith(nil, eventName, payload, inputs)
}
