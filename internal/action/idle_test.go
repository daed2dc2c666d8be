package action

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// requestsOf splits the fake's logged requests by our token into counted
// reads, writes and the free GET /rate_limit reads.
func (w *world) requestsOf() (reads, writes, free int) {
	for _, r := range w.fake.Requests() {
		switch {
		case r.Login != "github-actions":
		case r.Path == "/rate_limit":
			free++
		case r.Method == "GET" || r.Operation == "query":
			reads++
		default:
			writes++
		}
	}
	return reads, writes, free
}

// C2: a wake of a live loop on which nothing changed (the engine still
// reviewing, nothing new) makes one counted read, the observe query, and
// writes nothing: the status comment already says "idle since …". Without
// a checkout step the config file comes in the same query.
func TestRule_C2_IdleWakeMakesOneReadAndNoWrite(t *testing.T) {
	t.Parallel()
	for _, checkout := range []bool{true, false} {
		t.Run(map[bool]string{true: "checkout-step", false: "no-checkout"}[checkout], func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			if !checkout {
				w.workspace = t.TempDir()
				w.env["GITHUB_WORKSPACE"], w.env["GITHUB_SERVER_URL"] = w.workspace, w.fake.URL()
			}
			in := map[string]string{"engines": "copilot", "stall-factor": "100"}
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
				t.Fatal(err)
			}
			// The first wait records the wait; the wakes after it are idle.
			w.now = w.now.Add(3 * time.Minute)
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
				t.Fatal(err)
			}
			_, before := statusState(t, w.fake)
			for i := range 3 {
				w.now = w.now.Add(4*time.Minute + 30*time.Second)
				w.env["GITHUB_RUN_ID"] = "9" + itoa(i)
				w.fake.ResetRequests()
				res, err := w.cycle("workflow_dispatch", dispatchPayload(1), in)
				if err != nil {
					t.Fatal(err)
				}
				if a := res.PRs[0].Plan.Action; a != loop.ActionWait {
					t.Fatalf("idle wake %d planned %s, want wait", i, a)
				}
				if reads, writes, _ := w.requestsOf(); reads != 1 || writes != 0 {
					t.Errorf("idle wake %d: %d reads and %d writes, want 1 read (the observe query) and 0 writes: %v", i, reads, writes, w.fake.Requests())
				}
				if g := w.fake.GitRequests(); len(g) != 0 {
					t.Errorf("idle wake %d made %d git requests", i, len(g))
				}
			}
			if _, after := statusState(t, w.fake); after != before {
				t.Errorf("an idle wake changed the status comment:\n%s\n---\n%s", before, after)
			}
		})
	}
}

// C2 (extended): while a next wake is planned — a quota cooldown (T8)
// here — a wake that finds nothing new writes nothing either: the status
// comment already names the planned wake. The first wake after the
// refusal says so; the wakes after it make one read and no write.
func TestRule_C2_IdleWakeWritesNothingWhileAWakeIsPlanned(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/pulls/1/copilot-code-review", Status: 429,
		Message: "Copilot code review quota exceeded for this billing period"})
	in := map[string]string{"engines": "copilot"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(2 * time.Minute)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	_, before := statusState(t, w.fake)
	for i := range 3 {
		w.now = w.now.Add(4*time.Minute + 30*time.Second)
		w.env["GITHUB_RUN_ID"] = "7" + itoa(i)
		w.fake.ResetRequests()
		res, err := w.cycle("workflow_dispatch", dispatchPayload(1), in)
		if err != nil {
			t.Fatal(err)
		}
		if p := res.PRs[0].Plan; p.Action != loop.ActionWait || p.WakeAt.IsZero() {
			t.Fatalf("wake %d during the cooldown planned %s (wake at %v), want a wait with a planned wake", i, p.Action, p.WakeAt)
		}
		if reads, writes, _ := w.requestsOf(); reads != 1 || writes != 0 {
			t.Errorf("wake %d during the cooldown: %d reads and %d writes, want 1 read and 0 writes: %v", i, reads, writes, w.fake.Requests())
		}
	}
	if _, after := statusState(t, w.fake); after != before {
		t.Errorf("a wake during the cooldown changed the status comment:\n%s\n---\n%s", before, after)
	}
}
