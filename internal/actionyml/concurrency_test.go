package actionyml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// prNumberExpr is, per event, the expression naming the event's PR.
var prNumberExpr = map[string]string{
	"pull_request":                "github.event.pull_request.number",
	"pull_request_review":         "github.event.pull_request.number",
	"pull_request_review_comment": "github.event.pull_request.number",
	"issue_comment":               "github.event.issue.number",
	"check_run":                   "github.event.check_run.pull_requests[0].number",
	"check_suite":                 "github.event.check_suite.pull_requests[0].number",
	"workflow_run":                "github.event.workflow_run.pull_requests[0].number",
	"workflow_dispatch":           "inputs.pr",
}

// TestRule_CC_concurrencyGroupNamesThePRForEveryEvent: two runs for one PR
// share a concurrency group whatever woke them, check_run, check_suite and
// workflow_run included; otherwise they fall back to the run id and race.
func TestRule_CC_concurrencyGroupNamesThePRForEveryEvent(t *testing.T) {
	t.Parallel()
	for _, f := range workflowFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The examples and any workflow that runs a released review-loop;
		// ci.yml's smoke run of `uses: ./` is grouped by ref.
		if filepath.Base(filepath.Dir(f)) != "examples" && !strings.Contains(string(b), "review-loop/review-loop@") {
			continue
		}
		// doctor and report read only and concern no pull request.
		if strings.Contains(string(b), "mode: doctor") || strings.Contains(string(b), "report \"$GITHUB_REPOSITORY\"") {
			continue
		}
		var wf struct {
			On          map[string]any `yaml:"on"`
			Concurrency struct {
				Group string `yaml:"group"`
			} `yaml:"concurrency"`
			Jobs map[string]struct {
				Concurrency struct {
					Group string `yaml:"group"`
				} `yaml:"concurrency"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		groups := []string{wf.Concurrency.Group}
		for _, j := range wf.Jobs {
			groups = append(groups, j.Concurrency.Group)
		}
		group := strings.Join(groups, " ")
		for ev := range wf.On {
			want, ok := prNumberExpr[ev]
			if !ok {
				continue
			}
			if !strings.Contains(group, want) {
				t.Errorf("%s: runs on %s but its concurrency group %q does not name %s", filepath.Base(f), ev, strings.TrimSpace(group), want)
			}
		}
	}
}
