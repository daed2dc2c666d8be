package action

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// countGit puts a git on PATH that logs each of its invocations before it
// runs the real one, and returns a function reading review-loop's own
// invocations so far: those with the hardening flags every review-loop git
// carries first (the fake GitHub's git has none). Not parallel: PATH is the
// process's.
func countGit(t *testing.T) func() [][]string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the counting git is a shell script")
	}
	real, err := lookGit()
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	// One line per invocation: the arguments separated by NUL-free tabs.
	script := "#!/bin/sh\n{ for a in \"$@\"; do printf '%s\\t' \"$a\"; done; printf '\\n'; } >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() [][]string {
		b, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var own [][]string
		for _, line := range strings.Split(string(b), "\n") {
			args := strings.Split(strings.TrimSuffix(line, "\t"), "\t")
			if len(args) == 0 || args[0] != "--literal-pathspecs" {
				continue
			}
			// Drop the hardening flags: the rest is what review-loop asked.
			i := slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") })
			own = append(own, args[i:])
		}
		return own
	}
}

func lookGit() (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, "git")
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// C1: one fix cycle (a Copilot suggestion applied, its targeted test run,
// one commit pushed) runs a bounded number of git processes. Within one
// cycle the checkout's git directory, HEAD and the repository's config
// change only by a write review-loop makes or a command it runs, so each is
// read once between writes: the cycle used to ask `rev-parse
// --git-common-dir` 4 times, HEAD 4 times and list the config 3 times (29
// git processes in all; 25 now).
func TestRule_C1_AFixCycleRunsABoundedNumberOfGitProcesses(t *testing.T) {
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(3 * time.Minute)
	review := w.copilotReview(t, w.fake.HeadSHA("octo", "app", 1), "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```")
	own := countGit(t)
	res, err := w.cycle("pull_request_review", review, in)
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if res.PRs[0].Pushed == "" {
		t.Fatalf("nothing pushed; plan %+v\n%s", res.PRs[0].Plan, w.out.String())
	}
	calls := own()
	var lines []string
	count := map[string]int{}
	for _, c := range calls {
		lines = append(lines, strings.Join(c, " "))
		count[strings.Join(c[:min(len(c), 2)], " ")]++
	}
	all := strings.Join(lines, "\n  ")
	const bound = 25
	if len(calls) > bound {
		t.Errorf("the fix cycle ran %d git processes, want at most %d:\n  %s", len(calls), bound, all)
	}
	// HEAD is read before the fixes, again before the commit (a
	// command may have moved it) and once for the commit's SHA; the git
	// directory and the config once before the fixes and once before
	// the push (a command may have changed them).
	for q, most := range map[string]int{"rev-parse --verify": 3, "rev-parse --git-common-dir": 2, "config --file": 2} {
		if count[q] > most {
			t.Errorf("the fix cycle ran `git %s` %d times, want at most %d:\n  %s", q, count[q], most, all)
		}
	}
	t.Logf("%d git processes:\n  %s", len(calls), all)
}
