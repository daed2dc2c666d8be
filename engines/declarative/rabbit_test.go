package declarative

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// block is the i-th fenced block of a real sample.
func block(t testing.TB, engine, prefix string, i int) string {
	t.Helper()
	bs := samples.Blocks(samples.Get(t, samples.Load(t, engine), prefix).Text)
	if i >= len(bs) {
		t.Fatalf("%s %s: %d blocks", engine, prefix, len(bs))
	}
	return bs[i]
}

// headReview puts body as CodeRabbit's review of the head, with a
// completed check run and no thread.
func headReview(body string) *github.Observation {
	o := obsAt("sha2")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "COMPLETED", Conclusion: "SUCCESS", Title: "Review completed", CompletedAt: t0}}
	o.Reviews = []github.Review{{DatabaseID: 77, Author: rabbit(), CommitSHA: "sha2", SubmittedAt: t0, Body: body}}
	return o
}

// ST4: the body sections are read by their markers from the real bodies,
// both layouts (08-… Dec 2025 per-file groups inside a CAUTION block,
// 02-… severity groups, 10-… 2026 bold heading with item summaries).
func TestRule_ST4_coderabbitBodySectionsFromRealSamples(t *testing.T) {
	c := builtin(t, "coderabbit")
	type want struct {
		heading  string
		declared int
		items    int
	}
	tests := []struct {
		name   string
		body   string
		want   []want
		first  BodyItem
		ofWant int
	}{
		{"08 outside-diff, duplicates, nitpicks, praise", block(t, "coderabbit", "08-", 0),
			[]want{{"Outside diff range comments", 1, 1}, {"Duplicate comments", 3, 3}, {"Nitpick comments", 7, 7}, {"Additional comments", 24, 4}},
			BodyItem{Path: "src/exstruct/io/__init__.py", StartLine: 74, Line: 82, Title: "Return `RangeBounds` directly instead of converting to tuple."}, 0},
		{"02 severity group, path with its range", block(t, "coderabbit", "02-", 1),
			[]want{{"Major comments", 22, 2}},
			BodyItem{Path: "context/feature-stress-test/README.md", StartLine: 184, Line: 188, Title: "Load all required project context before starting the workflow."}, 0},
		{"10 D 2026 bold heading and item summary", block(t, "coderabbit", "10-", 2),
			[]want{{"Outside diff range comments", 1, 1}},
			BodyItem{Path: "src/system/history/sync/apply.rs", StartLine: 295, Line: 299, Title: "Gate blanket-resolution guidance on resolvable conflicts."}, 0},
		{"10 B no section", block(t, "coderabbit", "10-", 1), nil, BodyItem{}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs := ParseBodySections(tt.body, c.def.BodySections)
			if len(secs) != len(tt.want) {
				t.Fatalf("%d sections: %+v", len(secs), secs)
			}
			for i, w := range tt.want {
				if s := secs[i]; s.Def.Heading != w.heading || s.Declared != w.declared || len(s.Items) != w.items {
					t.Errorf("section %d: %s (%d) with %d items, want %+v", i, s.Def.Heading, s.Declared, len(s.Items), w)
				}
			}
			if tt.ofWant < 0 {
				return
			}
			got := secs[tt.ofWant].Items[0]
			got.Text = ""
			if got != tt.first {
				t.Errorf("first item %+v, want %+v", got, tt.first)
			}
		})
	}
}

// S6 and item 5 of issue 11: "Actionable comments posted: 0" above an
// outside-diff finding and seven nitpicks (08-…) is eight findings, with
// no thread, each of the head review, stated as eight; the three
// "Previous review concern addressed." duplicates and the praise are none.
func TestRule_S6_coderabbitBodyFindingsAreFindingsAndStated(t *testing.T) {
	c := builtin(t, "coderabbit")
	o := headReview(block(t, "coderabbit", "08-", 0))
	v := c.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || !v.Incremental || !c.Capabilities().Incremental {
		t.Fatalf("%+v", v)
	}
	if len(v.Findings) != 8 {
		t.Fatalf("%d findings, want 8 (1 outside diff + 7 nitpicks)", len(v.Findings))
	}
	f := v.Findings[0]
	if f.ThreadID != "" || f.CommentID != 0 || f.ReviewID != 77 || f.ReviewSHA != "sha2" || f.Path != "src/exstruct/io/__init__.py" || f.StartLine != 74 || f.Line != 82 || f.Engine != "coderabbit" || !strings.HasPrefix(f.ID, "coderabbit-77-") {
		t.Fatalf("%+v", f)
	}
	nit := v.Findings[1]
	if nit.Severity != loop.SeverityLow || nit.Category != "🧹 Nitpick" || nit.Title != "Consider renaming publicly exported functions to remove underscore prefix." {
		t.Fatalf("nitpick %+v", nit)
	}
	if v.Stated == nil || v.Stated.N != 8 || !strings.Contains(v.Stated.Source, "Nitpick comments (7)") || !strings.Contains(v.Stated.Source, "less 3 confirmation") {
		t.Fatalf("stated %+v", v.Stated)
	}
	ids := map[string]bool{}
	for _, f := range v.Findings {
		if ids[f.ID] {
			t.Fatalf("duplicate id %s", f.ID)
		}
		ids[f.ID] = true
	}
	// Re-reading the same review gives the same ids.
	for i, f := range c.Observe(headReview(block(t, "coderabbit", "08-", 0)), engines.Env{}).Findings {
		if f.ID != v.Findings[i].ID {
			t.Fatalf("id %s changed to %s on a second reading", v.Findings[i].ID, f.ID)
		}
	}
}

// S6: a body that declares more than can be read (02-… is cut after two
// of its 22 Major comments) states more than is counted.
func TestRule_S6_coderabbitStatesMoreThanReadableIsStatedInFull(t *testing.T) {
	c := builtin(t, "coderabbit")
	v := c.Observe(headReview(block(t, "coderabbit", "02-", 1)), engines.Env{})
	if len(v.Findings) != 2 || v.Findings[0].Severity != loop.SeverityHigh || v.Findings[0].Key != "ffc4aa8ff188760fa24a181c" {
		t.Fatalf("%+v", v.Findings)
	}
	if v.Stated == nil || v.Stated.N != 24 {
		t.Fatalf("stated %+v, want 2 actionable + 22 major", v.Stated)
	}
	// 10-… D has no "Actionable comments posted" line; its section counts.
	v = c.Observe(headReview(block(t, "coderabbit", "10-", 2)), engines.Env{})
	if v.Stated == nil || v.Stated.N != 1 || len(v.Findings) != 1 || v.Findings[0].Severity != loop.SeverityMedium {
		t.Fatalf("%+v %+v", v.Stated, v.Findings)
	}
}

// S6: a duplicate that names an open thread of CodeRabbit is that thread,
// not a second finding; resolved threads of the head review leave the
// actionable count.
func TestRule_S6_coderabbitDuplicateOfAnOpenThreadCountsOnce(t *testing.T) {
	c := builtin(t, "coderabbit")
	body := "**Actionable comments posted: 2**\n\n<details>\n<summary>♻️ Duplicate comments (2)</summary><blockquote>\n\n<details>\n<summary>x.go (2)</summary><blockquote>\n\n`3-4`: **Still divides by zero.**\n\nSame as before.\n\n---\n\n`9-9`: **Still leaks the file.**\n\nNot fixed.\n\n</blockquote></details>\n\n</blockquote></details>"
	o := headReview(body)
	o.Threads = []github.Thread{thread(rabbit(), 10, 77, "sha2", 4, "**Divides by zero.**"), thread(rabbit(), 11, 77, "sha2", 30, "**Other.**")}
	o.Threads[1].IsResolved = true
	v := c.Observe(o, engines.Env{})
	var body1 []loop.Finding
	for _, f := range v.Findings {
		if f.ThreadID == "" {
			body1 = append(body1, f)
		}
	}
	if len(body1) != 1 || body1[0].Title != "Still leaks the file." || body1[0].Line != 9 {
		t.Fatalf("%+v", body1)
	}
	// 2 actionable less 1 resolved, + 2 duplicates less 1 open thread.
	if v.Stated == nil || v.Stated.N != 2 {
		t.Fatalf("%+v", v.Stated)
	}
}

// S7: "Review skipped" (06-…, with a success status) and Gemini's
// unsupported-files note (07-…) are no review of the head: not proven,
// with the engine's reason. "Review failed" above a walkthrough (09-…)
// is an error with its reason.
func TestRule_S7_skipAndFailureNoticesAreNotProven(t *testing.T) {
	c, g := builtin(t, "coderabbit"), builtin(t, "gemini")
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "COMPLETED", Conclusion: "SUCCESS", Title: "Review skipped: automatic reviews are disabled"}}
	o.IssueComments = []github.IssueComment{{DatabaseID: 7, Author: rabbit(), Body: block(t, "coderabbit", "06-", 0), UpdatedAt: t0}}
	v := c.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialUnproven || !strings.Contains(v.MaterialNote, "Review skipped: Auto reviews are disabled") || v.VerdictSetProven {
		t.Fatalf("%+v", v)
	}
	o.IssueComments = nil
	if v := c.Observe(o, engines.Env{}); v.Material != loop.MaterialUnproven {
		t.Fatalf("the check run title alone: %+v", v)
	}
	o.CheckRuns[0].Title = "Review completed"
	o.IssueComments = []github.IssueComment{{DatabaseID: 7, Author: rabbit(), Body: block(t, "coderabbit", "09-", 0), UpdatedAt: t0}}
	if v := c.Observe(o, engines.Env{}); v.Material != loop.MaterialErrored || !strings.Contains(v.MaterialNote, "Failed to post review comments") {
		t.Fatalf("%+v", v)
	}
	gem := github.Actor{Login: "gemini-code-assist", IsBot: true}
	o = obsAt("sha1")
	o.IssueComments = []github.IssueComment{{DatabaseID: 8, Author: gem, Body: block(t, "gemini", "07-", 0), UpdatedAt: t0}}
	if v := g.Observe(o, engines.Env{}); v.Signal != loop.SignalDone || v.Material != loop.MaterialUnproven || !strings.Contains(v.MaterialNote, "file types") {
		t.Fatalf("%+v", v)
	}
}

// T8: the stated waits of the real quota texts, the notice's own words,
// and the rule that only a notice newer than the engine's latest review
// counts. "Included review availability … N remain" is not a quota.
func TestRule_T8_quotaNoticesFromRealSamples(t *testing.T) {
	c, g := builtin(t, "coderabbit"), builtin(t, "gemini")
	tests := []struct {
		name string
		e    *Engine
		body string
		wait time.Duration
		text string
	}{
		{"04 A rate limit exceeded", c, block(t, "coderabbit", "04-", 0), 55*time.Minute + 34*time.Second, "Please wait **55 minutes and 34 seconds**"},
		{"04 B review limit reached", c, block(t, "coderabbit", "04-", 1), 37 * time.Minute, "Review limit reached"},
		{"07 spending cap", c, block(t, "coderabbit", "07-", 0), 41 * time.Minute, "Next included review available in 41 minutes"},
		{"your next review", c, "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Your next review will be available in 22 minutes.", 22 * time.Minute, "Rate limit exceeded"},
		{"gemini 05 daily quota", g, block(t, "gemini", "05-", 3), 24 * time.Hour, "You have reached your daily quota limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.e.classify(tt.body, t0)
			if n.kind != noticeQuota || n.wait != tt.wait || !strings.Contains(n.text, tt.text) {
				t.Fatalf("kind %d wait %s text %q", n.kind, n.wait, n.text)
			}
		})
	}
	// Walkthroughs, paused reviews, "Included review availability … N
	// remain" and the command acknowledgement are no notices.
	for _, b := range []struct {
		prefix string
		i      int
	}{{"10-", 0}, {"10-", 1}, {"10-", 2}, {"03-", 0}, {"03-", 1}, {"02-", 0}, {"02-", 1}, {"04-", 2}, {"08-", 0}} {
		if n := c.classify(block(t, "coderabbit", b.prefix, b.i), t0); n.kind != noticeNone {
			t.Errorf("%s block %d read as notice %d: %q", b.prefix, b.i, n.kind, n.text)
		}
	}
	gem := github.Actor{Login: "gemini-code-assist", IsBot: true}
	o := obsAt("sha2")
	o.Reviews = []github.Review{{DatabaseID: 1, Author: gem, CommitSHA: "sha1", SubmittedAt: t0}}
	o.IssueComments = []github.IssueComment{{DatabaseID: 9, Author: gem, Body: block(t, "gemini", "05-", 3), UpdatedAt: t0.Add(time.Minute)}}
	v := g.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialQuota || v.Quota == nil || v.Quota.Wait != 24*time.Hour || !v.Quota.At.Equal(t0.Add(time.Minute)) || !strings.Contains(v.MaterialNote, "daily quota") {
		t.Fatalf("%+v", v)
	}
	// A newer review of the head: the old notice no longer counts.
	o.Reviews = append(o.Reviews, github.Review{DatabaseID: 2, Author: gem, CommitSHA: "sha2", SubmittedAt: t0.Add(time.Hour)})
	if v := g.Observe(o, engines.Env{}); v.Material != loop.MaterialOK || v.Quota != nil {
		t.Fatalf("%+v", v)
	}
}

// T1, issue 11 item 6: Gemini ignores `/gemini review` from
// github-actions[bot] (googleworkspace/cli#384): it is posted only with
// the user trigger token, and without one the view says it cannot be
// triggered (it does not review pushes either).
func TestRule_T1_geminiNeedsTheUserTriggerToken(t *testing.T) {
	g := builtin(t, "gemini")
	if g.Capabilities().AcceptsBotTrigger {
		t.Fatal("gemini accepts bot triggers")
	}
	v := g.Observe(obsAt("s"), engines.Env{})
	if v.TriggerAvailable || !strings.Contains(v.TriggerNote, "cannot be triggered") {
		t.Fatalf("%+v", v)
	}
	if v := g.Observe(obsAt("s"), engines.Env{HasTriggerToken: true}); !v.TriggerAvailable {
		t.Fatalf("%+v", v)
	}
}

// Every real CodeRabbit and Gemini text, read as the head review body and
// as an issue comment, is read without panic, and one that carries
// findings, a quota, a skip or a failure never reads as a clean head.
func TestRealSamplesNeverCleanWhenTheyCarrySomething(t *testing.T) {
	carries := map[string]map[string]bool{
		// sample prefix → block indexes that carry findings/quota/skip/failure
		"coderabbit": {"02-/1": true, "04-/0": true, "04-/1": true, "04-/3": true, "06-/0": true, "06-/1": true, "07-/0": true, "08-/0": true, "09-/0": true, "10-/1": true, "10-/2": true},
		"gemini":     {"04-/1": true, "05-/3": true, "07-/0": true},
	}
	for _, name := range []string{"coderabbit", "gemini"} {
		e := builtin(t, name)
		author := rabbit()
		if name == "gemini" {
			author = github.Actor{Login: "gemini-code-assist", IsBot: true}
		}
		for _, s := range samples.Load(t, name) {
			for i, b := range samples.Blocks(s.Text) {
				key := s.Name[:3] + "/" + string(rune('0'+i))
				asReview := obsAt("sha2")
				asReview.Reviews = []github.Review{{DatabaseID: 5, Author: author, CommitSHA: "sha2", SubmittedAt: t0, Body: b}}
				asComment := obsAt("sha2")
				asComment.IssueComments = []github.IssueComment{{DatabaseID: 6, Author: author, Body: b, UpdatedAt: t0}}
				if name == "coderabbit" {
					for _, o := range []*github.Observation{asReview, asComment} {
						o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "COMPLETED", Conclusion: "SUCCESS", Title: "Review completed"}}
					}
				}
				if !carries[name][key] {
					continue
				}
				vr, vc := e.Observe(asReview, engines.Env{}), e.Observe(asComment, engines.Env{})
				readsClean := func(v loop.EngineView) bool {
					return v.Material == loop.MaterialOK && len(v.Findings) == 0 && (v.Stated == nil || v.Stated.N == 0)
				}
				// A body is one of the two: a review with findings or a notice.
				if readsClean(vr) && readsClean(vc) {
					t.Errorf("%s %s: reads clean both as a review (%+v) and as a comment (%+v)", name, key, vr, vc)
				}
			}
		}
	}
}

func FuzzParseBodySections(f *testing.F) {
	for _, name := range []string{"coderabbit", "gemini"} {
		for _, s := range samples.Load(f, name) {
			for _, b := range samples.Blocks(s.Text) {
				f.Add(b)
			}
		}
	}
	f.Add("<details>\n<summary>🧹 Nitpick comments (99999999999999999999)</summary>\n`1-`: **x**")
	f.Add("> **⚠️ Outside diff range comments (1)**\n> <details>\n> <summary><em>x</em> · t · <code>a:9-1</code></summary>")
	c := builtin(f, "coderabbit")
	f.Fuzz(func(t *testing.T, body string) {
		for _, s := range ParseBodySections(body, c.def.BodySections) {
			if s.Declared < 0 {
				t.Fatalf("declared %d", s.Declared)
			}
			for _, it := range s.Items {
				if it.StartLine != 0 && it.StartLine > it.Line || it.Line < 0 {
					t.Fatalf("%+v", it)
				}
			}
		}
		o := headReview(body)
		v := c.Observe(o, engines.Env{})
		if v.Stated != nil && v.Stated.N < 0 {
			t.Fatalf("stated %d", v.Stated.N)
		}
	})
}

func FuzzQuotaNotice(f *testing.F) {
	for _, p := range []struct{ engine, prefix string }{{"coderabbit", "04-"}, {"coderabbit", "07-"}, {"coderabbit", "10-"}, {"gemini", "05-"}, {"gemini", "07-"}} {
		for _, b := range samples.Blocks(samples.Get(f, samples.Load(f, p.engine), p.prefix).Text) {
			f.Add(b)
		}
	}
	f.Add("## Rate limit exceeded\nPlease wait **99999999 hours and 5 minutes**")
	f.Add("You have reached your daily quota limit. Please wait up to 0 hours")
	c, g := builtin(f, "coderabbit"), builtin(f, "gemini")
	f.Fuzz(func(t *testing.T, body string) {
		if d, ok := ParseWait(body); ok && (d <= 0 || d > 7*24*time.Hour) {
			t.Fatalf("wait %s", d)
		}
		for _, e := range []*Engine{c, g} {
			n := e.classify(body, t0)
			if n.wait < 0 || n.wait > 7*24*time.Hour || (n.kind == noticeNone) != (n.phrase == "") {
				t.Fatalf("%+v", n)
			}
		}
	})
}

func TestParseDefinitions_bodySectionsAndNoticeFieldsAreValidated(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"a section kind", "engines:\n  - name: a\n    author: {id: 1}\n    body_sections: [{heading: Nits, kind: nit}]\n", "engines[0].body_sections[0].kind:"},
		{"a section heading", "engines:\n  - name: a\n    author: {id: 1}\n    body_sections: [{kind: finding}]\n", "engines[0].body_sections[0].heading:"},
		{"a section severity", "engines:\n  - name: a\n    author: {id: 1}\n    body_sections: [{heading: N, kind: finding, severity: huge}]\n", "engines[0].body_sections[0].severity:"},
		{"a wait without a group", "engines:\n  - name: a\n    author: {id: 1}\n    quota_waits: ['wait \\d+']\n", "engines[0].quota_waits[0]:"},
		{"an empty quota phrase", "engines:\n  - name: a\n    author: {id: 1}\n    quota_phrases: ['']\n", "engines[0].quota_phrases[0]:"},
		{"an empty unproven phrase", "engines:\n  - name: a\n    author: {id: 1}\n    unproven_phrases: [' ']\n", "engines[0].unproven_phrases[0]:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDefinitions([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// ST4: a body section that announces comments under a heading the
// definition does not know is not read, and its count is stated in full:
// never clean until the definition learns it.
func TestRule_ST4_unknownCommentSectionIsStatedNotIgnored(t *testing.T) {
	c := builtin(t, "coderabbit")
	body := "**Actionable comments posted: 0**\n\n<details>\n<summary>🛠️ Refactor suggestion comments (2)</summary><blockquote>\n\n<details>\n<summary>x.go (2)</summary><blockquote>\n\n`3-4`: **One.**\n\n</blockquote></details>\n\n</blockquote></details>\n\n<details>\n<summary>📒 Files selected for processing (20)</summary>\n\n</details>"
	v := c.Observe(headReview(body), engines.Env{})
	if len(v.Findings) != 0 || v.Stated == nil || v.Stated.N != 2 || !strings.Contains(v.Stated.Source, "a section not read") {
		t.Fatalf("findings %+v stated %+v", v.Findings, v.Stated)
	}
}

// A duplicate is a confirmation only when its title says the concern was
// dealt with, as whole words and without a negation; otherwise it counts.
func TestRule_S6_duplicateConfirmationsNeedAPlainConfirmation(t *testing.T) {
	phrases := []string{"concern addressed", "addressed", "resolved", "lgtm"}
	for title, want := range map[string]bool{
		"Previous review concern addressed.":       true,
		"LGTM! Coordinate conversion is correct.":  true,
		"Previous concern not addressed.":          false,
		"Unresolved race in the cache.":            false,
		"Still divides by zero.":                   false,
		"The resolved path is never cleaned up.":   false,
		"Error path remains unaddressed.":          false,
		"Consider resolving the import order nit.": false,
	} {
		if got := confirms(title, phrases); got != want {
			t.Errorf("%q: confirmation %v, want %v", title, got, want)
		}
	}
}
