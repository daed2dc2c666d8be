package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/cli"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/sim"
)

// The scorecard across pull requests (EQ2) is read from loop states the
// loop itself wrote: two scenarios are played as real loops — eq1
// (Bugbot's findings mostly fixed, Copilot's mostly declined) and cl1
// (one finding of each fixed) — and their final status comments are what
// the pull requests of the report's repository carry, in turn.

var (
	playedOnce   sync.Once
	playedBodies []string
	playedErr    error
)

// playedStatusComments plays the eq1 and cl1 scenarios once and returns
// their final status comments.
func playedStatusComments(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	playedOnce.Do(func() {
		self, _ := os.Executable()
		for _, name := range []string{"eq1-one-engine-mostly-fixed-one-mostly-declined.yaml", "cl1-cost-ledger-reviews-minutes-requests.yaml"} {
			sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), name))
			if err != nil {
				playedErr = err
				return
			}
			res, err := Run(context.Background(), sc, Options{Self: []string{self}})
			if err == nil && len(res.Problems) > 0 {
				err = &problems{res.Problems}
			}
			if err != nil {
				playedErr = fmt.Errorf("%s: %w", name, err)
				return
			}
			playedBodies = append(playedBodies, res.Report)
		}
	})
	if playedErr != nil {
		t.Fatal(playedErr)
	}
	return playedBodies
}

type problems struct{ p []string }

func (p *problems) Error() string { return strings.Join(p.p, "; ") }

// reportRepo is a fake repository of n pull requests updated in the last
// days, each carrying one of bodies (in turn) as review-loop's state
// comment, and two older ones outside a 30-day window; its config file
// prices the reviews.
func reportRepo(t *testing.T, n int, bodies []string, now time.Time) *ghfake.Fake {
	t.Helper()
	clock := now.AddDate(0, 0, -60)
	f := ghfake.New(ghfake.Options{Now: func() time.Time { return clock }})
	t.Cleanup(f.Close)
	f.AddToken("reader-token", ghfake.Identity{Login: "octocat", ID: 1})
	if err := f.AddRepo("acme", "calc", "main"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetProtected("acme", "calc", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.PushCommit("acme", "calc", "main", map[string]string{
		".github/review-loop.yml": "prices:\n  bugbot: 0.50\n  copilot: 0.25\n",
	}, "prices"); err != nil {
		t.Fatal(err)
	}
	add := func(i int, withState bool) {
		body := bodies[(i+len(bodies))%len(bodies)]
		num, err := f.CreatePR("acme", "calc", ghfake.PROptions{Title: "change", Head: "b" + itoa(i), Files: map[string]string{"f.txt": itoa(i)}})
		if err != nil {
			t.Fatal(err)
		}
		if withState {
			if _, err := f.AddIssueComment("acme", "calc", num, "github-actions[bot]", "NONE", body); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Two pull requests last updated 60 days ago: outside the window.
	add(-1, true)
	add(-2, true)
	clock = now.Add(-time.Duration(n+1) * time.Hour)
	for i := range n {
		clock = clock.Add(time.Hour)
		add(i, true)
	}
	return f
}

func itoa(i int) string { return strconv.Itoa(i) }

// runReport runs `review-loop report` against the fake and returns its
// output and the requests it made.
func runReport(t *testing.T, f *ghfake.Fake, now time.Time, args ...string) (string, []ghfake.Request) {
	t.Helper()
	f.ResetRequests()
	env := map[string]string{"GH_TOKEN": "reader-token", "GITHUB_API_URL": f.URL(), "GITHUB_GRAPHQL_URL": f.GraphQLURL()}
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), append([]string{"report"}, args...), cli.Env{
		Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &errb, Now: func() time.Time { return now },
	})
	if code != cli.ExitOK {
		t.Fatalf("report %v exited %d: %s", args, code, errb.String())
	}
	return out.String(), f.Requests()
}

var reportNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// TestRule_EQ2_ReportRanksTheEngineWhoseFindingsAreFixedFirst: across
// pull requests, Bugbot (mostly fixed) ranks above Copilot (mostly
// declined), with the acceptance rates, the cost per accepted finding
// from the prices, and the stated request budget kept.
func TestRule_EQ2_ReportRanksTheEngineWhoseFindingsAreFixedFirst(t *testing.T) {
	bodies := playedStatusComments(t)
	f := reportRepo(t, 10, bodies, reportNow)
	// A state comment written by anyone but review-loop's account counts
	// for nothing: it could say anything.
	forged, err := f.CreatePR("acme", "calc", ghfake.PROptions{Title: "forged", Head: "forged"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddIssueComment("acme", "calc", forged, "mallory", "NONE", bodies[0]); err != nil {
		t.Fatal(err)
	}
	md, reqs := runReport(t, f, reportNow, "acme/calc", "--since", "30d")
	t.Logf("report for 10 pull requests:\n%s", md)
	for _, want := range []string{
		"11 pull requests read, 10 loops with a review-loop state.",
		"| 1 | bugbot | 20 | 15 | 75% |",
		"| 2 | copilot | 25 | 10 | 40% |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if bi, ci := strings.Index(md, "| bugbot |"), strings.Index(md, "| copilot |"); bi < 0 || ci < 0 || bi > ci {
		t.Errorf("bugbot is not ranked above copilot:\n%s", md)
	}
	for _, r := range reqs {
		if r.Operation != "query" || r.Method != "POST" {
			t.Errorf("report made a request that is not a GraphQL query: %+v", r)
		}
	}
	if !strings.Contains(md, "of a stated budget of") {
		t.Errorf("the report does not state its budget:\n%s", md)
	}

	var js report.JSONRepoScorecard
	out, _ := runReport(t, f, reportNow, "--json", "acme/calc")
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(js.Engines) != 2 || js.Engines[0].Engine != "bugbot" || js.Engines[0].AcceptanceRate != 0.75 ||
		js.Engines[1].Engine != "copilot" || js.Engines[1].AcceptanceRate != 0.4 || js.Engines[0].CostPerAcceptedFind == nil {
		t.Fatalf("--json engines = %+v", js.Engines)
	}
}

// TestRule_EQ2_ReportRequestsStayWithinTheStatedBudget is the cost test
// (C1): at 10 and at 100 pull requests the report's requests are counted,
// and they stay within github.LoopStateBudget — a page per 25 pull
// requests, none per finding — whatever the number of findings.
func TestRule_EQ2_ReportRequestsStayWithinTheStatedBudget(t *testing.T) {
	bodies := playedStatusComments(t)
	for _, n := range []int{10, 100} {
		f := reportRepo(t, n, bodies, reportNow)
		md, reqs := runReport(t, f, reportNow, "acme/calc")
		budget := github.LoopStateBudget(n)
		pages := (n + github.LoopStatePRsPerPage - 1) / github.LoopStatePRsPerPage
		t.Logf("%d pull requests: %d requests, budget %d", n, len(reqs), budget)
		if len(reqs) > budget {
			t.Errorf("%d pull requests: %d requests, over the stated budget of %d", n, len(reqs), budget)
		}
		// No long threads here: one page per 25 pull requests, and at most
		// one more to see the window end.
		if len(reqs) > pages+1 {
			t.Errorf("%d pull requests: %d requests, want at most %d pages", n, len(reqs), pages+1)
		}
		if want := "_Read-only: " + strings.TrimSpace(plural(len(reqs))) + " of a stated budget of " + itoa(budget) + "._"; !strings.Contains(md, want) {
			t.Errorf("the report states %q? got:\n%s", want, md)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return "1 GitHub request"
	}
	return itoa(n) + " GitHub requests"
}

var updateScorecard = flag.Bool("update-scorecard", false, "rewrite docs/img/report-scorecard.svg from the eq1 scenario's report")

// TestRule_EQ2_ReportSVGIsTheScenariosChart: `report --svg` for the eq1
// scenario's pull requests is the chart in docs/img/report-scorecard.svg
// (rendered to report-scorecard.png by a headless Chromium), and its bars
// carry the numbers `report --json` prints.
func TestRule_EQ2_ReportSVGIsTheScenariosChart(t *testing.T) {
	bodies := playedStatusComments(t)
	f := reportRepo(t, 10, bodies, reportNow)
	svg, _ := runReport(t, f, reportNow, "acme/calc", "--svg")
	out, _ := runReport(t, f, reportNow, "acme/calc", "--json")
	var js report.JSONRepoScorecard
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	for _, e := range js.Engines {
		want := fmt.Sprintf(`data-metric="acceptance" data-value="%.4f"`, e.AcceptanceRate)
		i := strings.Index(svg, `<g data-engine="`+e.Engine+`">`)
		if i < 0 || !strings.Contains(svg[i:], want) {
			t.Errorf("%s: the SVG has no acceptance bar of %.4f:\n%s", e.Engine, e.AcceptanceRate, svg)
		}
	}
	path := filepath.Join("..", "..", "docs", "img", "report-scorecard.svg")
	if *updateScorecard {
		if err := os.WriteFile(path, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-scorecard)", err)
	}
	if string(golden) != svg {
		t.Errorf("%s differs from `report --svg`; run go test ./internal/scenario -run TestRule_EQ2_ReportSVG -update-scorecard and render it again:\n%s", path, svg)
	}
}

// TestRule_EQ2_PlanAndDoctorShowTheLast30DaysScorecard: `plan` and
// `doctor` end with the repository's scorecard of the last 30 days when
// its pull requests hold loop states.
func TestRule_EQ2_PlanAndDoctorShowTheLast30DaysScorecard(t *testing.T) {
	bodies := playedStatusComments(t)
	f := reportRepo(t, 10, bodies, reportNow)
	env := map[string]string{"GH_TOKEN": "reader-token", "GITHUB_API_URL": f.URL(), "GITHUB_GRAPHQL_URL": f.GraphQLURL(), "INPUT_ENGINES": "bugbot,copilot"}
	for _, args := range [][]string{{"doctor", "acme/calc"}, {"plan", "acme/calc#5"}} {
		var out, errb bytes.Buffer
		code := cli.Main(context.Background(), args, cli.Env{
			Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &errb, Now: func() time.Time { return reportNow },
		})
		if code != cli.ExitOK && code != cli.ExitError {
			t.Fatalf("%v exited %d: %s", args, code, errb.String())
		}
		for _, want := range []string{
			"scorecard, last 30 days (10 loops in 10 pull requests; `review-loop report acme/calc` for more):",
			"  1. bugbot: 75% accepted (15 of 20)",
			"  2. copilot: 40% accepted (10 of 25)",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v lacks %q:\n%s\nstderr:\n%s", args, want, out.String(), errb.String())
			}
		}
	}
}
