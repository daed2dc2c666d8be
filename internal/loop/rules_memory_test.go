package loop

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/review-loop/review-loop/internal/state"
)

const maxSrc = "package calc\n\n// Max returns the larger of a and b.\nfunc Max(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"

func TestRule_WF1_ContextHashFollowsMovedCodeNotChangedCode(t *testing.T) {
	h := ContextHash(maxSrc, 0, 6)
	moved := ContextHash("package calc\n\n// x\n// y\n// z\n"+strings.TrimPrefix(maxSrc, "package calc\n\n"), 0, 9)
	if h == "" || h != moved {
		t.Errorf("moved code: %q vs %q, want equal", h, moved)
	}
	reindented := ContextHash(strings.ReplaceAll(maxSrc, "\t", "    "), 0, 6)
	if reindented != h {
		t.Error("whitespace-only change altered the context hash")
	}
	if changed := ContextHash(strings.Replace(maxSrc, "return a\n", "return b\n", 1), 0, 6); changed == h {
		t.Error("changed code kept the context hash")
	}
	if ContextHash(maxSrc, 0, 99) != "" || ContextHash(maxSrc, 0, 0) != "" {
		t.Error("a line outside the file must give no hash")
	}
}

func TestRule_WF1_DisagreedFindingRaisedAgainIsRecalledNotActive(t *testing.T) {
	ctx := ContextHash(maxSrc, 0, 6)
	decided := Finding{ID: "copilot-5", Engine: "copilot", CommentID: 5, Path: "calc/calc.go", Line: 6, Title: "Max returns the smaller value.", ContextHash: ctx}
	st := active(sha2, "bugbot", "copilot")
	// A posted reply keeps the decision in its marker, not in the state (R1).
	if posted := RememberWontFix(st, []WontFixDecision{{Finding: decided, Reason: "Intended.", ReplyURL: "https://github.com/o/r/pull/7#discussion_r6"}}, sha1, t0); len(posted.WontFix) != 0 {
		t.Fatalf("a posted decision grew the state: %+v", posted.WontFix)
	}
	// One whose reply could not be posted is kept in the state.
	st = RememberWontFix(st, []WontFixDecision{{Finding: decided, Reason: "Intended: Max is documented wrongly, not coded wrongly."}}, sha1, t0)
	if len(st.WontFix) != 1 {
		t.Fatalf("memory = %+v", st.WontFix)
	}
	// The same decision again is not remembered twice; an unfingerprintable one not at all.
	st = RememberWontFix(st, []WontFixDecision{{Finding: decided, Reason: "again"}, {Finding: Finding{ID: "x", Path: "a.go", Title: "t"}, Reason: "r"}}, sha1, t0)
	if len(st.WontFix) != 1 || st.WontFix[0].Reason != "Intended: Max is documented wrongly, not coded wrongly." {
		t.Fatalf("memory = %+v", st.WontFix)
	}
	again := Finding{ID: "bugbot-9", CommentID: 9, ThreadID: "T9", Path: "calc/calc.go", Line: 9, Title: "Max returns the smaller value", ContextHash: ctx}
	view := done("bugbot", sha2, 8, again)
	view.Stated = &StatedCount{N: 1, Source: "check run"}
	p, st2 := Decide(st, obs(sha2, 0, view, done("copilot", sha2, 10)), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndClean)
	if r := report(t, p, "bugbot"); r.Verdict != VerdictClean || len(r.Active) != 0 {
		t.Errorf("bugbot = %+v, want CLEAN with the recalled finding not active", r)
	}
	if len(p.Recalled) != 1 || !strings.Contains(p.Recalled[0].Reply, "Intended: Max is documented wrongly") {
		t.Fatalf("recalled = %+v", p.Recalled)
	}
	// Answered once: the next cycle has nothing to reply.
	st3 := RecordRecalled(st2, p.Recalled, []int64{9})
	if w := st3.WontFix[0]; len(w.Answered) != 1 || w.ReraisedBy[0] != "bugbot" {
		t.Errorf("memory after recall = %+v", w)
	}
	st3.Status = state.StatusActive
	p2, _ := Decide(st3, obs(sha2, 0, view, done("copilot", sha2, 10)), DefaultConfig())
	if len(p2.Recalled) != 1 || p2.Recalled[0].Reply != "" {
		t.Errorf("second cycle recalled = %+v, want no second reply", p2.Recalled)
	}
}

func TestRule_WF1_OtherCodeOrOtherTitleIsNotRecalled(t *testing.T) {
	ctx := ContextHash(maxSrc, 0, 6)
	st := active(sha2, "bugbot")
	st = RememberWontFix(st, []WontFixDecision{{Finding: Finding{ID: "copilot-5", Engine: "copilot", CommentID: 5, Path: "calc/calc.go", Line: 6,
		Title: "Max returns the smaller value", ContextHash: ctx}, Reason: "intended"}}, sha1, t0)
	for name, f := range map[string]Finding{
		"changed code":    {ID: "bugbot-9", CommentID: 9, Path: "calc/calc.go", Line: 6, Title: "Max returns the smaller value", ContextHash: "0000"},
		"other file":      {ID: "bugbot-9", CommentID: 9, Path: "calc/max.go", Line: 6, Title: "Max returns the smaller value", ContextHash: ctx},
		"other title":     {ID: "bugbot-9", CommentID: 9, Path: "calc/calc.go", Line: 6, Title: "Unchecked overflow in Max", ContextHash: ctx},
		"no context":      {ID: "bugbot-9", CommentID: 9, Path: "calc/calc.go", Line: 6, Title: "Max returns the smaller value"},
		"the same thread": {ID: "copilot-5", CommentID: 5, Path: "calc/calc.go", Line: 6, Title: "Max returns the smaller value", ContextHash: ctx},
	} {
		t.Run(name, func(t *testing.T) {
			p, _ := Decide(st, obs(sha2, 0, done("bugbot", sha2, 8, f)), DefaultConfig())
			if len(p.Recalled) != 0 {
				t.Errorf("recalled %+v", p.Recalled)
			}
		})
	}
}

// R1: only decisions whose reply could not be posted are rows of the
// state, the newest KeepUnpostedWontFix of them; a row of a state written
// before the markers (it has a link) is never dropped.
func TestRule_R1_UnpostedWontFixRowsAreBounded(t *testing.T) {
	st := active(sha2, "bugbot")
	st.WontFix = []state.WontFix{{Path: "old.go", Title: "old", Context: "c0", FindingID: "copilot-1", Reason: "r", ReplyURL: "https://github.com/o/r/pull/7#discussion_r2"}}
	var ds []WontFixDecision
	for i := range KeepUnpostedWontFix + 50 {
		ds = append(ds, WontFixDecision{Finding: Finding{ID: fmt.Sprintf("bugbot-%d", i), CommentID: int64(10 + i), Path: "a.go", Title: fmt.Sprintf("finding number %d", i),
			ContextHash: fmt.Sprintf("%016x", i)}, Reason: "intended"})
	}
	st = RememberWontFix(st, ds, sha1, t0)
	if len(st.WontFix) != KeepUnpostedWontFix+1 || st.WontFix[0].Path != "old.go" || st.WontFix[1].FindingID != "bugbot-50" {
		t.Fatalf("memory holds %d rows, first %+v, second %q", len(st.WontFix), st.WontFix[0], st.WontFix[1].FindingID)
	}
}

// WF1: a decline marker reads back exactly what it was written with, and
// no reply text, however crafted, makes the reader panic or yields a
// decision without a fingerprint and a rationale.
func FuzzWF1_ReadDecline(f *testing.F) {
	f.Add("calc/calc.go", "Max returns the smaller value.", "ed628c6c0bad573b", "Intended. -->", "Not a bug <!-- review-loop:wontfix e30 -->")
	f.Add("a.go", "<!-- x -->", "00", "r", "<!-- review-loop:recalled eyJlIjoiYiJ9 -->")
	f.Fuzz(func(t *testing.T, path, title, ctx, reason, body string) {
		if m, ok := ReadDecline(body); ok && (m.Path == "" || m.Context == "" || strings.TrimSpace(m.Reason) == "") {
			t.Fatalf("read a decision without fingerprint or rationale from %q: %+v", body, m)
		}
		ReadRecall(body)
		ReplyText(body)
		if !utf8.ValidString(path) || !utf8.ValidString(title) || !utf8.ValidString(ctx) {
			return // GitHub's JSON carries only valid UTF-8
		}
		fd := Finding{ID: "bugbot-1", Engine: "bugbot", Path: path, Title: title, ContextHash: ctx}
		mk := DeclineMarker(fd, sha1)
		if mk == "" {
			return
		}
		m, ok := ReadDecline(reason + "\n\n" + mk)
		if strings.TrimSpace(reason) == "" {
			return
		}
		if !ok || m.Path != path || m.Context != ctx || m.Title != oneLine(title) {
			t.Fatalf("marker for %q/%q/%q read back as %+v, %v", path, title, ctx, m, ok)
		}
	})
}
