package actionyml

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// wfStep is a workflow step as TB16 reads it.
type wfStep struct {
	ID   string         `yaml:"id"`
	Name string         `yaml:"name"`
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
	Env  map[string]any `yaml:"env"`
}

type wfJob struct {
	Needs   any               `yaml:"needs"`
	Outputs map[string]string `yaml:"outputs"`
	Steps   []wfStep          `yaml:"steps"`
}

// isReviewLoop is a step running review-loop (released, or the local
// action), in mode when mode is not "".
func (s wfStep) isReviewLoop(mode string) bool {
	ours := strings.HasPrefix(s.Uses, "review-loop/review-loop@") || s.Uses == "./"
	return ours && (mode == "" || fmt.Sprint(s.With["mode"]) == mode)
}

// credentialRefs are the ways a step can be handed a credential in a
// workflow's text.
var credentialRefs = []string{"secrets.", "github.token", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN"}

// tb16Violations are the hardened workflow's breaches of TB16: in the job
// that runs review-loop in mode prepare, a step after it that holds a
// credential (every action is handed the runner's ACTIONS_RUNTIME_TOKEN,
// and a step that names a secret or the token holds it), or an action
// before it, whose post step would run after it; in the publish job, any
// action but review-loop itself (actions/cache, a setup-* action's cache,
// download-artifact…: whatever the job restores, prepare could have
// written). Allow-list: the only action either job may use is
// review-loop.
func tb16Violations(jobs map[string]wfJob) []string {
	var out []string
	for name, j := range jobs {
		prep := -1
		for i, s := range j.Steps {
			if s.isReviewLoop("prepare") {
				prep = i
			}
		}
		if prep >= 0 {
			for i, s := range j.Steps {
				text, _ := yaml.Marshal(s)
				switch {
				case i < prep && s.Uses != "":
					out = append(out, fmt.Sprintf("job %s: step %d uses %s before the repository's code runs; its post step would run after it with the runner's credentials", name, i+1, s.Uses))
				case i > prep && s.Uses != "":
					out = append(out, fmt.Sprintf("job %s: step %d uses %s after the repository's code ran; the action holds the runner's ACTIONS_RUNTIME_TOKEN, and that code could have rewritten it", name, i+1, s.Uses))
				case i > prep:
					for _, ref := range credentialRefs {
						if strings.Contains(string(text), ref) {
							out = append(out, fmt.Sprintf("job %s: step %d runs after the repository's code and is handed %s", name, i+1, ref))
							break
						}
					}
				}
			}
		}
		publish := false
		for _, s := range j.Steps {
			publish = publish || s.isReviewLoop("publish")
		}
		if publish {
			for i, s := range j.Steps {
				if s.Uses != "" && !s.isReviewLoop("") {
					out = append(out, fmt.Sprintf("job %s: step %d uses %s in the publish job; only review-loop may run there, and nothing may be restored from the Actions cache or from what prepare left", name, i+1, s.Uses))
				}
			}
		}
	}
	return out
}

// hardenedWorkflows are the workflows that run review-loop in hardened
// mode, parsed.
func hardenedWorkflows(t *testing.T) map[string]map[string]wfJob {
	t.Helper()
	out := map[string]map[string]wfJob{}
	for _, f := range workflowFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "mode: prepare") {
			continue
		}
		var wf struct {
			Jobs map[string]wfJob `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = wf.Jobs
	}
	if len(out) == 0 {
		t.Fatal("no hardened workflow found")
	}
	return out
}

// TB16: in every hardened workflow, nothing that holds a credential runs
// after the repository's code in the prepare job, and the publish job
// restores nothing (no action but review-loop).
func TestRule_TB16_NothingHoldingACredentialFollowsRepositoryCode(t *testing.T) {
	t.Parallel()
	for file, jobs := range hardenedWorkflows(t) {
		for _, v := range tb16Violations(jobs) {
			t.Errorf("%s: %s", file, v)
		}
	}
}

// TB16: the check itself catches each breach it names.
func TestRule_TB16_TheCheckCatchesEachBreach(t *testing.T) {
	t.Parallel()
	rl := wfStep{Uses: "review-loop/review-loop@main", With: map[string]any{"mode": "prepare"}}
	pub := wfStep{Uses: "review-loop/review-loop@main", With: map[string]any{"mode": "publish"}}
	for name, c := range map[string]struct {
		jobs map[string]wfJob
		want string
	}{
		"upload after the code":    {map[string]wfJob{"prepare": {Steps: []wfStep{rl, {Uses: "actions/upload-artifact@v4"}}}}, "after the repository's code"},
		"a secret after the code":  {map[string]wfJob{"prepare": {Steps: []wfStep{rl, {Run: "curl -H \"$T\" x", Env: map[string]any{"T": "${{ secrets.X }}"}}}}}, "secrets."},
		"checkout before the code": {map[string]wfJob{"prepare": {Steps: []wfStep{{Uses: "actions/checkout@v4"}, rl}}}, "post step"},
		"a cache in publish":       {map[string]wfJob{"publish": {Steps: []wfStep{{Uses: "actions/cache/restore@v4"}, pub}}}, "Actions cache"},
		"setup-go in publish":      {map[string]wfJob{"publish": {Steps: []wfStep{{Uses: "actions/setup-go@v5"}, pub}}}, "Actions cache"},
	} {
		got := strings.Join(tb16Violations(c.jobs), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: violations %q, want one naming %q", name, got, c.want)
		}
	}
	if v := tb16Violations(map[string]wfJob{"prepare": {Steps: []wfStep{rl, {Run: "echo done"}}}, "publish": {Steps: []wfStep{pub}}}); len(v) != 0 {
		t.Errorf("a sealed pair of jobs: %v", v)
	}
}

// TB16: the hand-over goes through the job output: the prepare job's
// output `prepared` is its review-loop step's, and the publish job passes
// needs.<prepare>.outputs.prepared to review-loop.
func TestRule_TB16_ThePreparedCycleIsHandedOverAsAJobOutput(t *testing.T) {
	t.Parallel()
	for file, jobs := range hardenedWorkflows(t) {
		prepJob := ""
		for name, j := range jobs {
			for _, s := range j.Steps {
				if s.isReviewLoop("prepare") {
					prepJob = name
					if s.ID == "" || j.Outputs["prepared"] != "${{ steps."+s.ID+".outputs.prepared }}" {
						t.Errorf("%s: job %s outputs %q, want prepared: ${{ steps.<review-loop step id>.outputs.prepared }}", file, name, j.Outputs)
					}
				}
			}
		}
		for name, j := range jobs {
			for _, s := range j.Steps {
				if s.isReviewLoop("publish") {
					if got, want := fmt.Sprint(s.With["prepared"]), "${{ needs."+prepJob+".outputs.prepared }}"; got != want {
						t.Errorf("%s: job %s passes prepared %q, want %q", file, name, got, want)
					}
				}
			}
		}
	}
}
