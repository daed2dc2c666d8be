package acttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/event"
)

// engineCheckFilter is the job-level condition that lets through only the
// check runs and check suites review-loop's event parser would take as an
// engine signal (internal/event: a check run named like an engine's, or of
// an engine's app; a check suite of an engine's app; never GitHub
// Actions'), derived from the built-in engines. Every other completion —
// each job of a third-party CI — then starts no runner at all.
func engineCheckFilter(t *testing.T) (checkRun, checkSuite string) {
	t.Helper()
	reg, err := builtin.Registry(builtin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var apps, names []string
	for _, n := range reg.Names() {
		e, _ := reg.Lookup(n)
		c := e.Capabilities()
		if c.CheckRunApp == "github-actions" {
			continue // Actions' check runs start no check_run workflow
		}
		if c.CheckRunName != "" && !slices.Contains(names, c.CheckRunName) {
			names = append(names, c.CheckRunName)
		}
		if c.CheckRunApp != "" && !slices.Contains(apps, c.CheckRunApp) {
			apps = append(apps, c.CheckRunApp)
		}
	}
	slices.Sort(apps)
	slices.Sort(names)
	js := func(v []string) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	checkRun = fmt.Sprintf("contains(fromJSON('%s'), github.event.check_run.app.slug) || contains(fromJSON('%s'), github.event.check_run.name)", js(apps), js(names))
	checkSuite = fmt.Sprintf("contains(fromJSON('%s'), github.event.check_suite.app.slug)", js(apps))
	return checkRun, checkSuite
}

// TestExamples_CheckRunsOfOtherAppsStartNoJob: every example that wakes on
// check_run or check_suite filters them at job level by the engines' apps
// and check run names, so a CI job's completion costs no runner.
func TestExamples_CheckRunsOfOtherAppsStartNoJob(t *testing.T) {
	t.Parallel()
	checkRun, checkSuite := engineCheckFilter(t)
	for f, wf := range examples(t) {
		for ev, want := range map[string]string{"check_run": checkRun, "check_suite": checkSuite} {
			if _, ok := wf.On[ev]; !ok {
				continue
			}
			for name, job := range wf.Jobs {
				if job.Needs != nil {
					continue // runs only after a first job that filtered
				}
				cond := strings.Join(strings.Fields(job.If), " ")
				if !strings.Contains(cond, "github.event_name != '"+ev+"' || "+want) {
					t.Errorf("%s: job %s wakes on every %s; its if: needs\n  (github.event_name != '%s' || %s)\n got: %s", f, name, ev, ev, want, cond)
				}
			}
		}
	}
}

// TestExamples_TheStartLabelWakesTheLoopAndNoOtherLabelDoes: with
// start-on: command (the default) the `review-loop` label starts a loop,
// so the examples that wake on pull_request listen to `labeled`, and their
// job-level if: lets through only that label.
func TestExamples_TheStartLabelWakesTheLoopAndNoOtherLabelDoes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"review-loop.yml", "review-loop-hardened.yml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On struct {
				PullRequest struct {
					Types []string `yaml:"types"`
				} `yaml:"pull_request"`
			} `yaml:"on"`
			Jobs map[string]struct {
				If    string `yaml:"if"`
				Needs any    `yaml:"needs"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Contains(wf.On.PullRequest.Types, "labeled") {
			t.Errorf("%s: pull_request types %q lack labeled: the review-loop label cannot start a loop", name, wf.On.PullRequest.Types)
		}
		want := "(github.event.action != 'labeled' || github.event.label.name == 'review-loop')"
		for job, j := range wf.Jobs {
			if j.Needs != nil {
				continue
			}
			if cond := strings.Join(strings.Fields(j.If), " "); !strings.Contains(cond, want) {
				t.Errorf("%s: job %s starts a runner for every label; its if: needs %s\n got: %s", name, job, want, cond)
			}
		}
	}
}

// noLoopFilter is the job-level condition that lets a pull_request,
// pull_request_review or pull_request_review_comment event through only
// for a PR with a live loop (it carries action.LiveLabel, rule SW1) or
// one asking for a loop (event.StartLabel): under start-on: command every
// other such wake is one review-loop skips ("no loop on this PR").
func noLoopFilter() string {
	return fmt.Sprintf(`(!contains(fromJSON('["pull_request","pull_request_review","pull_request_review_comment"]'), github.event_name) || contains(github.event.pull_request.labels.*.name, '%s') || contains(github.event.pull_request.labels.*.name, '%s'))`,
		action.LiveLabel, event.StartLabel)
}

// TestExamples_PushesAndReviewsOnPRsWithNoLoopStartNoJob: every example
// that wakes on a PR's pushes or reviews, under the default start-on:
// command, filters them at job level by the loop's labels, so the pushes
// and reviews of every PR without a loop cost no runner.
func TestExamples_PushesAndReviewsOnPRsWithNoLoopStartNoJob(t *testing.T) {
	t.Parallel()
	want := noLoopFilter()
	checked := 0
	for f, wf := range examples(t) {
		wakes := false
		for _, ev := range []string{"pull_request", "pull_request_review", "pull_request_review_comment"} {
			if _, ok := wf.On[ev]; ok {
				wakes = true
			}
		}
		if !wakes {
			continue
		}
		for name, job := range wf.Jobs {
			if job.Needs != nil {
				continue
			}
			auto := false
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "review-loop/review-loop") && s.With["start-on"] == "auto" {
					auto = true
				}
			}
			if auto {
				continue // any wake may start a loop there
			}
			checked++
			if cond := strings.Join(strings.Fields(job.If), " "); !strings.Contains(cond, want) {
				t.Errorf("%s: job %s starts a runner for every push and review on every PR; its if: needs\n  %s\n got: %s", f, name, want, cond)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no example wakes on pull_request events: the test checked nothing")
	}
}

// exampleWorkflow is what the filter tests read of an example workflow.
type exampleWorkflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		If    string `yaml:"if"`
		Needs any    `yaml:"needs"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// examples reads every workflow in docs/examples, by file name.
func examples(t *testing.T) map[string]exampleWorkflow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "examples", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]exampleWorkflow{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf exampleWorkflow
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = wf
	}
	if len(out) == 0 {
		t.Fatal("no example workflows in docs/examples")
	}
	return out
}
