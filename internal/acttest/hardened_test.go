package acttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// hardenedPath is the hardened two-job example (rule TB1).
const hardenedPath = "docs/examples/review-loop-hardened.yml"

// readOnlyToken is the prepare job's token. GitHub scopes GITHUB_TOKEN to
// each job's `permissions:`; act does not, so the generated workflow hands
// the prepare job this read-only token (the fake refuses its writes), as
// GitHub would.
const readOnlyToken = "ghs_acttest_read_only_token_0123456789"

// generateHardenedWorkflow turns the hardened example into one act runs
// offline: actions/checkout becomes the copy step, as for the single-job
// example; actions/upload-artifact and actions/download-artifact, which act
// cannot fetch offline, become local stand-ins with the same inputs (name,
// path) that copy through store; the review-loop steps use this
// repository's action, and the prepare job's github-token becomes the
// read-only token.
func generateHardenedWorkflow(example []byte, p workflowParams, store string) (testWorkflow, error) {
	var doc yaml.MapSlice
	if err := yaml.UnmarshalWithOptions(example, &doc, yaml.UseOrderedMap()); err != nil {
		return testWorkflow{}, fmt.Errorf("parsing the hardened example: %w", err)
	}
	jobs, ok := lookup(doc, "jobs").(yaml.MapSlice)
	if !ok {
		return testWorkflow{}, errors.New("the hardened example has no jobs")
	}
	var out testWorkflow
	seen := map[string]int{}
	for ji := range jobs {
		job := jobs[ji].Value.(yaml.MapSlice)
		if l, ok := lookup(job, "runs-on").(string); ok {
			out.Labels = appendNew(out.Labels, l)
		}
		steps, _ := lookup(job, "steps").([]any)
		var newSteps []any
		for si, raw := range steps {
			step := raw.(yaml.MapSlice)
			uses, _ := lookup(step, "uses").(string)
			with, _ := lookup(step, "with").(yaml.MapSlice)
			switch {
			case strings.HasPrefix(uses, "actions/checkout@"):
				seen["checkout"]++
				cs := copyStep(p)
				// Both jobs copy into the workspace; the link may exist.
				cs = set(cs, "run", strings.Replace(lookup(cs, "run").(string), "ln -s ", "ln -sfn ", 1))
				newSteps = append(newSteps, cs)
			case strings.HasPrefix(uses, "actions/upload-artifact@"):
				seen["upload"]++
				newSteps = append(newSteps, keepIf(artifactStep("upload", with, store), step))
			case strings.HasPrefix(uses, "actions/download-artifact@"):
				seen["download"]++
				newSteps = append(newSteps, keepIf(artifactStep("download", with, store), step))
			case strings.HasPrefix(uses, "review-loop/review-loop@"):
				seen["review-loop"]++
				// The example's own id stays: its outputs are read by it
				// (the prepare job's publish output).
				id, _ := lookup(step, "id").(string)
				if id == "" {
					id = fmt.Sprintf("review-loop-%v", jobs[ji].Key)
					step = set(step, "id", id)
				}
				step = set(step, "uses", "./"+localActionDir)
				if mode, _ := lookup(with, "mode").(string); mode == "prepare" {
					step = set(step, "with", set(with, "github-token", "${{ secrets.REVIEW_LOOP_READ_TOKEN }}"))
				}
				out.ActionStepID = id
				newSteps = append(newSteps, step)
			case uses == "":
				newSteps = append(newSteps, step)
			default:
				return testWorkflow{}, fmt.Errorf("job %v step %d uses %s, which act would fetch from the network", jobs[ji].Key, si, uses)
			}
		}
		if !slices.ContainsFunc(steps, func(raw any) bool {
			uses, _ := lookup(raw.(yaml.MapSlice), "uses").(string)
			return strings.HasPrefix(uses, "actions/checkout@")
		}) {
			// No checkout step: review-loop clones when it needs the
			// tree; only the local action is linked in.
			ls := linkStep(p)
			ls = set(ls, "run", strings.Replace(lookup(ls, "run").(string), "ln -s ", "ln -sfn ", 1))
			newSteps = append([]any{ls}, newSteps...)
		}
		jobs[ji].Value = set(job, "steps", newSteps)
	}
	// TB16: the hand-over is the prepare job's output, no artifact step.
	if seen["checkout"] > 2 || seen["upload"] != 0 || seen["download"] != 0 || seen["review-loop"] != 2 {
		return testWorkflow{}, fmt.Errorf("the hardened example's steps: %v; want at most two checkouts, no upload or download, two review-loop steps", seen)
	}
	b, err := yaml.MarshalWithOptions(doc, yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return testWorkflow{}, err
	}
	out.YAML = b
	return out, nil
}

// keepIf gives the stand-in step the replaced step's if:, so it runs
// when the example's step would.
func keepIf(stand, step yaml.MapSlice) yaml.MapSlice {
	if cond, ok := lookup(step, "if").(string); ok {
		return set(stand, "if", cond)
	}
	return stand
}

// artifactStep stands in for actions/upload-artifact (kind upload) or
// actions/download-artifact (kind download) with the same name and path
// inputs, through a directory of the test. The download empties its path
// first, so what publish reads came through the store.
func artifactStep(kind string, with yaml.MapSlice, store string) yaml.MapSlice {
	name, _ := lookup(with, "name").(string)
	path, _ := lookup(with, "path").(string)
	script := `set -euo pipefail
mkdir -p "$STORE/$NAME"
[ -n "$(ls -A "$ARTIFACT_PATH")" ] || { echo "no files in $ARTIFACT_PATH"; exit 1; }
cp -a "$ARTIFACT_PATH/." "$STORE/$NAME/"
`
	if kind == "download" {
		script = `set -euo pipefail
rm -rf "$ARTIFACT_PATH"
mkdir -p "$ARTIFACT_PATH"
cp -a "$STORE/$NAME/." "$ARTIFACT_PATH/"
`
	}
	return yaml.MapSlice{
		{Key: "name", Value: "Stand-in for actions/" + kind + "-artifact"},
		{Key: "shell", Value: "bash"},
		{Key: "env", Value: yaml.MapSlice{{Key: "STORE", Value: store}, {Key: "NAME", Value: name}, {Key: "ARTIFACT_PATH", Value: path}}},
		{Key: "run", Value: script},
	}
}

// runHardened runs the hardened example for one event through act.
func (w *world) runHardened(event string, payload any) actRun {
	w.t.Helper()
	dir := w.t.TempDir()
	example := w.hardened
	if example == nil {
		var err error
		if example, err = os.ReadFile(filepath.Join(w.root, hardenedPath)); err != nil {
			w.t.Fatal(err)
		}
	}
	wf, err := generateHardenedWorkflow(example, workflowParams{Checkout: w.checkout, ActionRoot: w.root, OutputsFile: filepath.Join(dir, "outputs")}, filepath.Join(dir, "artifacts"))
	if err != nil {
		w.t.Fatal(err)
	}
	wfPath, evPath := filepath.Join(dir, "review-loop.yml"), filepath.Join(dir, "event.json")
	ev, _ := json.Marshal(payload)
	for p, b := range map[string][]byte{wfPath: wf.YAML, evPath: ev} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
	args := []string{event, "--workflows", wfPath, "--eventpath", evPath, "--directory", w.checkout,
		"--env", "GITHUB_API_URL=" + w.fake.URL(), "--env", "GITHUB_GRAPHQL_URL=" + w.fake.GraphQLURL(),
		"--env", "GITHUB_SERVER_URL=" + w.fake.URL(), "--env", "GITHUB_REPOSITORY=" + owner + "/" + repoName,
		"--secret", "GITHUB_TOKEN=" + actionToken, "--secret", "REVIEW_LOOP_READ_TOKEN=" + readOnlyToken,
		"--secret", "ANTHROPIC_API_KEY=" + agentAPIKey,
		"--pull=false", "--action-offline-mode", "--no-cache-server", "--action-cache-path", w.cache,
	}
	for _, l := range wf.Labels {
		args = append(args, "--platform", l+"=-self-hosted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*actTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.act, args...)
	cmd.Dir, cmd.Env = dir, hostEnv()
	out := &stampedLog{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	r := actRun{Output: out.String(), Err: err, Wall: time.Since(start), Outputs: map[string]string{}, Jobs: out.jobs()}
	if ctx.Err() != nil {
		w.t.Fatalf("act did not finish within %s:\n%s", 2*actTimeout, r.Output)
	}
	return r
}

func TestGenerateHardenedWorkflow_replacesOnlyTheNetworkActions(t *testing.T) {
	example, err := os.ReadFile(filepath.Join(repoRoot(t), hardenedPath))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := generateHardenedWorkflow(example, workflowParams{Checkout: "/c", ActionRoot: "/a", OutputsFile: "/o"}, "/s")
	if err != nil {
		t.Fatal(err)
	}
	s := string(wf.YAML)
	for _, banned := range []string{"actions/checkout@", "actions/upload-artifact@", "actions/download-artifact@", "review-loop/review-loop@"} {
		if strings.Contains(s, banned) {
			t.Errorf("the generated workflow still uses %s", banned)
		}
	}
	if !strings.Contains(s, "secrets.REVIEW_LOOP_READ_TOKEN") || strings.Count(s, "mode: prepare") != 1 || strings.Count(s, "mode: publish") != 1 {
		t.Errorf("generated workflow:\n%s", s)
	}
}

// TestAct_TB1_HardenedCopilotSuggestionIsPushedByPublish runs the hardened
// example end to end: the prepare job, holding only a read-only token,
// applies Copilot's suggestion and runs the test command; the publish job
// pushes the fix and resolves the thread.
func TestAct_TB1_HardenedCopilotSuggestionIsPushedByPublish(t *testing.T) {
	w := newWorld(t)
	w.fake.AddToken(readOnlyToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, ReadOnly: true})
	w.runHardened("workflow_dispatch", dispatchEvent(1)).mustSucceed(t)
	head := w.fake.HeadSHA(owner, repoName, 1)
	if g := w.fake.GitRequests(); len(g) != 0 {
		t.Errorf("the first cycle (a trigger) made %d git requests; neither job needs the tree", len(g))
	}
	review := w.copilotReview(t)
	before := len(w.fake.Requests())
	r := w.runHardened("pull_request_review", review)
	r.mustSucceed(t)
	// Neither job has a checkout step: prepare clones to fix, publish to
	// apply the patch, and only publish pushes.
	if n := strings.Count(r.Output, "(one commit): the cycle fixes"); n != 2 {
		t.Errorf("%d jobs cloned the PR head for the fix, want prepare and publish\n%s", n, r.Output)
	}
	// The fix commit is made through the Git database API (TB13): one
	// fast-forward ref update, by the publish job's push token, and no
	// git push at all.
	for _, g := range w.fake.GitRequests() {
		if g.Service == "git-receive-pack" {
			t.Errorf("a git push (%s %s): the fix commit is made through the API only", g.Method, g.Service)
		}
	}
	var updates []ghfake.Request
	for _, q := range w.fake.Requests()[before:] {
		if q.Method == "PATCH" && strings.Contains(q.Path, "/git/refs/heads/") {
			updates = append(updates, q)
		}
	}
	if len(updates) != 1 || updates[0].ReadOnly {
		t.Errorf("ref updates %+v, want the publish job's one, with its push token", updates)
	}

	pr := w.fake.PR(owner, repoName, 1)
	if pr.HeadSHA == head {
		t.Fatalf("nothing pushed to the PR branch\n%s", r.Output)
	}
	bare := strings.TrimPrefix(w.fake.CloneURL(owner, repoName), "file://")
	if got := git(t, bare, "show", pr.HeadSHA+":calc/calc.go"); !strings.Contains(got, "return a + b") {
		t.Errorf("the suggestion is not in the pushed commit:\n%s", got)
	}
	resolved := 0
	for _, th := range pr.Threads {
		if th.Resolved {
			resolved++
		}
	}
	if resolved != 1 {
		t.Errorf("%d threads resolved, want 1", resolved)
	}
	reads, readOnlyWrites, writesByWriter := 0, 0, 0
	for _, q := range w.fake.Requests()[before:] {
		isWrite := len(writes([]ghfake.Request{q})) == 1
		switch {
		case q.ReadOnly && isWrite:
			readOnlyWrites++
			t.Errorf("the prepare job wrote with its token: %s %s %s", q.Method, q.Path, q.GraphQL)
		case q.ReadOnly:
			reads++
		case isWrite:
			writesByWriter++
		}
	}
	if reads == 0 || writesByWriter == 0 {
		t.Errorf("read-only reads %d, writes by the publish token %d: want both", reads, writesByWriter)
	}
	if !strings.Contains(r.Output, "prepared a fix") {
		t.Errorf("the prepare job prepared no fix\n%s", r.Output)
	}
}

// TestAct_C5_HardenedWakesStartTheJobsTheLedgerCounts runs the hardened
// example through act for a loop's first wakes and reports, per wake,
// the jobs act started and their wall times (docs/costs.md quotes them):
// the wake that starts the loop and the wake that fixes start prepare and
// publish; a wake with nothing new starts prepare only (C3), and the
// ledger counts every job that wrote it (C5).
func TestAct_C5_HardenedWakesStartTheJobsTheLedgerCounts(t *testing.T) {
	w := newWorld(t)
	w.fake.AddToken(readOnlyToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, ReadOnly: true})
	wake := func(what, event string, payload any, want ...string) {
		t.Helper()
		r := w.runHardened(event, payload)
		r.mustSucceed(t)
		var got []string
		for j, d := range r.Jobs {
			got = append(got, j)
			t.Logf("%s: job %s ran %s", what, j, d.Round(100*time.Millisecond))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s started jobs %v, want %v\n%s", what, got, want, r.Output)
		}
		t.Logf("%s: %s wall for the run", what, r.Wall.Round(100*time.Millisecond))
	}
	wake("the start (trigger)", "workflow_dispatch", dispatchEvent(1), "prepare", "publish")
	wake("a wake while Copilot reviews (the wait, noted once)", "workflow_dispatch", dispatchEvent(1), "prepare", "publish")
	wake("an idle wake", "workflow_dispatch", dispatchEvent(1), "prepare")
	wake("Copilot's review (a fix)", "pull_request_review", w.copilotReview(t), "prepare", "publish")
	_, st, ok := w.statusComment()
	if !ok || st.Ledger == nil || st.Ledger.Jobs != 6 || st.Ledger.Cycles != 3 {
		t.Errorf("ledger %+v, want the 6 jobs of the 3 wakes that wrote", st.Ledger)
	}
}
