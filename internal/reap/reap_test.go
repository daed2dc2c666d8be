package reap

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

const helperEnv = "REAP_TEST_HELPER"

// TestMain lets the test binary act as review-loop: started with
// helperEnv=enable (or =off, the control), it runs a command that leaves
// detached processes behind, then reports which of them are still alive.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Getenv("REAP_TEST_PIDS")))
	}
	os.Exit(m.Run())
}

// leaver starts a poller in a new session, a double-forked one, and a
// plain background job, writes their pids and exits 0 at once.
const leaver = `
setsid sh -c 'while :; do sleep 0.01; done' >/dev/null 2>&1 </dev/null &
echo $! >> "$1"
( sh -c 'while :; do sleep 0.01; done' >/dev/null 2>&1 </dev/null & echo $! >> "$1" ) 
sleep 1000 >/dev/null 2>&1 </dev/null &
echo $! >> "$1"
exit 0
`

func helper(mode, pidFile string) int {
	if mode == "enable" {
		if err := Enable(); err != nil {
			fmt.Println("enable:", err)
			return 2
		}
	}
	cmd := exec.Command("sh", "-c", leaver, "leaver", pidFile)
	cmd.Env = os.Environ()
	if err := RunCommand(cmd); err != nil {
		fmt.Println("run:", err)
		return 2
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		fmt.Println("pids:", err)
		return 2
	}
	pids := strings.Fields(string(b))
	if len(pids) != 3 {
		fmt.Println("want 3 pids, got", pids)
		return 2
	}
	for _, p := range pids {
		// Signal 0 tests existence; a zombie would still be found, so a
		// reaped process is one kill(0) no longer reaches.
		var pid int
		fmt.Sscan(p, &pid)
		if syscall.Kill(pid, 0) == nil {
			fmt.Println("alive", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL) // the control leaves nothing behind
		}
	}
	if s, _ := Strays(); len(s) > 0 {
		fmt.Println("strays", s)
	}
	fmt.Println("done")
	return 0
}

func runHelper(t *testing.T, mode string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "REAP_TEST_PIDS="+filepath.Join(t.TempDir(), "pids"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	return string(out)
}

// TB8: a command that leaves a setsid poller, a double-forked process and
// a background job behind and exits 0: when RunCommand returns, all three are
// dead and reaped, and no stray is left. The control, without Enable,
// shows the same command's processes do survive it.
func TestRule_TB8_NothingOutlivesACommand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the child subreaper is Linux's")
	}
	t.Parallel()
	got := runHelper(t, "enable")
	if !strings.Contains(got, "done") || strings.Contains(got, "alive") || strings.Contains(got, "strays") {
		t.Fatalf("processes outlived the command:\n%s", got)
	}
	control := runHelper(t, "off")
	if strings.Count(control, "alive") != 3 {
		t.Fatalf("control: the command's processes should survive without the subreaper:\n%s", control)
	}
}

// TB11: a command runs with a temporary directory of its own, outside
// RUNNER_TEMP, removed after it; what it appends to the runner's
// file-command files, or a file it swaps for a symbolic link, is put back
// and reported.
func TestRule_TB11_CommandsGetTheirOwnTempAndCannotChangeFileCommands(t *testing.T) {
	runnerTemp := t.TempDir()
	fc := filepath.Join(runnerTemp, "_runner_file_commands")
	if err := os.Mkdir(fc, 0o755); err != nil {
		t.Fatal(err)
	}
	env, path := filepath.Join(fc, "set_env_1"), filepath.Join(fc, "add_path_1")
	for _, f := range []string{env, path} {
		if err := os.WriteFile(f, []byte("KEEP=1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	Protect([]string{env, path}, runnerTemp)
	t.Cleanup(func() { Protect(nil, "") })
	t.Setenv("TMPDIR", runnerTemp) // even when review-loop's own TMPDIR is RUNNER_TEMP
	seen := filepath.Join(t.TempDir(), "seen")
	script := `echo "NODE_OPTIONS=--require=/x/evil.js" >> "$1"; rm -f "$2"; ln -s "$3" "$2"; echo "$TMPDIR" > "$4"; touch "$TMPDIR/x"`
	cmd := exec.Command("sh", "-c", script, "sh", env, path, elsewhere, seen)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	err := RunCommand(cmd)
	var tamper *TamperError
	if !errors.As(err, &tamper) || len(tamper.Files) != 2 {
		t.Fatalf("RunCommand = %v, want a TamperError naming both files", err)
	}
	for _, f := range []string{env, path} {
		info, err := os.Lstat(f)
		if err != nil || !info.Mode().IsRegular() {
			t.Fatalf("%s is not a regular file again: %v", f, err)
		}
		if b, _ := os.ReadFile(f); string(b) != "KEEP=1\n" {
			t.Errorf("%s = %q, want it restored", f, b)
		}
	}
	if _, err := os.Stat(elsewhere); err == nil {
		t.Errorf("the restore wrote through the planted symbolic link")
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	tmp := strings.TrimSpace(string(b))
	if tmp == "" || within(tmp, runnerTemp) {
		t.Errorf("the command's TMPDIR %q is inside RUNNER_TEMP %s", tmp, runnerTemp)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("the command's temporary directory %s was not removed", tmp)
	}
}

// BenchmarkStrays is the cost of one look for strays, paid after every
// repository command and before every fetch and push once Enable is on:
// one read of /proc/<pid>/stat per process on the machine.
func BenchmarkStrays(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("/proc is Linux's")
	}
	n := 0
	for b.Loop() {
		s, err := strays(map[int]bool{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(s)
	}
	t, _ := table()
	b.ReportMetric(float64(len(t)), "procs")
	_ = n
}
