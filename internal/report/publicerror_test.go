package report

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/fix"
)

// SC5: a failed command's output never reaches the public status comment:
// each command failure in the error keeps its command and exit status,
// its output is cut, and the run's link says where the output is.
func TestRule_SC5_aPublicErrorKeepsTheCommandNotItsOutput(t *testing.T) {
	t.Parallel()
	exit := exec.Command("sh", "-c", "exit 3").Run()
	if exit == nil {
		t.Fatal("sh -c 'exit 3' did not fail")
	}
	setup := &fix.ProcessError{What: "setup-command", Argv: []string{"make", "deps"}, Output: "token=leaked-secret-SC5\nmore output", Err: exit}
	tests := &fix.ProcessError{What: "test-command", Argv: []string{"go", "test"}, Output: "FAIL other-secret-SC5", Err: exit}
	const run = "https://github.com/octo/app/actions/runs/77"
	for _, tc := range []struct {
		name string
		err  error
		url  string
		want []string
	}{
		{"one failure", setup, run, []string{`setup-command "make deps": exit status 3`, "; output in the job log: " + run}},
		{"a wrapped failure", fmt.Errorf("fixing: %w", setup), run, []string{`fixing: setup-command "make deps": exit status 3; output in the job log: ` + run}},
		{"two joined failures", errors.Join(setup, fmt.Errorf("after: %w", tests)), run, []string{`setup-command "make deps": exit status 3`, `after: test-command "go test": exit status 3`}},
		{"no run link known", setup, "", []string{`setup-command "make deps": exit status 3; output in the job log`}},
	} {
		got := PublicError(tc.err, tc.url)
		for _, secret := range []string{"leaked-secret-SC5", "more output", "other-secret-SC5"} {
			if strings.Contains(got, secret) {
				t.Errorf("%s: the public error %q holds the output %q", tc.name, got, secret)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the public error %q lacks %q", tc.name, got, w)
			}
		}
		if tc.url == "" && strings.Contains(got, "http") {
			t.Errorf("%s: %q links a run nobody named", tc.name, got)
		}
	}
	// An error with no command in it is public as it is.
	plain := errors.New("pushing: the branch moved")
	if got := PublicError(plain, run); got != plain.Error() {
		t.Errorf("PublicError(%q) = %q, want it unchanged", plain, got)
	}
}
