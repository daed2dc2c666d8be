package action_test

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// seedThreads gives the PR n review threads from three engines on the head.
func seedThreads(b *testing.B, e *e2e, n int) {
	b.Helper()
	authors := []struct{ review, comment, body string }{
		{"cursor", "cursor", "### Possible nil dereference\n\n**Medium Severity**\n\n<!-- DESCRIPTION START -->x<!-- DESCRIPTION END -->\n<!-- BUGBOT_BUG_ID: %d -->"},
		{"copilot-pull-request-reviewer", "Copilot", "Consider checking the error %d."},
		{"coderabbitai", "coderabbitai", "_⚠️ Potential issue_ | _🟠 Major_\n\n**Finding %d**\n\n<!-- cr-comment:v1:%x -->"},
	}
	for i, a := range authors {
		rid, err := e.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: a.review, Body: "review", CommitSHA: e.head})
		if err != nil {
			b.Fatal(err)
		}
		for j := i; j < n; j += len(authors) {
			body := fmt.Sprintf(a.body, j)
			if a.comment == "coderabbitai" {
				body = fmt.Sprintf(a.body, j, j)
			}
			if _, _, err := e.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: a.comment, ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: e.head, Body: body}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBinaryCycle_1000Threads runs the built binary for one cycle on a
// PR with 1,000 review threads from three engines, reporting API requests
// and the process's peak memory (max RSS).
func BenchmarkBinaryCycle_1000Threads(b *testing.B) {
	e := newE2E(b)
	seedThreads(b, e, 1000)
	// The first cycle starts the loop; measure the cycles after it.
	e.run("workflow_dispatch", dispatch("1"), map[string]string{"engines": "bugbot,copilot,coderabbit", "dry-run": "true"})
	var maxRSS int64
	e.fake.ResetRequests()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := e.run("workflow_dispatch", dispatch("1"), map[string]string{"engines": "bugbot,copilot,coderabbit", "dry-run": "true"})
		if r.code != 0 {
			b.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if r.maxRSS > maxRSS {
			maxRSS = r.maxRSS
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(e.fake.Requests()))/float64(b.N), "requests/op")
	b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MB")
}

// BenchmarkBinaryVersion is the binary's start-up time.
func BenchmarkBinaryVersion(b *testing.B) {
	bin := binary(b)
	st, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "binary-MB")
}

func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
