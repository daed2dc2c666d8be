package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestMain_usageAndVersion(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	env := Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errb, Version: "v1.2.3"}
	if code := Main(context.Background(), []string{"version"}, env); code != ExitOK || !strings.Contains(out.String(), "v1.2.3") {
		t.Errorf("version: %d %q", code, out.String())
	}
	if code := Main(context.Background(), []string{"frobnicate"}, env); code != ExitUsage {
		t.Errorf("unknown command exit %d, want %d", code, ExitUsage)
	}
	if code := Main(context.Background(), []string{"status"}, env); code != ExitUsage {
		t.Errorf("status without flags exit %d, want %d", code, ExitUsage)
	}
	if code := Main(context.Background(), []string{"demo"}, env); code != ExitError {
		t.Errorf("demo without a demo exit %d", code)
	}
}
