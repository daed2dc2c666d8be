package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/actionyml"
	"github.com/review-loop/review-loop/internal/config"
)

func TestHelp_TheInputsTableIsCurrentWithActionYML(t *testing.T) {
	t.Parallel()
	wd, _ := os.Getwd()
	inputs, err := actionyml.RepoInputs(wd)
	if err != nil {
		t.Fatal(err)
	}
	if got := actionyml.HelpText(inputs); got != inputsHelp {
		t.Fatal("internal/cli/help_inputs.txt is not current with action.yml: run `go generate ./internal/cli/`")
	}
}

func TestHelp_ListsEveryInputAndTheEnvironment(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"cycle", "--help"}} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errb})
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		text := out.String()
		for _, name := range config.InputNames() {
			if !strings.Contains(text, "\n  "+name+"\n") && !strings.Contains(text, "\n  "+name+" (") {
				t.Errorf("%v: input %s is not listed", args, name)
			}
		}
		for _, v := range []string{"GITHUB_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", "RUNNER_TEMP", "REVIEW_LOOP_DEBUG", "INPUT_<NAME>"} {
			if !strings.Contains(text, v) {
				t.Errorf("%v: environment variable %s is not listed", args, v)
			}
		}
	}
	var out bytes.Buffer
	Main(context.Background(), []string{"cycle", "--help"}, Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &out})
	if !strings.Contains(out.String(), "-dry-run") || !strings.Contains(out.String(), "-prepare") {
		t.Fatalf("cycle --help lists no flags:\n%s", out.String())
	}
}
