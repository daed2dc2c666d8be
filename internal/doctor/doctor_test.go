package doctor

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

const (
	adminToken   = "ghp_admin"
	pusherToken  = "ghp_pusher"
	readerToken  = "ghp_reader"
	doctorAction = "ghs_actions"
)

// doctorRepo is a repository with every prerequisite of the quick start;
// breakage removes one.
type doctorRepo struct {
	f        *ghfake.Fake
	workflow string
	config   string
	secrets  []string
	bugbot   bool // Bugbot reviewed the open PR
	protect  bool // the open PR's head branch is protected
}

func newDoctorRepo(t *testing.T) *doctorRepo {
	t.Helper()
	wf, err := os.ReadFile(filepath.Join(repoRootDir(), "docs", "examples", "review-loop-hardened.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return &doctorRepo{workflow: string(wf), config: "shared_paths: [src/lib/**]\n",
		secrets: []string{"ANTHROPIC_API_KEY", "REVIEW_LOOP_PUSH_TOKEN", "REVIEW_LOOP_TRIGGER_TOKEN"}, bugbot: true}
}

func (d *doctorRepo) build(t *testing.T) {
	t.Helper()
	f := ghfake.New(ghfake.Options{Now: func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }})
	t.Cleanup(f.Close)
	d.f = f
	f.AddToken(doctorAction, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	for _, u := range []struct {
		token, login, role string
	}{{adminToken, "admin", "admin"}, {pusherToken, "pusher", "write"}, {readerToken, "reader", "read"}} {
		f.AddUser(u.login, 0, false)
		f.AddToken(u.token, ghfake.Identity{Login: u.login})
		defer func() {
			if err := f.SetPermission("octo", "app", u.login, u.role); err != nil {
				t.Fatal(err)
			}
		}()
	}
	if err := f.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"README.md": "app\n"}
	if d.workflow != "" {
		files[".github/workflows/review-loop.yml"] = d.workflow
	}
	if d.config != "" {
		files[".github/review-loop.yml"] = d.config
	}
	if err := f.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.PushCommit("octo", "app", "main", files, "set up"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetProtected("octo", "app", "main", true); err != nil {
		t.Fatal(err)
	}
	n, err := f.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: map[string]string{"a.go": "package a\n"}, Author: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if d.bugbot {
		f.AddUser("cursor", 206951365, true)
		if _, err := f.AddReview("octo", "app", n, ghfake.ReviewOptions{Author: "cursor", Body: "Bugbot reviewed"}); err != nil {
			t.Fatal(err)
		}
	}
	if d.protect {
		if err := f.SetProtected("octo", "app", "feature", true); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range d.secrets {
		f.SetSecret("octo", "app", s)
	}
}

func (d *doctorRepo) input(token string) DoctorInput {
	return DoctorInput{Owner: "octo", Repo: "app", GitHubToken: token, PushToken: pusherToken, TriggerToken: adminToken,
		ConfigFile: ".github/review-loop.yml",
		Client: func(tok string) (*github.Client, error) {
			return github.New(github.Options{Token: tok, APIURL: d.f.URL(), GraphQLURL: d.f.GraphQLURL(), MaxRetries: 1, RetryBackoff: time.Millisecond})
		}}
}

func statuses(checks []DoctorCheck) map[string]DoctorCheck {
	out := map[string]DoctorCheck{}
	for _, c := range checks {
		out[c.Name] = c
	}
	return out
}

var doctorChecks = []string{"workflow on the default branch", "workflow permissions", "push token", "trigger token", "secrets", "engines seen", "branch protection", "config"}

// TestDoctor_EachMissingPrerequisiteIsNamedWithItsFix: a repository with
// everything passes every check; taking one prerequisite away fails
// exactly its check, with a fix, and doctor writes nothing.
func TestDoctor_EachMissingPrerequisiteIsNamedWithItsFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, check string
		br          func(*doctorRepo, *DoctorInput)
	}{
		{"complete", "", nil},
		{"no workflow on the default branch", "workflow on the default branch", func(d *doctorRepo, _ *DoctorInput) { d.workflow = "" }},
		{"no checks: write", "workflow permissions", func(d *doctorRepo, _ *DoctorInput) {
			d.workflow = strings.Replace(d.workflow, "checks: write", "checks: read", 1)
		}},
		{"a push token that may not push", "push token", func(_ *doctorRepo, in *DoctorInput) { in.PushToken = readerToken }},
		{"a bot as trigger token", "trigger token", func(_ *doctorRepo, in *DoctorInput) { in.TriggerToken = doctorAction }},
		{"no Anthropic key secret", "secrets", func(d *doctorRepo, _ *DoctorInput) { d.secrets = d.secrets[1:] }},
		{"no engine seen", "engines seen", func(d *doctorRepo, _ *DoctorInput) { d.bugbot = false }},
		{"the PR branch protected", "branch protection", func(d *doctorRepo, _ *DoctorInput) { d.protect = true }},
		{"an unknown config key", "config", func(d *doctorRepo, _ *DoctorInput) { d.config = "shared-paths: [src/lib/**]\n" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorRepo(t)
			in := d.input(adminToken)
			if tc.br != nil {
				tc.br(d, &in)
			}
			d.build(t)
			in.Client = d.input(adminToken).Client
			d.f.ResetRequests()
			checks := Doctor(context.Background(), in)
			got := statuses(checks)
			for _, name := range doctorChecks {
				if tc.check == "workflow on the default branch" && name == "workflow permissions" {
					continue // no workflow, no permissions to read
				}
				c, ok := got[name]
				want := DoctorOK
				if name == tc.check {
					want = DoctorMissing
				}
				if !ok || c.Status != want {
					t.Errorf("%s: %+v, want %s", name, c, want)
				}
				if want == DoctorMissing && c.Fix == "" {
					t.Errorf("%s: missing with no fix", name)
				}
			}
			for _, r := range d.f.Requests() {
				if r.Method != http.MethodGet && r.Operation != "query" {
					t.Errorf("doctor wrote: %+v", r)
				}
			}
			var out bytes.Buffer
			if ok := WriteDoctor(&out, "octo/app", checks); ok != (tc.check == "") {
				t.Errorf("WriteDoctor ok = %v:\n%s", ok, out.String())
			}
		})
	}
}

// TestDoctor_SecretsAnActionsTokenCannotSee: GitHub never shows secrets
// to an Actions token; doctor says it cannot see them instead of guessing.
func TestDoctor_SecretsAnActionsTokenCannotSee(t *testing.T) {
	t.Parallel()
	d := newDoctorRepo(t)
	d.build(t)
	c := statuses(Doctor(context.Background(), d.input(doctorAction)))["secrets"]
	if c.Status != DoctorUnknown || !strings.Contains(c.Fix, "Settings → Secrets") {
		t.Errorf("secrets with an Actions token: %+v", c)
	}
}
