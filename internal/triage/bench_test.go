package triage

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// busyFindings are n findings shaped like a busy PR's: three engines'
// comments, a third with a suggestion block, titles that match a
// codified pattern, a keyword bucket or nothing.
func busyFindings(n int) []loop.Finding {
	titles := []string{
		"Finding %d: the value is read before it is checked",
		"Possible nil pointer dereference on resp.Body (%d)",
		"Error returned by Close is ignored in handler %d",
		"Data race on the cache map in worker %d",
		"Consider renaming variable %d for clarity",
		"",
	}
	engines := []string{"bugbot", "copilot", "coderabbit"}
	fs := make([]loop.Finding, n)
	for i := range fs {
		body := fmt.Sprintf("**Finding %d**: the value is read before it is checked.", i)
		if i%3 == 0 {
			body += fmt.Sprintf("\n\n```suggestion\n\treturn %d\n```\n", i)
		}
		title := titles[i%len(titles)]
		if title != "" {
			title = fmt.Sprintf(title, i)
		}
		fs[i] = loop.Finding{ID: fmt.Sprintf("f-%d", i), Engine: engines[i%3], CommentID: int64(i), Path: fmt.Sprintf("calc/f%d.go", i/50),
			Line: 1 + i%20, Title: title, Body: body, Severity: loop.SeverityMedium}
	}
	return fs
}

// BenchmarkClassify triages ten times a busy PR's findings (1,500).
func BenchmarkClassify(b *testing.B) {
	fs := busyFindings(1500)
	in := Inputs{TestCommand: true, Catalogue: Builtin()}
	b.ReportAllocs()
	for b.Loop() {
		Classify(fs, in)
	}
}
