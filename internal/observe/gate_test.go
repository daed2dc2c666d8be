package observe

import (
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
		obs := withGate()
		DropGate(obs)
		if got := e.Observe(obs, env); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the gate changed the engine's view:\n got %+v\nwant %+v", name, got, want)
		}
		// MG2: the engines themselves never read it either, in whatever
		// suite GitHub filed it.
		if got := e.Observe(withGate(), env); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the adapter read review-loop's gate as its signal:\n got %+v\nwant %+v", name, got, want)
		}
	}
	obs := withGate()
	DropGate(obs)
	if len(obs.CheckRuns) != 1 {
		t.Fatalf("the cycle kept its own check run in the observation: %+v", obs.CheckRuns)
	}
}
