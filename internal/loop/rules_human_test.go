package loop

import (
	"errors"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// handedBackAwaiting is a loop whose fix cycle left f-1 (comment 1) as a
// Tier 2 finding awaiting approval and handed back with no fixes (E3), as
// triage stores it.
func handedBackAwaiting(outcome string) state.State {
	st := active(sha1, "bugbot")
	st.Status, st.EndReason = state.StatusDone, string(EndNoFixes)
	st.Iteration = 1
	st.EngineStates["bugbot"] = state.EngineState{TriggeredSHA: sha1, FirstReviewSeen: true, LastSeenReviewID: 10, LastSeenCommentID: 1}
	st.Triage = []state.TriageRow{{FindingID: "f-1", Engine: "bugbot", CommentID: 1, Tier: 2, Outcome: outcome, Cycle: 1}}
	return st
}

func TestRule_TR2_ApprovalAppliesInTheNextFixCycle(t *testing.T) {
	t.Parallel()
	for _, outcome := range []string{OutcomeAwaitingApproval, "approved-pending"} {
		t.Run("a row stored as "+outcome+" is fixed once approved", func(t *testing.T) {
			t.Parallel()
			st, err := ApplyCommand(handedBackAwaiting(outcome), Command{Kind: CommandApprove, FindingID: "f-1", By: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1))), DefaultConfig())
			wantAction(t, p, ActionFix, "")
			if got := triageIDs(p); len(got) != 1 || got[0] != 1 {
				t.Fatalf("triage %v, want [1]", got)
			}
		})
	}
}

func TestRule_E1_ApprovedTier2IsFixedLikeTier1(t *testing.T) {
	t.Parallel()
	// Without the approval the same state hands back: nothing new to fix.
	p, _ := Decide(func() state.State {
		s := handedBackAwaiting(OutcomeAwaitingApproval)
		s.Status, s.EndReason = state.StatusActive, ""
		return s
	}(), obs(sha1, 0, done("bugbot", sha1, 10, f(1))), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndNoFixes)
}

func TestRule_TR2_ApproveByCommentIDNormalisesToTheFindingID(t *testing.T) {
	t.Parallel()
	st, err := ApplyCommand(handedBackAwaiting(OutcomeAwaitingApproval), Command{Kind: CommandApprove, FindingID: "1", Direction: "guard it", By: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Approvals) != 1 || st.Approvals[0].FindingID != "f-1" || st.Approvals[0].Direction != "guard it" {
		t.Fatalf("approvals %+v, want one for f-1", st.Approvals)
	}
	p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1))), DefaultConfig())
	wantAction(t, p, ActionFix, "")
}

func TestRule_TR2_ApproveByActiveFindingBeforeTriage(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	known := []Finding{{ID: "bugbot-77", Engine: "bugbot", CommentID: 77}}
	for _, ref := range []string{"bugbot-77", "77"} {
		got, err := ApplyCommand(st, Command{Kind: CommandApprove, FindingID: ref, Known: known})
		if err != nil {
			t.Fatalf("approve %s: %v", ref, err)
		}
		if len(got.Approvals) != 1 || got.Approvals[0].FindingID != "bugbot-77" {
			t.Fatalf("approve %s: approvals %+v", ref, got.Approvals)
		}
	}
}

func TestRule_TR2_ApproveOfAnUnknownIDIsRefusedAndRecordsNothing(t *testing.T) {
	t.Parallel()
	st := handedBackAwaiting(OutcomeAwaitingApproval)
	got, err := ApplyCommand(st, Command{Kind: CommandApprove, FindingID: "bugbot-999", By: "acme"})
	var unknown *UnknownFindingError
	if !errors.As(err, &unknown) {
		t.Fatalf("err %v, want an UnknownFindingError", err)
	}
	if !strings.Contains(err.Error(), "bugbot-999") || !strings.Contains(err.Error(), "f-1") {
		t.Errorf("error %q should name the id and list the valid ones", err)
	}
	if len(got.Approvals) != 0 || got.Status != state.StatusDone {
		t.Errorf("state changed: approvals %+v status %s", got.Approvals, got.Status)
	}
}

func TestRule_H8_StartPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy StartPolicy
		asked  bool
		want   bool
	}{
		{"command: an engine event on a PR with no loop starts nothing", StartOnCommand, false, false},
		{"command: a start command, the label or a dispatch starts one", StartOnCommand, true, true},
		{"auto: any wake starts one", StartOnAuto, false, true},
		{"an unknown policy is command's", StartPolicy(""), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := MayStartLoop(tt.policy, tt.asked); got != tt.want {
				t.Errorf("MayStartLoop(%q, %v) = %v, want %v", tt.policy, tt.asked, got, tt.want)
			}
		})
	}
}

func TestRule_TR2_AnUnknownIDIsQuotedSoTheReplyMentionsNoOne(t *testing.T) {
	t.Parallel()
	_, err := ApplyCommand(handedBackAwaiting(OutcomeAwaitingApproval), Command{Kind: CommandApprove, FindingID: "@octocat`x"})
	if err == nil || !strings.Contains(err.Error(), "`@octocatx`") {
		t.Fatalf("err %v, want the id inside a code span with its backtick dropped", err)
	}
}
