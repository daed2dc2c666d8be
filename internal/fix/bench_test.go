package fix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/git/gittest"
	"github.com/review-loop/review-loop/internal/loop"
)

// BenchmarkApplySuggestions applies 200 suggestions across 50 files (4 per
// file) in one cycle, without a test-command, against a real repository;
// the checkout is restored between iterations outside the timer.
func BenchmarkApplySuggestions(b *testing.B) {
	files := map[string]string{}
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("\tv%d := %d", i, i))
	}
	content := "package p\n\nfunc f() {\n" + strings.Join(lines, "\n") + "\n}\n"
	for i := 0; i < 50; i++ {
		files[fmt.Sprintf("pkg%02d/f.go", i)] = content
	}
	tr := gittest.New(b, files)
	head := tr.Head(b)
	var findings []loop.Finding
	for i := 0; i < 50; i++ {
		for k := 0; k < 4; k++ {
			line := 4 + k*10
			findings = append(findings, loop.Finding{ID: fmt.Sprintf("f%d-%d", i, k), Engine: "copilot", Path: fmt.Sprintf("pkg%02d/f.go", i),
				Line: line, OriginalLine: line, OriginalCommit: head, Body: fmt.Sprintf("```suggestion\n\tv%d := base // %d\n```", line-3, k)})
		}
	}
	g := &git.Runner{Dir: tr.Dir}
	p := NewPipeline(Config{Dir: tr.Dir, Git: g, Env: os.Environ()})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := p.RunCycle(context.Background(), CycleInput{Findings: findings})
		if err != nil || len(res.Fixed()) != 200 {
			b.Fatalf("err %v, fixed %d", err, len(res.Fixed()))
		}
		b.StopTimer()
		for name, c := range files {
			if err := os.WriteFile(filepath.Join(tr.Dir, name), []byte(c), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
}
