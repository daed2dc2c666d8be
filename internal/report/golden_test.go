package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden/report")

// goldenDir holds the rendered reports, one file per case.
var goldenDir = filepath.Join("..", "..", "testdata", "golden", "report")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; run `go test ./internal/report -update` and review the diff.\n--- got ---\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	mustJSON := func(in Input) string {
		b, err := JSON(in)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name string
		file string
		got  func() string
	}{
		{"the status comment mid-loop waits for copilot", "status-mid-loop.md", func() string { return StatusComment(midLoop()) }},
		{"the status comment at a clean hand-back", "status-clean.md", func() string { return StatusComment(cleanHandBack()) }},
		{"the status comment shows asymmetric clearance with one engine hung", "status-asymmetric-hung.md", func() string { return StatusComment(asymmetricHung()) }},
		{"the hand-back after no progress", "handback-no-progress.md", func() string { return HandBack(noProgress()) }},
		{"the Copilot-only hand-back at max-iterations", "handback-copilot-max-iterations.md", func() string { return HandBack(copilotMaxIterations()) }},
		{"the job summary of an asymmetric hand-back", "summary-asymmetric-hung.md", func() string { return JobSummary(asymmetricHung()) }},
		{"the JSON report mid-loop", "report-mid-loop.json", func() string { return mustJSON(midLoop()) }},
		{"the JSON report of the status command", "report-status.json", func() string { return mustJSON(statusOnly()) }},
		{"the status text mid-loop", "status-mid-loop.txt", func() string { return StatusText(midLoop()) }},
		{"the status text of the status command without a plan", "status-saved-state.txt", func() string { return StatusText(statusOnly()) }},
		{"the status text after no progress", "status-no-progress.txt", func() string { return StatusText(noProgress()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			golden(t, tt.file, tt.got())
		})
	}
}
