package fix

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// The example in docs/examples/example-fixer runs through the command
// provider: a finding on a line the file no longer has is outdated, the
// other is disagreed with its reply, and nothing is committed.
func TestExampleFixer_AnswersOutdatedAndDisagreedThroughTheCommandProvider(t *testing.T) {
	t.Parallel()
	_, here, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "example-fixer")
	build := exec.Command("go", "build", "-o", bin, "./docs/examples/example-fixer")
	build.Dir = filepath.Join(filepath.Dir(here), "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, out)
	}
	tr, cfg := setup(t)
	cfg.FixerCommand = []string{bin}
	fs := []loop.Finding{commandFinding("Name the constant."), {ID: "gemini-2", Engine: "gemini", Path: "internal/app/b.go", Line: 400, Title: "Gone"}}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: fs})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results[0].Outcome != OutcomeDisagreed || res.Results[1].Outcome != OutcomeOutdated || res.Commit || tr.Status(t) != "" {
		t.Fatalf("%+v", res)
	}
	if res.Results[0].Reply == "" || res.Results[1].Reply == "" {
		t.Fatalf("replies missing: %+v", res.Results)
	}
}
