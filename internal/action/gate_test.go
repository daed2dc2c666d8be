package action

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// TestRule_MG1_ownCheckRunIsNeverAnEngineSignal: review-loop's own check
// run is a check run of app github-actions on the head, like an engine's
// workflow job. With a Claude review job that happens to be named like it,
// the gate in progress would read as Claude RUNNING; the cycle drops it
// before any engine reads the observation, so every engine sees what it
// sees without the gate.
func TestRule_MG1_ownCheckRunIsNeverAnEngineSignal(t *testing.T) {
	t.Parallel()
	reg, err := builtin.Registry(builtin.Options{Claude: claude.Options{JobName: loop.GateName}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	wf := []engines.WorkflowFile{{Path: ".github/workflows/claude.yml", Content: "on: [pull_request]\njobs:\n  review-loop:\n    steps:\n      - uses: anthropics/claude-code-action@v1\n"}}
	env := engines.Env{Now: at, WorkflowFiles: wf}
	base := func() *github.Observation {
		return &github.Observation{HeadSHA: "abc", State: "OPEN", CheckRuns: []github.CheckRun{
			{NodeID: "CR_1", Name: "Cursor Bugbot", AppSlug: "cursor", Status: "IN_PROGRESS", StartedAt: at},
		}}
	}
	withGate := func() *github.Observation {
		o := base()
		o.CheckRuns = append(o.CheckRuns, github.CheckRun{NodeID: "CR_2", Name: loop.GateName, AppSlug: "github-actions", Status: "IN_PROGRESS", StartedAt: at.Add(time.Second)})
		return o
	}
	for _, name := range reg.Names() {
		e, _ := reg.Lookup(name)
		want := e.Observe(base(), env)
		c := &prCycle{obs: withGate()}
		c.dropOwnCheckRuns()
		if got := e.Observe(c.obs, env); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the gate changed the engine's view:\n got %+v\nwant %+v", name, got, want)
		}
		// MG2: the engines themselves never read it either, in whatever
		// suite GitHub filed it.
		if got := e.Observe(withGate(), env); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the adapter read review-loop's gate as its signal:\n got %+v\nwant %+v", name, got, want)
		}
	}
	c := &prCycle{obs: withGate()}
	c.dropOwnCheckRuns()
	if len(c.obs.CheckRuns) != 1 {
		t.Fatalf("the cycle kept its own check run in the observation: %+v", c.obs.CheckRuns)
	}
}

func TestRule_CI1_ciWorkflowsInput(t *testing.T) {
	t.Parallel()
	got, err := ciWorkflowFiles([]string{"ci.yml", ".github/workflows/test.yaml", "ci.yml"})
	if err != nil || !reflect.DeepEqual(got, []string{"ci.yml", "test.yaml"}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"ci", "dir/ci.yml", ".yml", "ci.json"} {
		if _, err := ciWorkflowFiles([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRule_CL1_pricesFromTheRepositoryConfig(t *testing.T) {
	t.Parallel()
	p, err := parsePrices([]byte("prices:\n  bugbot: 0.50\n  coderabbit: 0.0\n  actions_minute: 0.008\n"))
	if err != nil || p.Review["bugbot"] != 0.5 || p.ActionsMinute != 0.008 {
		t.Errorf("prices %+v, %v", p, err)
	}
	if _, ok := p.Review["coderabbit"]; !ok {
		t.Error("a zero price must count as configured")
	}
	for _, bad := range []string{"prices:\n  bugbot: -1\n", "prices:\n  bugbot: .nan\n", "prices:\n  bugbot: cheap\n", "prices: [1]\n"} {
		if _, err := parsePrices([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	reg, _ := builtin.Registry(builtin.Options{})
	p2, _ := parsePrices([]byte("prices:\n  bugbott: 1\n"))
	if err := checkPriceEngines(p2, reg); err == nil {
		t.Error("an unknown engine's price was accepted")
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte("prices:\n  bugbot: 0.50\n  coderabbit: 0.0\n  actions_minute: 0.008\n"))
	f.Add([]byte("prices: {bugbot: 0.50, copilot: 1}\n"))
	f.Add([]byte("engines:\n  - name: x\nprices:\n"))
	f.Add([]byte("prices: 3\n"))
	f.Add([]byte("prices: {bugbot: .nan, copilot: .inf}\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := parsePrices(raw)
		if err != nil {
			return
		}
		if p.ActionsMinute < 0 {
			t.Errorf("negative minute price %v accepted", p.ActionsMinute)
		}
		for k, v := range p.Review {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || k == "actions_minute" {
				t.Errorf("price %s = %v accepted", k, v)
			}
		}
	})
}
