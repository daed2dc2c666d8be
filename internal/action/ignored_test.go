package action

import (
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/ghfake"
)

// C2: an event that does not concern review-loop is answered before the
// first request, with and without a checkout step (without one, the
// config file would be read from the default branch: not for this).
func TestRule_C2_AnIgnoredEventMakesNoRequest(t *testing.T) {
	t.Parallel()
	repo := map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}}
	events := []struct {
		name    string
		payload map[string]any
	}{
		{"push", map[string]any{"ref": "refs/heads/main", "repository": repo}},
		{"issues", map[string]any{"action": "opened", "repository": repo}},
		{"issue_comment", map[string]any{"action": "created", "repository": repo, "sender": map[string]any{"login": "maintainer"},
			"issue":   map[string]any{"number": 1, "pull_request": map[string]any{"url": "x"}},
			"comment": map[string]any{"id": 5, "body": "looks good to me", "author_association": "OWNER", "user": map[string]any{"login": "maintainer"}}}},
		{"check_run", map[string]any{"action": "completed", "repository": repo,
			"check_run": map[string]any{"id": 1, "name": "build", "head_sha": "abc", "status": "completed", "conclusion": "success",
				"app": map[string]any{"slug": "github-actions"}}}},
		{"check_run", map[string]any{"action": "created", "repository": repo,
			"check_run": map[string]any{"id": 2, "name": "Cursor Bugbot", "head_sha": "abc", "status": "queued",
				"app": map[string]any{"slug": "cursor"}}}},
	}
	for _, checkout := range []bool{true, false} {
		// One world per mode: an ignored event changes nothing in it.
		w := newWorld(t, nil)
		if !checkout {
			w.workspace = t.TempDir()
			w.env["GITHUB_WORKSPACE"], w.env["GITHUB_SERVER_URL"] = w.workspace, w.fake.URL()
		}
		for _, ev := range events {
			w.out.Reset()
			w.fake.ResetRequests()
			res, err := w.cycle(ev.name, ev.payload, map[string]string{"engines": "bugbot,copilot"})
			if err != nil {
				t.Fatalf("%s (checkout %v): %v", ev.name, checkout, err)
			}
			if res.Wake.Kind != event.KindIgnore {
				t.Fatalf("%s (checkout %v): wake %s, want ignored", ev.name, checkout, res.Wake.Kind)
			}
			if n := len(w.fake.Requests()); n != 0 {
				t.Errorf("%s (checkout %v): ignored event made %d requests, want 0: %v", ev.name, checkout, n, w.fake.Requests())
			}
			if g := w.fake.GitRequests(); len(g) != 0 {
				t.Errorf("%s (checkout %v): ignored event made %d git requests", ev.name, checkout, len(g))
			}
			if !strings.Contains(w.out.String(), "nothing to do") {
				t.Errorf("%s (checkout %v): no notice says why:\n%s", ev.name, checkout, w.out.String())
			}
		}
	}
}

// Fail fast (C2): with no checkout, a wrong input is reported as such
// before any request, not as a failure to read the config file. An engine
// name no built-in engine has costs the one read of the config file that
// could define it, and the error names the engine.
func TestRule_C2_ABadInputFailsBeforeTheFirstRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		inputs   map[string]string
		event    string
		want     string
		requests int
	}{
		{"a missing event name", map[string]string{"engines": "copilot"}, "", "GITHUB_EVENT_NAME", 0},
		{"a negative bound", map[string]string{"max-commits": "-1"}, "workflow_dispatch", "max-commits", 0},
		{"an unknown engine", map[string]string{"engines": "copilto"}, "workflow_dispatch", "copilto", 1},
	} {
		w := newWorld(t, nil)
		w.workspace = t.TempDir()
		w.env["GITHUB_WORKSPACE"], w.env["GITHUB_SERVER_URL"] = w.workspace, w.fake.URL()
		w.fake.ResetRequests()
		_, err := w.cycle(tc.event, dispatchPayload(1), tc.inputs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
		if n := len(w.fake.Requests()); n != tc.requests {
			t.Errorf("%s: %d requests before the error, want %d: %v", tc.name, n, tc.requests, w.fake.Requests())
		}
	}
}

// C2 with no checkout: the config file comes with the observation, so a
// check run of an engine only the default branch's config defines still
// wakes the loop, and one of an app nothing watches is dismissed after
// that one read, without a write.
func TestRule_C2_WithoutACheckoutTheConfigComesWithTheObservation(t *testing.T) {
	t.Parallel()
	w := treelessWorld(t)
	if err := w.fake.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	def := "engines:\n  - name: sonar\n    author: {logins: [sonarbot]}\n    check_run: Sonar\n    check_run_app: sonarcloud\n"
	if _, err := w.fake.PushCommit("octo", "app", "main", map[string]string{".github/review-loop.yml": def}, "define sonar"); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	checkRun := func(name, app string) map[string]any {
		return map[string]any{"action": "completed",
			"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
			"check_run": map[string]any{"id": 9, "name": name, "head_sha": head, "status": "completed", "conclusion": "neutral",
				"app": map[string]any{"slug": app}, "pull_requests": []any{map[string]any{"number": 1, "head": map[string]any{"ref": "feature", "sha": head}}}}}
	}
	in := map[string]string{"engines": "copilot", "start-on": "auto"}
	res, err := w.cycle("check_run", checkRun("Sonar", "sonarcloud"), in)
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if len(res.PRs) != 1 || res.PRs[0].Skipped != "" {
		t.Fatalf("the defined engine's check run did not cycle the loop: %+v", res.PRs)
	}
	if g := w.fake.Requests(); len(g) == 0 || slices.ContainsFunc(g, func(r ghfake.Request) bool { return strings.Contains(r.Path, "/contents/") }) {
		t.Errorf("the config file was read apart from the observation: %v", g)
	}
	w.fake.ResetRequests()
	res, err = w.cycle("check_run", checkRun("lint", "circleci"), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PRs) != 1 || !strings.Contains(res.PRs[0].Skipped, "no watched engine") {
		t.Fatalf("a check run nothing watches was not dismissed: %+v %+v\n%s", res.Wake, res.PRs, w.out.String())
	}
	if reads, writes, _ := w.requestsOf(); reads != 1 || writes != 0 {
		t.Errorf("dismissing it cost %d reads and %d writes, want the one observation", reads, writes)
	}
}
