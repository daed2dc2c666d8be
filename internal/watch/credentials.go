package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// This file finds the user's token and keeps it to this process: GH_TOKEN,
// else what `gh auth token` prints. gh runs with a minimal environment
// (where it keeps its login, nothing else); the token is never put in a
// child process's environment or arguments: the cycle's commands get
// procenv's allow-list, and git gets it on a pipe (TB7).

// ghEnvKeys are the variables `gh auth token` may need to find its login:
// its config directory and the desktop keyring.
var ghEnvKeys = []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GH_CONFIG_DIR", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"}

// Token is the user's token for host ("" or github.com for github.com):
// GH_TOKEN, else `gh auth token`. source names where it came from.
func Token(ctx context.Context, getenv func(string) string, host string) (token, source string, err error) {
	if t := strings.TrimSpace(getenv("GH_TOKEN")); t != "" {
		return t, "GH_TOKEN", nil
	}
	path, err := lookPath("gh", getenv("PATH"))
	if err != nil {
		return "", "", errors.New("watch needs a token: set GH_TOKEN, or log in with `gh auth login` (gh was not found on PATH)")
	}
	args := []string{"auth", "token"}
	if host != "" && host != "github.com" {
		args = append(args, "--hostname", host)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{}
	for _, k := range ghEnvKeys {
		if v := getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("watch needs a token: set GH_TOKEN, or log in with `gh auth login` (`gh auth token` failed: %s)", firstLine(errOut.String(), err))
	}
	t := strings.TrimSpace(out.String())
	if t == "" || strings.ContainsAny(t, " \n\t") {
		return "", "", errors.New("watch needs a token: `gh auth token` printed none; set GH_TOKEN or run `gh auth login`")
	}
	return t, "gh auth token", nil
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if l, _, _ := strings.Cut(s, "\n"); l != "" {
		return l
	}
	return err.Error()
}

// lookPath finds an executable in the PATH the environment gives (the
// process's own may differ from the one the user's shell passed down).
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
