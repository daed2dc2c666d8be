package scenario

import (
	"context"
	"log/slog"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/cli"
)

// The demo is read by someone who has not learnt the rule ids: each why
// is a sentence that ends with the rules it cites, each test line says
// whether the test passed, and the counts it ends with agree with the
// cycles it showed.

// whyLine is a why in words, then its rules: "   why: Waiting for … (W1(d), T4)."
var whyLine = regexp.MustCompile(`^   why: [A-Z][^()]*(?:\([^()]*\)[^()]*)*\((?:[A-Z]{1,2}[0-9]{1,2}(?:\([a-z]\))?)(?:, [A-Z]{1,2}[0-9]{1,2}(?:\([a-z]\))?)*\)\.$`)

func TestDemo_WhyIsASentenceThatEndsWithItsRules(t *testing.T) {
	t.Parallel()
	n := 0
	for _, l := range strings.Split(sharedDemo(t).progress(), "\n") {
		if !strings.HasPrefix(l, "   why: ") {
			continue
		}
		n++
		if !whyLine.MatchString(l) || regexp.MustCompile(`^   why: [A-Z]{1,2}[0-9]`).MatchString(l) {
			t.Errorf("why line %q: want words first, then the rules it cites in parentheses, then a full stop", l)
		}
	}
	if n == 0 {
		t.Fatal("the demo printed no why line")
	}
}

func TestDemo_EachTestLineSaysPassOrFail(t *testing.T) {
	t.Parallel()
	n := 0
	for _, l := range strings.Split(sharedDemo(t).progress(), "\n") {
		if !strings.HasPrefix(l, "   test for ") && !strings.HasPrefix(l, "   test: ") {
			continue
		}
		n++
		if !strings.HasSuffix(l, " — pass") && !strings.Contains(l, " — fail: ") {
			t.Errorf("test line %q says neither pass nor fail", l)
		}
	}
	if n != 3 {
		t.Errorf("%d test lines, want the demo's 3", n)
	}
}

// TestDemo_TheCountsAtTheEndAreTheCyclesShown: the ledger line of the
// hand-back gives a job for each cycle the demo showed, the idle wake that
// wrote nothing included (C5), and a job minute for each; the footer the
// number of cycles.
func TestDemo_TheCountsAtTheEndAreTheCyclesShown(t *testing.T) {
	t.Parallel()
	out := sharedDemo(t).out
	shown := strings.Count(out, "── cycle ")
	m := regexp.MustCompile(`Actions job minutes: (\d+) in (\d+) jobs? over \d+ cycles`).FindStringSubmatch(out)
	f := regexp.MustCompile(`\n(\d+) cycles \(\d+ wrote nothing\), \d+ API requests in all`).FindStringSubmatch(out)
	if m == nil || f == nil {
		t.Fatalf("no ledger line or no footer:\n%s", out)
	}
	minutes, _ := strconv.Atoi(m[1])
	ledger, _ := strconv.Atoi(m[2])
	footer, _ := strconv.Atoi(f[1])
	if ledger != shown || footer != shown || minutes < shown {
		t.Errorf("%d cycles shown; the ledger says %d job minutes in %d jobs, the footer %d cycles", shown, minutes, ledger, footer)
	}
}

// TestRule_E1_TheDemoSaysATargetedTestFailedAndItsFixWasReverted: played
// with the scenario whose Div fix breaks TestDiv, the demo shows that
// test as failed (in each cycle that tries the fix) and the Max test as
// passed.
func TestRule_E1_TheDemoSaysATargetedTestFailedAndItsFixWasReverted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	var out, errOut strings.Builder
	env := cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	opts := cli.DemoOptions{Scenario: filepath.Join(scenarioDir(t), "e1-failing-targeted-test-reverts-one-fix.yaml")}
	if _, err := demo(context.Background(), opts, env, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("%v\n%s\n%s", err, errOut.String(), out.String())
	}
	var pass, fail int
	for _, l := range strings.Split(out.String(), "\n") {
		switch {
		case !strings.HasPrefix(l, "   test"):
		case strings.HasSuffix(l, " — pass"):
			pass++
		case strings.HasSuffix(l, " — fail: the fix is reverted (E1)"):
			fail++
		default:
			t.Errorf("test line %q says neither pass nor fail", l)
		}
	}
	if pass == 0 || fail == 0 {
		t.Errorf("%d passed and %d failed test lines, want the Max test passed and the Div test failed:\n%s", pass, fail, out.String())
	}
}
