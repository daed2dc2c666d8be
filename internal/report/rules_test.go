package report

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func fixtures() map[string]func() Input {
	return map[string]func() Input{
		"mid-loop": midLoop, "clean": cleanHandBack, "asymmetric": asymmetricHung, "no-progress": noProgress,
		"copilot-only": copilotMaxIterations, "saved state": statusOnly,
	}
}

func TestRule_S4_TwoLinesPerEngine(t *testing.T) {
	t.Parallel()
	for name, fx := range fixtures() {
		t.Run("every engine of the "+name+" report has a state line and a findings line", func(t *testing.T) {
			t.Parallel()
			in := fx()
			md, txt := StatusComment(in), StatusText(in)
			for _, e := range Summarize(in).Engines {
				if !regexp.MustCompile(`(?m)^\*\*` + e.Name + `\*\*\n- check run: ` + "`" + string(e.State) + "`.*\n- findings: .+$").MatchString(md) {
					t.Errorf("comment lacks the two S4 lines of %s:\n%s", e.Name, md)
				}
				if !regexp.MustCompile(`(?m)^  ` + e.Name + `\n    check run: ` + string(e.State) + `.*\n    findings: .+$`).MatchString(txt) {
					t.Errorf("status text lacks the two S4 lines of %s:\n%s", e.Name, txt)
				}
			}
		})
	}
	t.Run("active findings are listed by comment id and linked to the comment", func(t *testing.T) {
		t.Parallel()
		md := StatusComment(noProgress())
		for _, id := range []string{"2233029601", "2233029777"} {
			if !strings.Contains(md, "["+id+"](https://github.com/o/r/pull/7#discussion_r"+id+")") {
				t.Errorf("finding %s is not linked:\n%s", id, md)
			}
		}
		if !strings.Contains(md, "- findings: 2 active findings: ") {
			t.Errorf("findings line does not count the active findings:\n%s", md)
		}
	})
	t.Run("an engine with no active finding says 0 active findings", func(t *testing.T) {
		t.Parallel()
		if md := StatusComment(cleanHandBack()); strings.Count(md, "- findings: 0 active findings") != 3 {
			t.Errorf("want three '0 active findings' lines:\n%s", md)
		}
	})
	t.Run("the trigger note and the HUNG mark are shown on the state line", func(t *testing.T) {
		t.Parallel()
		in := midLoop()
		in.Plan.Engines[0] = loop.EngineReport{Engine: "bugbot", State: loop.Triggered, Active: []int64{},
			Note: "cannot be triggered with our tokens; waiting for its automatic run: trigger unavailable: needs trigger-token"}
		in.Plan.Engines[2].Verdict, in.Plan.Engines[2].Note = loop.VerdictHung, "stalled"
		md := StatusComment(in)
		for _, want := range []string{
			"- check run: `TRIGGERED` · pending — cannot be triggered with our tokens; waiting for its automatic run: trigger unavailable: needs trigger-token",
			"- check run: `RUNNING` · ⚠️ **HUNG** — stalled",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("missing %q in:\n%s", want, md)
			}
		}
	})
	t.Run("without a repository the comment ids are shown unlinked", func(t *testing.T) {
		t.Parallel()
		in := noProgress()
		in.Repo = ""
		if md := StatusComment(in); strings.Contains(md, "discussion_r") || !strings.Contains(md, "2233029777 Nil dereference") {
			t.Errorf("want unlinked ids:\n%s", md)
		}
	})
}

func TestRule_H1_PerEngineOutcomesAndFinalVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      Input
		rows    []string
		verdict Verdict
	}{
		{"a clean loop reports every engine CLEAN with its counts", cleanHandBack(), []string{
			"| bugbot | 2 | 2 | 0 | 0 | 0 | CLEAN |", "| claude | 2 | 1 | 0 | 1 | 0 | CLEAN |", "| copilot | 1 | 0 | 0 | 0 | 0 | CLEAN |",
		}, VerdictClean},
		{"a hung engine is HUNG beside a clean one", asymmetricHung(), []string{
			"| bugbot | 2 | 2 | 0 | 0 | 0 | CLEAN |", "| claude | 2 | 1 | 0 | 1 | 0 | HUNG |",
		}, VerdictHung},
		{"an engine with findings left is STILL_FINDING", noProgress(), []string{
			"| bugbot | 2 | 2 | 0 | 0 | 0 | STILL_FINDING |",
		}, VerdictStillFinding},
		{"an errored engine is ERRORED", func() Input {
			in := asymmetricHung()
			in.Plan.Engines[1].Verdict = loop.VerdictErrored
			return in
		}(), []string{"| claude | 2 | 1 | 0 | 1 | 0 | ERRORED |"}, VerdictErrored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hb := HandBack(tt.in)
			for _, r := range tt.rows {
				if !strings.Contains(hb, r) {
					t.Errorf("missing row %q in:\n%s", r, hb)
				}
			}
			if !strings.Contains(hb, "| engine | cycles | auto-fixed | approved | escalated | skipped | verdict |") {
				t.Errorf("missing H1 table header:\n%s", hb)
			}
			if got := Summarize(tt.in).Verdict; got != tt.verdict {
				t.Errorf("verdict = %s, want %s", got, tt.verdict)
			}
		})
	}
}

func TestRule_H2_AsymmetricClearanceFirst(t *testing.T) {
	t.Parallel()
	t.Run("asymmetric clearance opens the hand-back and precedes the engines", func(t *testing.T) {
		t.Parallel()
		in := asymmetricHung()
		hb, md := HandBack(in), StatusComment(in)
		i := strings.Index(hb, "**Asymmetric clearance:** clean: bugbot · not clean: claude (HUNG)")
		if i < 0 || i > strings.Index(hb, "- Pull request:") || i > strings.Index(hb, "| engine |") {
			t.Errorf("asymmetric clearance is not first:\n%s", hb)
		}
		if j := strings.Index(md, "Asymmetric clearance"); j < 0 || j > strings.Index(md, "#### Engines") {
			t.Errorf("asymmetric clearance is not before the engines in the comment:\n%s", md)
		}
		if !strings.Contains(StatusText(in), "ASYMMETRIC CLEARANCE: clean: bugbot · not clean: claude") {
			t.Error("status text lacks the asymmetric clearance")
		}
		if !Report(in).Asymmetric {
			t.Error("JSON report is not marked asymmetric")
		}
	})
	for name, in := range map[string]Input{
		"all engines clean":            cleanHandBack(),
		"the loop is still running":    midLoop(),
		"the only engine is not clean": copilotMaxIterations(),
	} {
		t.Run("no asymmetric clearance when "+name, func(t *testing.T) {
			t.Parallel()
			if strings.Contains(StatusComment(in), "Asymmetric clearance") || Summarize(in).Asymmetric {
				t.Error("asymmetric clearance shown")
			}
		})
	}
}

func TestRule_H3_EscalationsWithTheirReasoning(t *testing.T) {
	t.Parallel()
	t.Run("a Tier 3 finding is listed with its reasoning", func(t *testing.T) {
		t.Parallel()
		hb := HandBack(cleanHandBack())
		if !strings.Contains(hb, "#### Escalated to you (Tier 3)\n\n- claude-1 (claude): cross-file: touches 3 files\n") {
			t.Errorf("escalation missing:\n%s", hb)
		}
	})
	t.Run("an escalation without reasoning says so", func(t *testing.T) {
		t.Parallel()
		in := cleanHandBack()
		in.State.Triage = []state.TriageRow{{FindingID: "bugbot-9", Engine: "bugbot", CommentID: 9, Tier: 3, Outcome: loop.OutcomeEscalated}}
		if hb := HandBack(in); !strings.Contains(hb, "[bugbot-9](https://github.com/o/r/pull/7#discussion_r9) (bugbot): no reasoning recorded") {
			t.Errorf("escalation missing:\n%s", hb)
		}
	})
	t.Run("no escalation section without Tier 3 findings", func(t *testing.T) {
		t.Parallel()
		if hb := HandBack(copilotMaxIterations()); strings.Contains(hb, "Escalated") {
			t.Errorf("unexpected escalation section:\n%s", hb)
		}
	})
}

func TestRule_H4_RegressionCommandSuggested(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd, want string
	}{
		{"a configured command is suggested before merging", "make test-all", "Run `make test-all` before merging"},
		{"a command with backticks keeps its code span", "echo `date`", "Run `` echo `date` `` before merging"},
		{"no command gives a hint to set regression-command", "", "Set the `regression-command` input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := cleanHandBack()
			in.RegressionCommand = tt.cmd
			if hb := HandBack(in); !strings.Contains(hb, tt.want) {
				t.Errorf("missing %q in:\n%s", tt.want, hb)
			}
		})
	}
}

// endReasons reads every EndReason constant from internal/loop, so that a
// new reason without a follow-up fails this test.
func endReasons(t *testing.T) []loop.EndReason {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "loop", "types.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []loop.EndReason
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "EndReason" {
				for _, v := range vs.Values {
					lit := v.(*ast.BasicLit)
					out = append(out, loop.EndReason(strings.Trim(lit.Value, `"`)))
				}
			}
		}
	}
	if len(out) < 9 {
		t.Fatalf("found only %d end reasons in loop/types.go: %v", len(out), out)
	}
	return out
}

func TestRule_H5_FollowUpPerReason(t *testing.T) {
	t.Parallel()
	seen := map[string]loop.EndReason{}
	for _, r := range endReasons(t) {
		t.Run("the "+string(r)+" reason has its own follow-up in the hand-back", func(t *testing.T) {
			f, ok := followUps[r]
			if !ok || f == "" {
				t.Fatalf("no follow-up for %q", r)
			}
			if other, dup := seen[f]; dup {
				t.Errorf("%q shares its follow-up with %q", r, other)
			}
			seen[f] = r
			in := noProgress()
			in.Plan.EndReason, in.State.EndReason = r, string(r)
			hb := HandBack(in)
			for _, want := range []string{"- End reason: `" + string(r) + "` — " + f, "- Pull request: https://github.com/o/r/pull/7", "- Last commit: [`9f2c1e0`]"} {
				if !strings.Contains(hb, want) {
					t.Errorf("missing %q in:\n%s", want, hb)
				}
			}
		})
	}
	t.Run("an unknown or missing reason still gets a follow-up", func(t *testing.T) {
		t.Parallel()
		if FollowUp("mystery") == "" || FollowUp("") == "" {
			t.Error("empty follow-up")
		}
	})
	t.Run("max-iterations tells the maintainer the engine may still have feedback", func(t *testing.T) {
		t.Parallel()
		if !strings.Contains(FollowUp(loop.EndMaxIterations), "may still have feedback") {
			t.Error(FollowUp(loop.EndMaxIterations))
		}
	})
}

func TestRule_H6_EventLogAsJSONLines(t *testing.T) {
	t.Parallel()
	t.Run("the status text's event log reads back as the saved events", func(t *testing.T) {
		t.Parallel()
		in := midLoop()
		txt := StatusText(in)
		_, log, ok := strings.Cut(txt, "JSON lines):\n")
		if !ok {
			t.Fatalf("no event log in:\n%s", txt)
		}
		got, err := state.ReadEventLog(strings.NewReader(log))
		if err != nil || !slices.EqualFunc(got, in.State.Events, func(a, b state.Event) bool { return a.Name == b.Name && a.Time.Equal(b.Time) }) {
			t.Errorf("event log = %v, %v", got, err)
		}
	})
	t.Run("the comment keeps only the last 20 events and counts the dropped ones", func(t *testing.T) {
		t.Parallel()
		in := midLoop()
		for i := range 30 {
			in.State.Events = append(in.State.Events, state.Event{Time: at(10 + i), Name: state.EventIterStart, Iteration: i})
		}
		in.State.EventsDropped = 4
		md := StatusComment(in)
		if !strings.Contains(md, "Event log (last 20 of 40 events)") || strings.Count(md, `"event":"iter-start"`) != 20 {
			t.Errorf("want the last 20 of 40 events:\n%s", md)
		}
		if sum := JobSummary(in); strings.Count(sum, `"event":`) != 36 {
			t.Errorf("job summary should show all 36 saved events")
		}
		if !strings.Contains(StatusText(in), "(4 older events dropped") {
			t.Error("status text does not count dropped events")
		}
	})
	t.Run("no event log block without events", func(t *testing.T) {
		t.Parallel()
		in := midLoop()
		in.State.Events = nil
		if strings.Contains(StatusComment(in), "<details>") {
			t.Error("empty event log rendered")
		}
	})
}

func TestRule_H7_LargePRNecessaryNotSufficient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(*Input)
		want bool
	}{
		{"a large PR flagged by the input", func(in *Input) { in.LargePR = true }, true},
		{"a large PR flagged by the plan", func(in *Input) { in.Plan.LargePR = true }, true},
		{"a large PR flagged in the saved state", func(in *Input) { in.State.LargePR = true }, true},
		{"a small PR", func(*Input) {}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name+" gets the note: "+map[bool]string{true: "yes", false: "no"}[tt.want], func(t *testing.T) {
			t.Parallel()
			in := cleanHandBack()
			tt.set(&in)
			got := strings.Contains(HandBack(in), "a single clean pass is necessary but not sufficient")
			if got != tt.want || Report(in).LargePR != tt.want {
				t.Errorf("large-PR note = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRule_TR5_TriageTableInStatusComment(t *testing.T) {
	t.Parallel()
	t.Run("every triage row shows finding, engine, tier, justification and outcome", func(t *testing.T) {
		t.Parallel()
		md := StatusComment(midLoop())
		for _, row := range []string{
			"| finding | engine | tier | justification | outcome | cycle |",
			"| [bugbot-2233029557](https://github.com/o/r/pull/7#discussion_r2233029557) | bugbot | 1 | The null check on cfg.Timeout prevents a panic on empty input. | fixed | 1 |",
			"| claude-1 | claude | 3 | cross-file: touches 3 files | escalated | 1 |",
		} {
			if !strings.Contains(md, row) {
				t.Errorf("missing %q in:\n%s", row, md)
			}
		}
	})
	t.Run("a Tier 2 finding awaiting approval says how to approve it", func(t *testing.T) {
		t.Parallel()
		md := StatusComment(midLoop())
		if !strings.Contains(md, "approve with `@review-loop approve bugbot-2233029601 [direction]`") {
			t.Errorf("no approval hint:\n%s", md)
		}
		if got := Report(midLoop()).Approvals; len(got) != 1 || got[0].ID != "bugbot-2233029601" {
			t.Errorf("JSON approvals = %v", got)
		}
	})
	t.Run("an approved finding not yet fixed is shown as approved", func(t *testing.T) {
		t.Parallel()
		in := midLoop()
		in.State.Approvals = []state.Approval{{FindingID: "bugbot-2233029601", By: "maint", Direction: "use <= instead", At: at(3)}}
		md := StatusComment(in)
		if !strings.Contains(md, "- bugbot-2233029601: approved by maint (direction: use &lt;= instead); the next fix cycle applies it") {
			t.Errorf("approval not shown:\n%s", md)
		}
		if strings.Contains(md, "approve with") {
			t.Errorf("an approved finding still asks for approval:\n%s", md)
		}
	})
	t.Run("an empty table says nothing was triaged", func(t *testing.T) {
		t.Parallel()
		in := midLoop()
		in.State.Triage = nil
		if md := StatusComment(in); !strings.Contains(md, "_No findings triaged yet._") || strings.Contains(md, "#### Approvals") {
			t.Errorf("unexpected triage section:\n%s", md)
		}
		if txt := StatusText(in); !strings.Contains(txt, "(no findings triaged yet)") {
			t.Error(txt)
		}
	})
}

func TestRule_E9_StaleThreadsCounted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stale int
		want  string
	}{
		{"three open stale threads are counted with the resolve-stale hint", 3, "**Stale threads:** 3 review threads"},
		{"one open stale thread is counted in the singular", 1, "**Stale threads:** 1 review thread (outdated"},
		{"no stale thread means no stale section", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := cleanHandBack()
			in.StaleThreads = tt.stale
			hb := HandBack(in)
			if tt.want == "" {
				if strings.Contains(hb, "Stale threads") {
					t.Errorf("unexpected stale section:\n%s", hb)
				}
				return
			}
			if !strings.Contains(hb, tt.want) || !strings.Contains(hb, "`@review-loop resolve-stale`") {
				t.Errorf("missing stale count or hint:\n%s", hb)
			}
			if Report(in).Stale != tt.stale {
				t.Error("JSON stale count")
			}
		})
	}
}

func TestRule_J5_NonBlockingItemsListedWithFollowUp(t *testing.T) {
	t.Parallel()
	hb := HandBack(cleanHandBack())
	for _, want := range []string{
		"- claude: Consider naming the retry constant (internal/x/retry.go:12) — proposed follow-up:",
		"- claude: Docs could mention the default — tracked in https://github.com/o/r/issues/42",
	} {
		if !strings.Contains(hb, want) {
			t.Errorf("missing %q in:\n%s", want, hb)
		}
	}
}

func TestRule_S6_StatusCommentNamesBothNumbers(t *testing.T) {
	in := midLoop()
	in.Plan.Engines[0].Stated = &loop.StatedCount{N: 2, Source: "check run \"Cursor Bugbot\": There are 2 total unresolved issues"}
	in.Plan.Engines[0].Counted = 1
	in.Plan.Engines[0].Note = "not proven: bugbot states 2 open finding(s), 1 counted (check run)"
	md := StatusComment(in)
	if !strings.Contains(md, "the engine states 2 open, 1 counted (S6: check run") {
		t.Errorf("status comment lacks both numbers:\n%s", md)
	}
	if !strings.Contains(StatusText(in), "the engine states 2 open, 1 counted") {
		t.Errorf("text report lacks both numbers")
	}
	b, err := JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	var r JSONReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if e := r.Engines[0]; e.StatedOpen == nil || *e.StatedOpen != 2 || e.Counted == nil || *e.Counted != 1 {
		t.Errorf("JSON report lacks the numbers: %+v", e)
	}
}
