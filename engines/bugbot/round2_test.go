package bugbot

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func TestCapabilities_ST5_BugbotIsIncremental(t *testing.T) {
	if !New().Capabilities().Incremental {
		t.Fatal("Bugbot does not re-post still-present findings: it must declare Incremental (ST5)")
	}
	if v := New().Observe(obsAt("sha1"), engines.Env{}); !v.Incremental {
		t.Fatal("view does not carry the incremental policy")
	}
}

// The check-run output texts of testdata/engines/bugbot/08 (A and B).
func TestParseCheck_S6_realCheckOutputs(t *testing.T) {
	all := samples.Load(t, "bugbot")
	blocks := samples.Blocks(samples.Get(t, all, "08-").Text)
	if c := ParseCheck("Bugbot Review", blocks[0], ""); !c.Known || c.Total != 0 {
		t.Errorf("block A (no new issues found): %+v", c)
	}
	tests := []struct {
		text  string
		total int
		known bool
	}{
		{"Bugbot completed review - no issues found! ✅", 0, true},
		{"Bugbot completed review - no issues found. 1 previously reported issue remain unresolved.", 1, true},
		{"Bugbot completed review and found 2 potential issues.", 2, true},
		{"Final Result: Bugbot completed review and found 1 potential issue. 1 previously reported issue remain unresolved.", 2, true},
		{"There are 2 total unresolved issues (including 1 from previous review).", 2, true},
		{"**Result:** Bugbot run cancelled because of a new commit", 0, false},
		{"✅ ❌ Bugbot run failed (9s)\n\n**Result:** Bugbot failed to run", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		c := ParseCheck("Bugbot Review", tt.text, "")
		if c.Known != tt.known || c.Total != tt.total {
			t.Errorf("%q: %+v, want known %v total %d", tt.text, c, tt.known, tt.total)
		}
	}
}

func FuzzParseCheck(f *testing.F) {
	for _, s := range samples.Load(f, "bugbot") {
		if strings.HasPrefix(s.Name, "08-") || strings.HasPrefix(s.Name, "06-") {
			for _, b := range samples.Blocks(s.Text) {
				f.Add(b)
			}
			f.Add(s.Text)
		}
	}
	f.Add("There are 99999999999999999999 total unresolved issues (including 7 from previous review).")
	f.Fuzz(func(t *testing.T, s string) {
		c := ParseCheck(s, s, s)
		if c.Total < 0 || c.New < 0 || c.Previous < 0 || c.Total < c.New {
			t.Fatalf("%q: %+v", s, c)
		}
		if !c.Known && c.Total != 0 {
			t.Fatalf("unknown text stated a count: %+v", c)
		}
		_, _ = ParseUsageLimit(s)
	})
}

func TestObserve_S6_checkOutputIsTheStatedCount(t *testing.T) {
	o := obsAt("sha2")
	cr := check("COMPLETED", "NEUTRAL")
	cr.Title, cr.Summary = "Bugbot Review", "Final Result: Bugbot completed review - no new issues found. 1 previously reported issue remain unresolved."
	cr.Text = "There are 2 total unresolved issues (including 1 from previous review)."
	o.CheckRuns = []github.CheckRun{cr}
	o.Reviews = []github.Review{{DatabaseID: 20, Author: cursor(), CommitSHA: "sha2", Body: "✅ Bugbot reviewed your changes and found no new issues!", SubmittedAt: t0}}
	v := New().Observe(o, engines.Env{})
	if v.Material != loop.MaterialOK || v.Stated == nil || v.Stated.N != 2 || !strings.Contains(v.Stated.Source, "2 total unresolved issues") {
		t.Fatalf("stated %+v material %s", v.Stated, v.Material)
	}
}

func TestObserve_S7_neutralWithoutReviewOfTheHeadIsUnproven(t *testing.T) {
	o := obsAt("sha2")
	cr := check("COMPLETED", "NEUTRAL")
	cr.Summary = "**Result:** Bugbot run cancelled because of a new commit"
	o.CheckRuns = []github.CheckRun{cr}
	// A review of an earlier head does not prove this one was reviewed.
	o.Reviews = []github.Review{{DatabaseID: 10, Author: cursor(), CommitSHA: "sha1", Body: "✅ Bugbot reviewed your changes and found no new issues!", SubmittedAt: t0}}
	v := New().Observe(o, engines.Env{})
	if v.Material != loop.MaterialUnproven || !strings.Contains(v.MaterialNote, "no Bugbot review of the head") || !strings.Contains(v.MaterialNote, "cancelled") {
		t.Fatalf("material %s: %s", v.Material, v.MaterialNote)
	}
	if ok, _ := loop.IsClean(state.State{}, v, "sha2"); ok {
		t.Fatal("a neutral check without a review of the head read as clean")
	}
}

func TestObserve_T8_usageLimitCommentIsAQuota(t *testing.T) {
	all := samples.Load(t, "bugbot")
	body := samples.Blocks(samples.Get(t, all, "06-").Text)[0]
	o := obsAt("sha1")
	cr := check("COMPLETED", "NEUTRAL")
	cr.Title, cr.Summary = "Error", "Bugbot run failed"
	o.CheckRuns = []github.CheckRun{cr}
	at := t0.Add(3 * time.Minute)
	o.IssueComments = []github.IssueComment{{DatabaseID: 5, Author: cursor(), Body: body, CreatedAt: at}}
	v := New().Observe(o, engines.Env{})
	if v.Material != loop.MaterialQuota || v.Quota == nil || !v.Quota.At.Equal(at) || v.Quota.Wait != 0 ||
		!strings.Contains(v.Quota.Text, "Bugbot couldn't run - usage limit reached") || strings.Contains(v.Quota.Text, "<h3>") {
		t.Fatalf("quota %+v material %s", v.Quota, v.Material)
	}
	// A notice from before this run started is not this run's word.
	o.IssueComments[0].CreatedAt = t0.Add(-time.Minute)
	if v := New().Observe(o, engines.Env{}); v.Quota != nil || v.Material != loop.MaterialUnproven {
		t.Fatalf("old notice: quota %+v material %s", v.Quota, v.Material)
	}
}

func TestParseUsageLimit_freeTierNoticesAreNoQuota(t *testing.T) {
	all := samples.Load(t, "bugbot")
	for _, b := range samples.Blocks(samples.Get(t, all, "09-").Text) {
		if _, ok := ParseUsageLimit(b); ok {
			t.Errorf("free-tier notice read as a usage-limit stop: %.80q", b)
		}
	}
	if _, ok := ParseUsageLimit(samples.Blocks(samples.Get(t, all, "06-").Text)[0]); !ok {
		t.Error("the real usage-limit notice was not read")
	}
}

// The check output is written with the head review; a thread of that
// review resolved since (the loop's won't-fix reply) was counted in it.
func TestObserve_S6_threadsOfTheHeadReviewResolvedSinceAreNotOwed(t *testing.T) {
	o := obsAt("sha1")
	cr := check("COMPLETED", "NEUTRAL")
	cr.Summary = "Final Result: Bugbot completed review and found 2 potential issues."
	cr.Text = "There are 2 total unresolved issues (including 0 from previous review)."
	o.CheckRuns = []github.CheckRun{cr}
	o.Reviews = []github.Review{{DatabaseID: 10, Author: cursor(), CommitSHA: "sha1", Body: "Cursor Bugbot has reviewed your changes and found 2 potential issues.", SubmittedAt: t0}}
	open, resolved := finding(100, 10, "sha1", 5), finding(101, 10, "sha1", 9)
	resolved.NodeID, resolved.IsResolved = "T2", true
	o.Threads = []github.Thread{open, resolved}
	v := New().Observe(o, engines.Env{})
	if v.Stated == nil || v.Stated.N != 1 || !strings.Contains(v.Stated.Source, "resolved since") {
		t.Fatalf("stated %+v", v.Stated)
	}
}
