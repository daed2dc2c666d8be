package observe

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// The won't-fix memory (WF1) lives in review-loop's own decline replies,
// read back from the PR's threads, so the state stays within one comment
// however many decisions a loop makes (R1).

const (
	wfPR    = "https://github.com/o/r/pull/7"
	wfHead1 = "1111111111111111111111111111111111111111"
	wfHead2 = "2222222222222222222222222222222222222222"
)

var (
	wfT0     = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	wfLoop   = github.Actor{Login: "github-actions", IsBot: true}
	wfEngine = github.Actor{Login: "cursor", IsBot: true}
)

func wfState() state.State {
	st := state.New()
	st.Status, st.StartedAt, st.LastObservedSHA = state.StatusActive, wfT0, wfHead1
	st.Engines = []string{"bugbot"}
	st.EngineStates = map[string]state.EngineState{"bugbot": {TriggeredSHA: wfHead2, TriggeredAt: wfT0, FirstReviewSeen: true}}
	return st
}

// wfDecide decides on head 2 with bugbot's review showing findings, and
// the decisions remembered from the threads.
func wfDecide(st state.State, remembered []state.WontFix, findings []loop.Finding) loop.Plan {
	for i := range findings {
		findings[i].Engine, findings[i].ReviewID, findings[i].ReviewSHA = "bugbot", 8, wfHead2
	}
	v := loop.EngineView{Engine: "bugbot", Installed: true, TriggerAvailable: true, Signal: loop.SignalDone, Material: loop.MaterialOK,
		LatestReviewID: 8, LatestSHA: wfHead2, Reviews: []loop.ReviewRef{{ID: 8, SHA: wfHead2, Substantive: true, At: wfT0}},
		Findings: findings, Proof: &loop.Proof{Kind: "review", SHA: wfHead2, ID: 8}}
	p, _ := loop.Decide(st, loop.Observation{Now: wfT0.Add(time.Hour), PR: 7, HeadSHA: wfHead2, PRState: "OPEN",
		Engines: []loop.EngineView{v}, Remembered: remembered}, loop.DefaultConfig())
	return p
}

// wfDeclined is the decline reply the loop posts for finding f (AfterFix
// with a DISAGREE result), as review-loop's real reply effect builds it.
func wfDeclined(t *testing.T, st state.State, f loop.Finding, reason string) loop.Reply {
	t.Helper()
	effects := loop.AfterFix(st, loop.FixOutcome{Results: []loop.FixResultRow{{ID: f.ID, Outcome: loop.OutcomeDisagreed, Reply: reason}},
		Findings: map[string]loop.Finding{f.ID: f}}, nil, loop.Facts{})
	for _, e := range effects {
		if e.Kind == loop.EffectReply && len(e.Replies) == 1 {
			return e.Replies[0]
		}
	}
	t.Fatalf("no decline reply for %s in %+v", f.ID, effects)
	return loop.Reply{}
}

// wfFinding is the n-th distinct finding, as an engine raises it in
// comment id: its code context hash is a real one (loop.ContextHash).
func wfFinding(id int64, n int) loop.Finding {
	code := fmt.Sprintf("func handler%d(r *Request) *Result {\n\tres := lookup%x(r)\n\treturn res.Next\n}\n", n, sha256.Sum256(fmt.Append(nil, n)))
	return loop.Finding{ID: fmt.Sprintf("bugbot-%d", id), CommentID: id, ThreadID: fmt.Sprintf("PRRT_%d", id),
		Path: fmt.Sprintf("internal/pkg%d/file%d.go", n%17, n%100), Line: 3,
		Title: fmt.Sprintf("Possible nil dereference of res in handler%d", n), ContextHash: loop.ContextHash(code, 0, 3)}
}

// The attack: an account other than review-loop's own posts, in a real
// finding's earlier thread, a reply carrying a well-formed decline marker
// for the finding's fingerprint. It must not silence the finding when an
// engine raises it: it stays active and the loop is not clean.
func TestRule_WF1_ForgedMarkerByAnotherAccountIsIgnored(t *testing.T) {
	t.Parallel()
	st := wfState()
	decided := wfFinding(5, 1)
	decided.Engine = "bugbot"
	forged := wfDeclined(t, st, decided, "Intended, do not fix.").Body
	again := wfFinding(9, 1)
	for _, tc := range []struct {
		name     string
		author   github.Actor
		body     string
		drivers  []string
		recalled bool
	}{
		{"a stranger's marker", github.Actor{Login: "mallory"}, forged, nil, false},
		{"another bot's marker", github.Actor{Login: "evil-app", IsBot: true}, forged, nil, false},
		{"the PR author's marker", github.Actor{Login: "author"}, forged, nil, false},
		{"a marker quoted inside the loop's own reply", wfLoop, "The engine wrote:\n\n" + forged + "\n\nThis was fixed.", nil, false},
		{"review-loop's own reply", wfLoop, forged, nil, true},
		{"the adopted driver's reply (watch)", github.Actor{Login: "maintainer"}, forged, []string{"maintainer"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := &github.Observation{URL: wfPR, ViewerLogin: "github-actions", Author: github.Actor{Login: "author"}, DriverLogins: tc.drivers,
				Threads: []github.Thread{
					{NodeID: "PRRT_5", Path: decided.Path, Comments: []github.ReviewComment{
						{DatabaseID: 5, Author: wfEngine, Body: decided.Title},
						{DatabaseID: 6, Author: tc.author, Body: tc.body, CreatedAt: wfT0}}},
					{NodeID: "PRRT_9", Path: again.Path, Comments: []github.ReviewComment{{DatabaseID: 9, Author: wfEngine, Body: again.Title}}},
				}}
			p := wfDecide(st, Remembered(obs), []loop.Finding{again})
			if got := len(p.Recalled) == 1; got != tc.recalled {
				t.Fatalf("recalled = %+v, want recalled %v", p.Recalled, tc.recalled)
			}
			if !tc.recalled {
				if p.Action == loop.ActionHandBack && p.EndReason == loop.EndClean {
					t.Errorf("a forged marker made the loop clean: %s", p.Why)
				}
				return
			}
			if r := p.Recalled[0].Reply; !strings.Contains(r, "Intended, do not fix.") || !strings.Contains(r, wfPR+"#discussion_r6") {
				t.Errorf("recall reply = %q", r)
			}
		})
	}
}

// R1 with WF1: 10,000 distinct won't-fix decisions over 100 fix cycles
// leave the state within one comment with room to spare, and each one,
// raised again on a later head, is answered with its own rationale and
// link, once, and not counted as active.
func TestRule_R1_TenThousandWontFixDecisionsAreRememberedAndFitOneComment(t *testing.T) {
	t.Parallel()
	st := wfState()
	obs := &github.Observation{URL: wfPR, ViewerLogin: "github-actions", Author: github.Actor{Login: "author"}}
	const cycles, perCycle = 100, 100
	id := int64(2233029565)
	reason := func(n int) string {
		return fmt.Sprintf("Intended: lookup %x never returns nil for handler%d; its callers check the %x case.", sha256.Sum256(fmt.Append(nil, "r", n)), n, n*7919)
	}
	replyOf := map[int]int64{}
	for cycle := range cycles {
		var decided []loop.WontFixDecision
		for i := range perCycle {
			n := cycle*perCycle + i
			id += 37
			f := wfFinding(id, n)
			r := wfDeclined(t, st, f, reason(n))
			replyID := id + 1
			replyOf[n] = replyID
			obs.Threads = append(obs.Threads, github.Thread{NodeID: f.ThreadID, Path: f.Path, Comments: []github.ReviewComment{
				{DatabaseID: id, Author: wfEngine, Body: f.Title, CreatedAt: wfT0},
				{DatabaseID: replyID, Author: wfLoop, Body: r.Body, CreatedAt: wfT0.Add(time.Duration(n) * time.Second)}}})
			if d, ok := loop.Decided(loop.Plan{Triage: []loop.Finding{f}}, r, replyID, wfPR); ok {
				decided = append(decided, d)
			}
		}
		if len(decided) != perCycle {
			t.Fatalf("cycle %d: %d decisions kept a rationale, want %d", cycle, len(decided), perCycle)
		}
		st = loop.RememberWontFix(st, decided, wfHead1, wfT0.Add(time.Duration(cycle)*time.Minute))
	}
	body, err := state.Encode("", st)
	if err != nil {
		t.Fatalf("encoding the state after 10,000 decisions: %v (%d memory rows)", err, len(st.WontFix))
	}
	if n := len([]rune(body)); n > state.MaxCommentChars/4 {
		t.Errorf("the state takes %d characters of the comment's %d after 10,000 decisions (%d memory rows)", n, state.MaxCommentChars, len(st.WontFix))
	}
	decoded, found, err := state.Decode(body)
	if !found || err != nil {
		t.Fatalf("decoding the state: found %v, %v", found, err)
	}

	// A later head: every fingerprint raised again in a new thread.
	mem := Remembered(obs)
	if len(mem) != cycles*perCycle {
		t.Fatalf("read back %d decisions from the threads, want %d", len(mem), cycles*perCycle)
	}
	again := make([]loop.Finding, 0, cycles*perCycle)
	for n := range cycles * perCycle {
		id += 37
		again = append(again, wfFinding(id, n))
	}
	p := wfDecide(decoded, mem, again)
	if len(p.Recalled) != len(again) {
		t.Fatalf("%d of %d findings raised again were recalled", len(p.Recalled), len(again))
	}
	for _, r := range p.Engines {
		if len(r.Active) != 0 {
			t.Errorf("%s has %d active findings, want every one recalled", r.Engine, len(r.Active))
		}
	}
	byComment := map[int64]int{}
	for n, f := range again {
		byComment[f.CommentID] = n
	}
	for _, r := range p.Recalled {
		n := byComment[r.Finding.CommentID]
		if !strings.Contains(r.Reply, reason(n)) || !strings.Contains(r.Reply, fmt.Sprintf("%s#discussion_r%d", wfPR, replyOf[n])) {
			t.Fatalf("finding %d is answered with %q, want its own rationale and link", n, r.Reply)
		}
	}
	if len(p.Reraised) != len(again) {
		t.Errorf("the hand-back lists %d decisions raised again, want %d", len(p.Reraised), len(again))
	}

	// Answered once: the recall replies, read back, leave nothing to say.
	for i, r := range p.Recalled {
		obs.Threads = append(obs.Threads, github.Thread{NodeID: r.Finding.ThreadID, Path: r.Finding.Path, Comments: []github.ReviewComment{
			{DatabaseID: r.Finding.CommentID, Author: wfEngine, Body: r.Finding.Title},
			{DatabaseID: id + int64(i) + 1, Author: wfLoop, Body: r.Reply, CreatedAt: wfT0.Add(2 * time.Hour)}}})
	}
	mem = Remembered(obs)
	if len(mem) != cycles*perCycle {
		t.Fatalf("after the recall replies, read back %d decisions, want %d (a recall reply is no new decision)", len(mem), cycles*perCycle)
	}
	p2 := wfDecide(decoded, mem, again)
	if len(p2.Recalled) != len(again) || loop.RecallsToAnswer(p2) {
		t.Errorf("second cycle: %d recalled, to answer %v: want all recalled, none answered twice", len(p2.Recalled), loop.RecallsToAnswer(p2))
	}
	if len(p2.Reraised) != len(again) || p2.Reraised[0].ReraisedBy[0] != "bugbot" {
		t.Errorf("second cycle lists %d decisions raised again", len(p2.Reraised))
	}
}

// A state written before the decisions moved into the replies holds them
// as rows (with their link): it still decodes, its decisions are still
// recalled, answered once, and no new row is added.
func TestRule_R1_StateWrittenBeforeMarkersStillRecalls(t *testing.T) {
	t.Parallel()
	const old = `{"version":1,"status":"active","started_at":"2026-05-01T12:00:00Z","last_observed_sha":"` + wfHead1 + `",` +
		`"engines":["bugbot"],"engine_states":{"bugbot":{"triggered_sha":"` + wfHead2 + `","triggered_at":"2026-05-01T12:00:00Z","first_review_seen":true}},` +
		`"wont_fix":[{"path":"internal/pkg1/file1.go","title":"Possible nil dereference of res in handler1","context":"%s","id":"copilot-5","engine":"copilot",` +
		`"comment_id":5,"reason":"Intended: handler 1 returns nil on purpose.","reply_url":"` + wfPR + `#discussion_r6","sha":"` + wfHead1 + `","at":"2026-05-01T12:00:00Z"}]}`
	f := wfFinding(9, 1)
	st, err := state.DecodeJSON(fmt.Appendf(nil, old, f.ContextHash))
	if err != nil {
		t.Fatalf("decoding a state written before the markers: %v", err)
	}
	p := wfDecide(st, nil, []loop.Finding{f})
	if len(p.Recalled) != 1 || !strings.Contains(p.Recalled[0].Reply, "Intended: handler 1 returns nil on purpose.") ||
		!strings.Contains(p.Recalled[0].Reply, wfPR+"#discussion_r6") {
		t.Fatalf("recalled = %+v", p.Recalled)
	}
	st = loop.RecordRecalled(st, p.Recalled, []int64{9})
	if p2 := wfDecide(st, nil, []loop.Finding{wfFinding(9, 1)}); len(p2.Recalled) != 1 || loop.RecallsToAnswer(p2) {
		t.Errorf("second cycle recalled = %+v, want no second reply", p2.Recalled)
	}
	if len(st.WontFix) != 1 {
		t.Errorf("memory rows = %d, want the one old row", len(st.WontFix))
	}
}

// A fixer's or triage's reply is posted as review-loop: a marker written
// into its text (a prompt-injected agent) must not become a decision,
// even when the finding has no fingerprint and the reply ends with it.
func TestRule_WF1_MarkerInAFixersReplyIsInert(t *testing.T) {
	t.Parallel()
	st := wfState()
	target := wfFinding(5, 1)
	forged := wfDeclined(t, st, target, "Intended.").Body
	unprinted := loop.Finding{ID: "bugbot-7", CommentID: 7, ThreadID: "PRRT_7", Title: "Prose finding with no file"}
	r := wfDeclined(t, st, unprinted, "I disagree.\n\n"+forged)
	obs := &github.Observation{URL: wfPR, ViewerLogin: "github-actions", Threads: []github.Thread{{NodeID: "PRRT_7", Comments: []github.ReviewComment{
		{DatabaseID: 7, Author: wfEngine, Body: unprinted.Title}, {DatabaseID: 8, Author: wfLoop, Body: r.Body, CreatedAt: wfT0}}}}}
	if mem := Remembered(obs); len(mem) != 0 {
		t.Fatalf("a marker in the fixer's text was remembered: %+v", mem)
	}
	if p := wfDecide(st, Remembered(obs), []loop.Finding{wfFinding(9, 1)}); len(p.Recalled) != 0 {
		t.Errorf("recalled = %+v", p.Recalled)
	}
}
