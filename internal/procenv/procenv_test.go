package procenv

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

const (
	sealChildEnv = "PROCENV_TEST_SEAL_CHILD"
	testSecret   = "ghp_procenv_secret_value_91"
)

// TestMain lets the test binary act as a sealed process: started with
// sealChildEnv, it seals, then reports its own initial environment (which
// the kernel shows in /proc/self/environ), what Getenv returns and whether
// it is dumpable.
func TestMain(m *testing.M) {
	if os.Getenv(sealChildEnv) == "1" {
		s, err := Seal()
		if err != nil {
			os.Stderr.WriteString("seal: " + err.Error() + "\n")
			os.Exit(2)
		}
		environ, err := os.ReadFile("/proc/self/environ")
		if err != nil {
			os.Stderr.WriteString("environ: " + err.Error() + "\n")
			os.Exit(2)
		}
		dumpable, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, 3 /* PR_GET_DUMPABLE */, 0, 0)
		os.Stdout.WriteString("getenv=" + s.Getenv("INPUT_GITHUB-TOKEN") + "\n")
		os.Stdout.WriteString("anthropic=" + s.Getenv("INPUT_ANTHROPIC-API-KEY") + "\n")
		os.Stdout.WriteString("plain=" + s.Getenv("PLAIN") + "\n")
		os.Stdout.WriteString("fdenv=" + os.Getenv(FDEnv) + "\n")
		if dumpable == 0 {
			os.Stdout.WriteString("dumpable=0\n")
		}
		os.Stdout.Write(bytes.ReplaceAll(environ, []byte{0}, []byte{'\n'}))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TB1: after Seal, the process's own initial environment (what any
// same-user process reads in /proc/<pid>/environ) holds no secret, while
// Getenv still serves the secret from memory.
func TestRule_TB1_SealLeavesNoSecretInTheInitialEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/environ is Linux's")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{sealChildEnv + "=1", "PATH=" + os.Getenv("PATH"), "PLAIN=visible",
		"INPUT_GITHUB-TOKEN=" + testSecret, "INPUT_ANTHROPIC-API-KEY=sk-" + testSecret}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sealed child: %v\n%s", err, stderr.String())
	}
	got := string(out)
	lines := strings.Split(got, "\n")
	if !slices.Contains(lines, "getenv="+testSecret) || !slices.Contains(lines, "anthropic=sk-"+testSecret) || !slices.Contains(lines, "plain=visible") {
		t.Errorf("Getenv lost a variable:\n%s", got)
	}
	if !slices.Contains(lines, "fdenv=") {
		t.Errorf("the pipe variable stayed set:\n%s", got)
	}
	_, environ, _ := strings.Cut(got, "fdenv=")
	if strings.Contains(environ, testSecret) {
		t.Errorf("/proc/self/environ still holds the secret after Seal:\n%s", environ)
	}
	if !strings.Contains(environ, "PLAIN=visible") {
		t.Errorf("the clean environment lost PLAIN:\n%s", environ)
	}
	if !slices.Contains(lines, "dumpable=0") {
		t.Errorf("the sealed process is still dumpable: a same-user child could read its memory")
	}
}

// TB1: no token, key or review-loop secret survives Child, and the
// build variables a test command needs do.
func TestRule_TB1_ChildEnvironmentIsAllowListed(t *testing.T) {
	base := []string{
		"PATH=/bin", "HOME=/h", "GOPATH=/go", "GOCACHE=/c", "GOFLAGS=-mod=mod", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/t", "CI=true",
		"GITHUB_WORKSPACE=/w", "REVIEW_LOOP_FINDINGS=/f.json",
		"INPUT_GITHUB-TOKEN=a", "INPUT_PUSH-TOKEN=b", "INPUT_TRIGGER-TOKEN=c", "INPUT_ANTHROPIC-API-KEY=d",
		"GITHUB_TOKEN=e", "GH_TOKEN=f", "ACTIONS_RUNTIME_TOKEN=g", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=h", "ANTHROPIC_API_KEY=i",
		"REVIEW_LOOP_TRIGGER_TOKEN=j", "GOPRIVATE_TOKEN=k", "MY_PAT=l", "AWS_SECRET_ACCESS_KEY=m", "NPM_TOKEN=n",
		"UNRELATED=o", "INPUT_ENGINES=copilot", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic x",
		"SSH_AUTH_SOCK=/agent", "GIT_ASKPASS=/askpass", FDEnv + "=3",
	}
	got := Child(base)
	want := []string{"PATH=/bin", "HOME=/h", "GOPATH=/go", "GOCACHE=/c", "GOFLAGS=-mod=mod", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/t", "CI=true",
		"GITHUB_WORKSPACE=/w", "REVIEW_LOOP_FINDINGS=/f.json"}
	if !slices.Equal(got, want) {
		t.Errorf("Child =\n%q\nwant\n%q", got, want)
	}
}

// TB11: a command never gets RUNNER_TEMP or the paths of the runner's
// file-command files.
func TestRule_TB11_ChildGetsNoRunnerTempOrFileCommands(t *testing.T) {
	base := []string{"PATH=/bin", "RUNNER_TEMP=/w/_temp", "GITHUB_ENV=/w/_temp/_runner_file_commands/set_env_1",
		"GITHUB_PATH=/w/_temp/_runner_file_commands/add_path_1", "GITHUB_OUTPUT=/w/_temp/_runner_file_commands/set_output_1",
		"GITHUB_STATE=/w/_temp/_runner_file_commands/save_state_1", "GITHUB_STEP_SUMMARY=/w/_temp/_runner_file_commands/step_summary_1"}
	if got := Child(base); !slices.Equal(got, []string{"PATH=/bin"}) {
		t.Errorf("Child = %q, want PATH alone", got)
	}
}
