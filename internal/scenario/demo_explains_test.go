package scenario

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/sim"
)

// TestDemo_ExplainsItself: without --verbose every cycle says why (its
// rule in words), every test run names its finding, and the demo gives
// one request total.
func TestDemo_ExplainsItself(t *testing.T) {
	t.Parallel()
	text := sharedDemo(t).out
	cycles := strings.Count(text, "── cycle ")
	if whys := strings.Count(text, "\n   why: "); cycles == 0 || whys != cycles {
		t.Errorf("%d cycles but %d why lines:\n%s", cycles, whys, text)
	}
	if strings.Contains(text, "   test: ") || !strings.Contains(text, "   test for bugbot \"Div panics on a zero divisor\": ") {
		t.Errorf("a test run does not name its finding:\n%s", text)
	}
	totals := map[string]bool{}
	for _, m := range regexp.MustCompile(`(\d+) API requests|API requests: (\d+)`).FindAllStringSubmatch(text, -1) {
		totals[m[1]+m[2]] = true
	}
	if len(totals) != 1 {
		t.Errorf("request totals %v, want one:\n%s", totals, text)
	}
	// docs/costs.md quotes the demo's figures: they are these.
	m := regexp.MustCompile(`API requests: (\d+) \((\d+) reads, (\d+) writes\)`).FindStringSubmatch(text)
	costs, err := os.ReadFile(filepath.Join("..", "..", "docs", "costs.md"))
	if err != nil || m == nil {
		t.Fatalf("costs.md: %v; ledger line %v", err, m)
	}
	want := fmt.Sprintf("%s API requests (%s reads, %s writes) in %d cycles", m[1], m[2], m[3], cycles)
	if !strings.Contains(strings.Join(strings.Fields(string(costs)), " "), want) {
		t.Errorf("docs/costs.md does not say the demo's %q", want)
	}
}

// TestRule_CL1_TheLedgerCountsEveryRequestOfTheCyclesThatWriteIt: the
// status comment's ledger holds every API request of every cycle that
// wrote it, its own write and what the plan does after it included; only
// the cycles that wrote nothing (an idle wake) are not in it.
func TestRule_CL1_TheLedgerCountsEveryRequestOfTheCyclesThatWriteIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"demo", "cl1-cost-ledger-reviews-minutes-requests"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var res Result
			if name == "demo" {
				// The built-in demo's one run (builtinDemo).
				res = sharedDemo(t).res
			} else {
				sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), name+".yaml"))
				if err != nil {
					t.Fatal(err)
				}
				res, err = Run(context.Background(), sc, Options{Self: []string{self}})
				if err != nil {
					t.Fatal(err)
				}
			}
			l := res.FinalState.Ledger
			if l == nil {
				t.Fatal("no ledger")
			}
			want := res.Requests.Total - res.Unwritten.Total
			if got := l.APIReads + l.APIWrites; got != want || l.APIReads != res.Requests.Reads-res.Unwritten.Reads {
				t.Fatalf("the ledger counts %d requests (%d reads, %d writes); the cycles that wrote it made %d (%d reads); %d in all",
					got, l.APIReads, l.APIWrites, want, res.Requests.Reads-res.Unwritten.Reads, res.Requests.Total)
			}
		})
	}
}
