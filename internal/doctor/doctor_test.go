package doctor

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
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
	pusherID     = 4242
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
	gate     bool // a ruleset on main requires review-loop's check run
	rulesets []ghfake.Ruleset
}

func newDoctorRepo(t *testing.T) *doctorRepo {
	t.Helper()
	wf, err := os.ReadFile(filepath.Join(repoRootDir(), "docs", "examples", "review-loop-hardened.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return &doctorRepo{workflow: string(wf), config: "shared_paths: [src/lib/**]\n",
		secrets: []string{"ANTHROPIC_API_KEY", "REVIEW_LOOP_PUSH_TOKEN", "REVIEW_LOOP_TRIGGER_TOKEN"}, bugbot: true, gate: true}
}

func (d *doctorRepo) build(t *testing.T) {
	t.Helper()
	f := ghfake.New(ghfake.Options{Now: func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }})
	t.Cleanup(f.Close)
	d.f = f
	f.AddToken(doctorAction, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	for _, u := range []struct {
		token, login, role string
		id                 int64
	}{{adminToken, "admin", "admin", 0}, {pusherToken, "pusher", "write", pusherID}, {readerToken, "reader", "read", 0}} {
		f.AddUser(u.login, u.id, false)
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
	rulesets := d.rulesets
	if d.gate {
		rulesets = append(rulesets, ghfake.Ruleset{Name: "merge gate", Include: []string{"~DEFAULT_BRANCH"},
			Rules: []ghfake.RulesetRule{{Type: "required_status_checks", StatusChecks: []string{"review-loop"}}, {Type: "pull_request"}}})
	}
	for _, rs := range rulesets {
		if _, err := f.AddRuleset("octo", "app", rs); err != nil {
			t.Fatal(err)
		}
	}
}

func (d *doctorRepo) input(token string) DoctorInput {
	server := ""
	if d.f != nil {
		server = d.f.URL()
	}
	return DoctorInput{Owner: "octo", Repo: "app", GitHubToken: token, PushToken: pusherToken, TriggerToken: adminToken,
		ConfigFile: ".github/review-loop.yml", ServerURL: server,
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

var doctorChecks = []string{"workflow on the default branch", "workflow permissions", "push token", "trigger token", "secrets", "engines seen", "branch protection", "rulesets on PR branches", "merge gate", "config"}

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
		{"a ruleset requiring signed commits on PR branches", "rulesets on PR branches", func(d *doctorRepo, _ *DoctorInput) {
			d.rulesets = []ghfake.Ruleset{{Name: "signed", Include: []string{"~ALL"}, Exclude: []string{"~DEFAULT_BRANCH"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}}}
		}},
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
			in.Client, in.ServerURL = d.input(adminToken).Client, d.f.URL()
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

// pushAs pushes one commit to the open PR's branch over the fake's HTTP
// git server with the token, as review-loop's fix push does, and reports
// whether the push landed.
func (d *doctorRepo) pushAs(t *testing.T, token string) (bool, string) {
	t.Helper()
	h := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	env := append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http."+d.f.URL()+"/.extraheader", "GIT_CONFIG_VALUE_0="+h)
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	url := d.f.URL() + "/octo/app.git"
	for _, args := range [][]string{{"init", "-q"}, {"fetch", "-q", "--depth=1", url, "refs/heads/feature"}, {"checkout", "-q", "FETCH_HEAD"},
		{"commit", "-q", "--allow-empty", "-m", "fix(review): a finding"}} {
		if out, err := run(args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := run("push", url, "HEAD:refs/heads/feature")
	return err == nil, out
}

// TestDoctor_RulesetsThatRefuseTheFixPushAreNamedWithTheirFix: an active
// ruleset rule on the PR branches that refuses review-loop's fix push
// (unsigned commits, required checks, restricted updates, pull requests
// only) is a miss with its fix; a rule the push identity may bypass, an
// evaluate-mode ruleset, a rule on the default branch only and the rules
// a fast-forward push meets are not; a rule doctor cannot judge is said
// so. Each verdict is checked against a real push to the fake with the
// push token.
func TestDoctor_RulesetsThatRefuseTheFixPushAreNamedWithTheirFix(t *testing.T) {
	t.Parallel()
	prBranches := []string{"~ALL"}
	for _, tc := range []struct {
		name   string
		rs     ghfake.Ruleset
		status string
		detail []string // in the check's detail
		fix    string   // in the check's fix
	}{
		{"signed commits", ghfake.Ruleset{Name: "signed", Include: prBranches, Exclude: []string{"~DEFAULT_BRANCH"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}},
			DoctorMissing, []string{"feature (PR #1): required_signatures of ruleset \"signed\"", "unsigned"}, "require signed commits on the default branch only"},
		{"required checks on every branch", ghfake.Ruleset{Name: "ci", Include: prBranches, Rules: []ghfake.RulesetRule{{Type: "required_status_checks", StatusChecks: []string{"build", "test"}}}},
			DoctorMissing, []string{"required_status_checks", "(build, test) have not passed"}, "require the checks on the default branch only"},
		{"updates restricted", ghfake.Ruleset{Name: "frozen", Include: []string{"refs/heads/feat*"}, Rules: []ghfake.RulesetRule{{Type: "update"}}},
			DoctorMissing, []string{"update of ruleset \"frozen\"", "bypass list may push"}, "add the push token's user or app to its bypass list"},
		{"pull requests only", ghfake.Ruleset{Name: "via PR", Include: prBranches, Rules: []ghfake.RulesetRule{{Type: "pull_request"}}},
			DoctorMissing, []string{"pull_request", "direct push is refused"}, "`~DEFAULT_BRANCH`"},
		{"the push token may bypass", ghfake.Ruleset{Name: "frozen", Include: prBranches, BypassUsers: []int64{pusherID}, Rules: []ghfake.RulesetRule{{Type: "update"}}},
			DoctorOK, []string{"the push token may bypass update of ruleset \"frozen\""}, ""},
		{"evaluate mode", ghfake.Ruleset{Name: "trial", Enforcement: "evaluate", Include: prBranches, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}},
			DoctorOK, []string{"no active ruleset rule refuses a fix push to feature"}, ""},
		{"fast-forward rules", ghfake.Ruleset{Name: "history", Include: prBranches, Rules: []ghfake.RulesetRule{{Type: "non_fast_forward"}, {Type: "deletion"}, {Type: "creation"}, {Type: "required_linear_history"}}},
			DoctorOK, []string{"no active ruleset rule refuses"}, ""},
		{"a rule doctor cannot judge", ghfake.Ruleset{Name: "queue", Include: prBranches, Rules: []ghfake.RulesetRule{{Type: "merge_queue"}}},
			DoctorUnknown, []string{"merge_queue of ruleset \"queue\""}, "`fix(review): …` pushed by the push token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorRepo(t)
			d.rulesets = []ghfake.Ruleset{tc.rs}
			d.build(t)
			d.f.ResetRequests()
			c := statuses(Doctor(context.Background(), d.input(adminToken)))["rulesets on PR branches"]
			if c.Status != tc.status {
				t.Fatalf("rulesets check: %+v, want %s", c, tc.status)
			}
			for _, want := range tc.detail {
				if !strings.Contains(c.Detail, want) {
					t.Errorf("detail lacks %q: %s", want, c.Detail)
				}
			}
			if !strings.Contains(c.Fix, tc.fix) {
				t.Errorf("fix lacks %q: %q", tc.fix, c.Fix)
			}
			for _, r := range d.f.Requests() {
				if r.Method != http.MethodGet && r.Operation != "query" {
					t.Errorf("doctor wrote: %+v", r)
				}
			}
			// What doctor says against what GitHub (the fake) does with
			// the fix push. A rule doctor cannot judge is left out.
			if tc.status == DoctorUnknown {
				return
			}
			if pushed, out := d.pushAs(t, pusherToken); pushed != (tc.status == DoctorOK) {
				t.Errorf("doctor says %s, but the push landed = %v:\n%s", tc.status, pushed, out)
			}
		})
	}
}

// TestDoctor_MergeGateIsTheRulesetsRequiredCheck: review-loop's check run
// required by a ruleset on the default branch is the merge gate; without
// it doctor notes what is lost and how to add it, naming the check run,
// not the job.
func TestDoctor_MergeGateIsTheRulesetsRequiredCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		gate   bool
		rs     []ghfake.Ruleset
		status string
		detail string
	}{
		{"required", true, nil, DoctorOK, `requires the check "review-loop" on main`},
		{"no ruleset", false, nil, DoctorNote, `no active ruleset on main requires the check "review-loop"`},
		{"the job's name required instead", false, []ghfake.Ruleset{{Name: "ci", Include: []string{"~DEFAULT_BRANCH"},
			Rules: []ghfake.RulesetRule{{Type: "required_status_checks", StatusChecks: []string{"review-loop cycle"}}}}}, DoctorNote, "(it requires review-loop cycle)"},
		{"in evaluate mode", false, []ghfake.Ruleset{{Name: "gate", Enforcement: "evaluate", Include: []string{"~DEFAULT_BRANCH"},
			Rules: []ghfake.RulesetRule{{Type: "required_status_checks", StatusChecks: []string{"review-loop"}}}}}, DoctorNote, "no active ruleset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorRepo(t)
			d.gate, d.rulesets = tc.gate, tc.rs
			d.build(t)
			c := statuses(Doctor(context.Background(), d.input(adminToken)))["merge gate"]
			if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) {
				t.Fatalf("merge gate: %+v, want %s with %q", c, tc.status, tc.detail)
			}
			if c.Status != DoctorOK && !strings.Contains(c.Fix, `add "review-loop" (review-loop's check run, not the job's name)`) {
				t.Errorf("fix: %q", c.Fix)
			}
		})
	}
}

// TestDoctor_PushTokenAsTheGitServerSeesIt: neither an app installation
// token nor a fine-grained token can read its own permissions through the
// API, so doctor asks the git server for the push's receive-pack
// advertisement, which GitHub answers only to a token that may push. An
// app token that may push passes, one that may not is a miss with the
// permission to grant, and when the git server does not answer doctor
// says exactly what to check; a user with write access whose token may
// not push is a miss too. No token appears in the checklist.
func TestDoctor_PushTokenAsTheGitServerSeesIt(t *testing.T) {
	t.Parallel()
	const (
		appWrite  = "ghs_app_contents_write"
		appRead   = "ghs_app_contents_read"
		adminRead = "github_pat_admin_contents_read"
	)
	for _, tc := range []struct {
		name, token, server string
		status, detail, fix string
	}{
		{"an app token that may push", appWrite, "", DoctorOK, "an app token (fixer-app): the git server accepts it for a push to octo/app (Contents: write)", ""},
		{"an app token that may not push", appRead, "", DoctorMissing, "the git server refuses it a push to octo/app", "Repository permissions → Contents: Read and write"},
		{"an app token, the git server unreachable", appWrite, "http://127.0.0.1:1", DoctorUnknown, "its permissions are not readable with the token itself", "check the app's installation (Settings → GitHub Apps → Configure): Repository permissions → Contents: Read and write, and octo/app among its repositories"},
		{"an admin's token without Contents: write", adminRead, "", DoctorMissing, "@admin has admin, but the git server refuses this token a push", "Contents: Read and write on octo/app (fine-grained)"},
		{"a writer's token", pusherToken, "", DoctorOK, "@pusher has write, and the git server accepts the token for a push", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorRepo(t)
			d.build(t)
			d.f.AddToken(appWrite, ghfake.Identity{Login: "fixer-app", ID: 9001, Bot: true})
			d.f.AddToken(appRead, ghfake.Identity{Login: "fixer-app", ID: 9001, Bot: true, ReadOnly: true})
			d.f.AddToken(adminRead, ghfake.Identity{Login: "admin", ReadOnly: true})
			in := d.input(adminToken)
			in.PushToken = tc.token
			if tc.server != "" {
				in.ServerURL = tc.server
			}
			checks := Doctor(context.Background(), in)
			c := statuses(checks)["push token"]
			if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) || !strings.Contains(c.Fix, tc.fix) {
				t.Fatalf("push token: %+v\nwant %s, detail with %q, fix with %q", c, tc.status, tc.detail, tc.fix)
			}
			var out bytes.Buffer
			WriteDoctor(&out, "octo/app", checks)
			if strings.Contains(out.String(), tc.token) {
				t.Errorf("the checklist prints the token:\n%s", out.String())
			}
			for _, g := range d.f.GitRequests() {
				if g.Method != http.MethodGet || g.Service != "git-receive-pack" {
					t.Errorf("doctor's git request %+v, want only the receive-pack advertisement", g)
				}
			}
		})
	}
}

// TestDoctor_TheConfigFileIsCheckedAsACycleWouldAdoptIt: a misspelt
// engine under `prices` is missing, not valid, in the repository's file
// and in a local file given instead of it; a local file replaces the
// repository's for every check that reads the config.
func TestDoctor_TheConfigFileIsCheckedAsACycleWouldAdoptIt(t *testing.T) {
	t.Parallel()
	const typo = "prices:\n  bugbott: 0.5\n"
	for _, tc := range []struct {
		name, repoConfig string
		local            *LocalFile
		check, want      string
		status           string
	}{
		{"the repository's file", typo, nil, "config", "prices.bugbott: unknown engine (did you mean bugbot?", DoctorMissing},
		{"a local file instead of a valid one", "shared_paths: [a/**]\n", &LocalFile{Path: "local.yml", Raw: []byte(typo)},
			"config (local file)", "local.yml: prices.bugbott: unknown engine", DoctorMissing},
		{"a valid local file instead of a broken one", typo, &LocalFile{Path: "local.yml", Raw: []byte("prices:\n  bugbot: 0.5\n")},
			"config (local file)", "local.yml: valid", DoctorOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorRepo(t)
			d.config = tc.repoConfig
			d.build(t)
			in := d.input(adminToken)
			in.LocalConfig = tc.local
			got := statuses(Doctor(context.Background(), in))
			c := got[tc.check]
			if c.Status != tc.status || !strings.Contains(c.Detail, tc.want) {
				t.Errorf("%s: %+v, want %s with %q", tc.check, c, tc.status, tc.want)
			}
			if tc.local != nil {
				if _, ok := got["config"]; ok {
					t.Errorf("the repository's config was checked beside the local file: %+v", got["config"])
				}
			}
		})
	}
}

// TestDoctor_AnUnreachableGitHubIsTheNetworkAndARefusedTokenTheToken:
// the first read failing says whose fault it is: no answer at all is the
// network's (the token was never looked at), a 401 the token's.
func TestDoctor_AnUnreachableGitHubIsTheNetworkAndARefusedTokenTheToken(t *testing.T) {
	t.Parallel()
	d := newDoctorRepo(t)
	d.build(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	in := d.input(adminToken)
	in.Client = func(tok string) (*github.Client, error) {
		return github.New(github.Options{Token: tok, APIURL: closed, GraphQLURL: closed + "/graphql", MaxRetries: 1, RetryBackoff: time.Millisecond})
	}
	checks := Doctor(context.Background(), in)
	if len(checks) != 1 || checks[0].Name != "network" || !strings.Contains(checks[0].Detail, "cannot reach "+l.Addr().String()) || strings.Contains(checks[0].Fix, "token") {
		t.Errorf("offline: %+v, want one network check whose fix is not the token", checks)
	}
	checks = Doctor(context.Background(), d.input("ghp_unknown"))
	if len(checks) != 1 || checks[0].Name != "token" || !strings.Contains(checks[0].Detail, "401") {
		t.Errorf("an unknown token: %+v, want one token check naming the 401", checks)
	}
}

// TestDoctor_TheFirstReadFailingNamesWhoseFaultItIs: each way the first
// read fails gets its own check and fix; only the network's says the
// token was not checked.
func TestDoctor_TheFirstReadFailingNamesWhoseFaultItIs(t *testing.T) {
	t.Parallel()
	in := DoctorInput{Owner: "octo", Repo: "app"}
	offline := &url.Error{Op: "Post", URL: "https://api.example.invalid/graphql", Err: &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}}
	for _, tc := range []struct {
		name       string
		err        error
		check, fix string
	}{
		{"no answer", offline, "network", "check the connection"},
		{"401", &github.APIError{Op: "repository.object", Status: http.StatusUnauthorized, Message: "Bad credentials"}, "token", "set a valid token"},
		{"403", &github.APIError{Op: "repository.object", Status: http.StatusForbidden, Message: "Resource not accessible by personal access token"}, "repository", "a fine-grained token must include the repository"},
		{"404", &github.APIError{Op: "repository.object", Status: http.StatusNotFound, Message: "repository octo/app not found"}, "repository", "check the name"},
	} {
		c := unreachable(in, fmt.Errorf("reading workflow files of octo/app at HEAD: %w", tc.err))
		if c.Name != tc.check || c.Status != DoctorMissing || !strings.Contains(c.Fix, tc.fix) {
			t.Errorf("%s: %+v, want %s with a fix that says %q", tc.name, c, tc.check, tc.fix)
		}
		if (tc.check == "network") != strings.Contains(c.Detail, "the token included") {
			t.Errorf("%s: %q: only the network says the token was not checked", tc.name, c.Detail)
		}
	}
}

// S12: doctor lists the engines' words in force, the built-in patterns
// of engines/defs/ and the repository's engine_texts, each with its
// engine, class and origin.
func TestRule_S12_DoctorListsTheTextsInForce(t *testing.T) {
	t.Parallel()
	d := newDoctorRepo(t)
	d.config = "engine_texts:\n  copilot:\n    quota: [\"Copilot ran out of premium requests\"]\n"
	d.build(t)
	checks := Doctor(context.Background(), d.input(adminToken))
	c, ok := statuses(checks)["engine texts"]
	if !ok || c.Status != DoctorOK {
		t.Fatalf("engine texts: %+v", c)
	}
	for _, want := range []string{
		"bugbot · proof · built-in · review-clean: (?m)^\\s*(?:✅\\s*)?(?:Cursor )?Bugbot (?:has )?reviewed your changes",
		"bugbot · quota · built-in · usage-limit:",
		"copilot · proof · built-in · overview-classic:",
		"copilot · quota · repository · : Copilot ran out of premium requests",
		"claude · in-progress · built-in · action-working:",
		"coderabbit · proof · built-in · actionable-comments:",
		"coderabbit · quota · built-in · phrase: ## Rate limit exceeded",
		"coderabbit · pause · built-in · phrase: ## Reviews paused",
		"gemini · quota · built-in · phrase: You have reached your daily quota limit",
	} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("doctor's texts lack %q:\n%s", want, c.Detail)
		}
	}
	var out bytes.Buffer
	WriteDoctor(&out, "octo/app", checks)
	if !strings.Contains(out.String(), "engine texts:") {
		t.Errorf("the checklist does not print the texts:\n%s", out.String())
	}
}

// EQ3: doctor lists the severity mapping in force per engine: the Go
// engines' engine_severity_markers and the declarative definitions'
// severity_markers and body sections, built-in and the repository's,
// each with the place on the scale it maps to; an engine that states no
// severity is listed as counting as medium.
func TestRule_EQ3_DoctorListsTheSeverityMappingInForce(t *testing.T) {
	t.Parallel()
	d := newDoctorRepo(t)
	d.config = "engines:\n  - name: mybot\n    author:\n      logins: [my-bot]\n    severity_markers:\n      - pattern: '\\[blocker\\]'\n        severity: critical\n" +
		"  - name: quietbot\n    author:\n      logins: [quiet-bot]\n" +
		"engine_severity_markers:\n  bugbot:\n    - pattern: '\\*\\*Blocker\\*\\*'\n      severity: critical\n      category: blocker\n"
	d.build(t)
	checks := Doctor(context.Background(), d.input(adminToken))
	c, ok := statuses(checks)["engine severities"]
	if !ok || c.Status != DoctorOK {
		t.Fatalf("engine severities: %+v", c)
	}
	for _, want := range []string{
		`bugbot · built-in · critical: (?i)\*\*\s*critical\s+severity\s*\*\*`,
		`bugbot · built-in · low: (?i)\*\*\s*low\s+severity\s*\*\*`,
		"claude · built-in · high (important): (?m)^\\s*(?:\\*\\*)?\\s*🔴",
		"claude · built-in · low (pre-existing):",
		"copilot · built-in · critical: ^\\s*(?:\\*\\s*)?P0\\s*:",
		"coderabbit · built-in · high: _🟠 Major_",
		"coderabbit · built-in · low (🧹 Nitpick): section «Nitpick comments»",
		"gemini · built-in · critical:",
		`mybot · repository · critical: \[blocker\]`,
		"quietbot · repository · states none: counts as medium",
		`bugbot · repository · critical (blocker): \*\*Blocker\*\*`,
	} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("doctor's severities lack %q:\n%s", want, c.Detail)
		}
	}
	// Highest first within an engine.
	if strings.Index(c.Detail, "bugbot · built-in · critical") > strings.Index(c.Detail, "bugbot · built-in · low") {
		t.Errorf("bugbot's markers are not highest first:\n%s", c.Detail)
	}
	var out bytes.Buffer
	WriteDoctor(&out, "octo/app", checks)
	if !strings.Contains(out.String(), "engine severities:") {
		t.Errorf("the checklist does not print the severities:\n%s", out.String())
	}
}
