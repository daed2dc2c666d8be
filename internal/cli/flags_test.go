package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Fail fast (C2): a bad flag is one line naming it and pointing at
// --help, not the whole help with the error buried in it; --help still
// prints the help.
func TestRule_C2_ABadFlagIsOneLineAndAHelpHint(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"cycle", "status"} {
		var out, errb bytes.Buffer
		env := Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errb}
		if code := Main(context.Background(), []string{cmd, "--dry-rnu"}, env); code != ExitUsage {
			t.Errorf("%s --dry-rnu: exit %d, want %d", cmd, code, ExitUsage)
		}
		got := strings.TrimRight(out.String()+errb.String(), "\n")
		if strings.Count(got, "\n") != 0 || !strings.Contains(got, "dry-rnu") || !strings.Contains(got, "review-loop "+cmd+" --help") {
			t.Errorf("%s --dry-rnu printed %d lines, want one naming the flag and `review-loop %s --help`:\n%s", cmd, strings.Count(got, "\n")+1, cmd, got)
		}
		out.Reset()
		errb.Reset()
		if code := Main(context.Background(), []string{cmd, "--help"}, env); code != ExitOK || !strings.Contains(out.String(), "USAGE\n  review-loop "+cmd) {
			t.Errorf("%s --help: exit %d, output %q", cmd, code, out.String()+errb.String())
		}
	}
}
