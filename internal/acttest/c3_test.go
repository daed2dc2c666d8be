package acttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// c3Workflow is what TestRule_C3_ reads of an example workflow.
type c3Workflow struct {
	Concurrency any `yaml:"concurrency"`
	Jobs        map[string]struct {
		If          string            `yaml:"if"`
		Needs       any               `yaml:"needs"`
		Concurrency any               `yaml:"concurrency"`
		Outputs     map[string]string `yaml:"outputs"`
		Permissions any               `yaml:"permissions"`
		Steps       []struct {
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestRule_C3_ExampleWorkflowsStartNoJobForNothing parses every example
// workflow (C3): no workflow-level concurrency — GitHub keeps one pending
// run per group and cancels the older one, and every run joins a
// workflow-level group, even one whose jobs are then skipped, so an
// unrelated comment would cancel a pending engine wake; every job has an
// `if:`, so a wake that cannot concern a loop starts no runner; every job
// that runs the loop has a concurrency group of its own; and the hardened
// publish job runs only on the prepare job's `publish` output, which is
// the review-loop step's, as is the artifact upload.
func TestRule_C3_ExampleWorkflowsStartNoJobForNothing(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "examples", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows (%v)", err)
	}
	hardened := 0
	for _, f := range files {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf c3Workflow
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if wf.Concurrency != nil {
			t.Errorf("%s: workflow-level concurrency: every run joins the group, even one whose jobs are skipped, and cancels the pending wake before it; put the group on the job", name)
		}
		prepares := map[string]string{} // prepare job → its review-loop step id
		for job, j := range wf.Jobs {
			if strings.TrimSpace(j.If) == "" {
				t.Errorf("%s: job %s has no if: every event of the workflow starts a runner", name, job)
			}
			for _, s := range j.Steps {
				if !strings.HasPrefix(s.Uses, "review-loop/review-loop@") {
					continue
				}
				if s.With["mode"] != "doctor" && j.Concurrency == nil {
					t.Errorf("%s: job %s runs the loop with no concurrency group of its own", name, job)
				}
				if s.With["mode"] == "prepare" {
					prepares[job] = s.ID
				}
			}
		}
		for job, id := range prepares {
			hardened++
			j := wf.Jobs[job]
			want := "${{ steps." + id + ".outputs.publish }}"
			if id == "" || j.Outputs["publish"] != want {
				t.Errorf("%s: prepare job %s has outputs %v; want publish: %s (the review-loop step needs an id)", name, job, j.Outputs, want)
			}
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && strings.Join(strings.Fields(s.If), " ") != "steps."+id+".outputs.publish == 'true'" {
					t.Errorf("%s: job %s uploads the artifact with if: %q; want it only when there is something to publish", name, job, s.If)
				}
			}
			published := false
			for other, o := range wf.Jobs {
				needs, _ := o.Needs.(string)
				if needs != job {
					continue
				}
				published = true
				if cond := strings.Join(strings.Fields(o.If), " "); cond != "needs."+job+".outputs.publish == 'true'" {
					t.Errorf("%s: job %s needs %s but runs on if: %q; want needs.%s.outputs.publish == 'true': a wake with nothing to write starts no second job", name, other, job, o.If, job)
				}
			}
			if !published {
				t.Errorf("%s: no job publishes what %s prepares", name, job)
			}
		}
	}
	if hardened == 0 {
		t.Fatal("no example has a prepare job: the publish checks checked nothing")
	}
}
