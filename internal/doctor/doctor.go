// Package doctor is `review-loop doctor`'s checklist: what a repository
// needs before its first loop, read with the repository's own tokens,
// each miss with its fix. It only reads.
package doctor

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/evidence"
	"github.com/review-loop/review-loop/internal/github"
)

// This file is `review-loop doctor`: a read-only checklist of what a
// repository needs before its first loop, each miss with its fix.

// Doctor check outcomes.
const (
	DoctorOK      = "ok"      // the prerequisite is there
	DoctorMissing = "missing" // it is not: the fix says what to do
	DoctorUnknown = "unknown" // the API does not let this token see it
	DoctorNote    = "note"    // optional, with what it costs to leave out
)

// DoctorCheck is one line of `review-loop doctor`'s checklist.
type DoctorCheck struct {
	Name   string
	Status string
	Detail string
	Fix    string
}

// DoctorInput is what doctor checks: one repository, with the tokens the
// workflow gives review-loop. Secrets, in the workflow_dispatch mode, are
// the secret-fed inputs and whether each was passed non-empty; locally
// doctor lists the repository's secrets when the token may.
type DoctorInput struct {
	Owner, Repo  string
	GitHubToken  string
	PushToken    string
	TriggerToken string
	ConfigFile   string
	// Secrets maps a secret name to whether the workflow passed it; nil
	// when doctor runs locally.
	Secrets map[string]bool
	// Client builds a client for a token.
	Client func(token string) (*github.Client, error)
}

// quickStartSecrets are the secrets the quick start's workflow reads, and
// what each is for.
var quickStartSecrets = []struct{ name, why string }{
	{"REVIEW_LOOP_PUSH_TOKEN", "push-token: fix commits that start your CI"},
	{"REVIEW_LOOP_TRIGGER_TOKEN", "trigger-token: `bugbot run`, `@claude review` and other triggers engines ignore from bots"},
	{"ANTHROPIC_API_KEY", "anthropic-api-key: the claude-code fixer and the judge"},
}

// workflowPermissions are what the job that writes (single or publish)
// needs; docs/tokens.md explains each.
var workflowPermissions = []string{"actions: write", "checks: write", "contents: write", "issues: write", "pull-requests: write"}

// Doctor checks one repository's set-up and returns the checklist, each
// miss with its fix. It only reads.
func Doctor(ctx context.Context, in DoctorInput) []DoctorCheck {
	var out []DoctorCheck
	add := func(c DoctorCheck) { out = append(out, c) }
	gh, err := in.Client(in.GitHubToken)
	if err != nil {
		return []DoctorCheck{{Name: "token", Status: DoctorMissing, Detail: err.Error(), Fix: "set GITHUB_TOKEN or GH_TOKEN"}}
	}
	files, err := gh.WorkflowFiles(ctx, in.Owner, in.Repo, "HEAD")
	if err != nil {
		return []DoctorCheck{{Name: "repository", Status: DoctorMissing, Detail: err.Error(),
			Fix: fmt.Sprintf("use a token that can read %s/%s (contents: read)", in.Owner, in.Repo)}}
	}
	wf := reviewLoopWorkflows(files)
	if len(wf) == 0 {
		add(DoctorCheck{Name: "workflow on the default branch", Status: DoctorMissing,
			Detail: "no file in .github/workflows on the default branch uses review-loop/review-loop",
			Fix:    "copy docs/examples/review-loop-hardened.yml to .github/workflows/review-loop.yml and merge it into the default branch first: GitHub runs comment, check, workflow_run and schedule workflows only from there"})
	} else {
		add(DoctorCheck{Name: "workflow on the default branch", Status: DoctorOK, Detail: wf[0].Path})
		add(checkWorkflowPermissions(wf[0]))
	}
	add(checkPushToken(ctx, in))
	add(checkTriggerToken(ctx, in))
	add(checkSecrets(ctx, in, gh))
	recent := sync.OnceValues(func() ([]*github.Observation, error) { return gh.RecentActivity(ctx, in.Owner, in.Repo) })
	add(checkEngines(ctx, in, gh, files, recent))
	add(checkProtection(ctx, in, gh, recent))
	add(checkConfig(ctx, in, gh))
	return out
}

// reviewLoopWorkflows are the workflow files that use the action.
func reviewLoopWorkflows(files []github.File) []github.File {
	var out []github.File
	for _, f := range files {
		if strings.Contains(f.Text, "review-loop/review-loop@") {
			out = append(out, f)
		}
	}
	return out
}

// checkWorkflowPermissions reads the permissions of the workflow's jobs
// that write (every job using the action except a `mode: prepare` or
// `mode: doctor` one, which only read).
func checkWorkflowPermissions(f github.File) DoctorCheck {
	c := DoctorCheck{Name: "workflow permissions"}
	var doc struct {
		Permissions any `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions any `yaml:"permissions"`
			Steps       []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(f.Text), &doc); err != nil {
		c.Status, c.Detail, c.Fix = DoctorMissing, f.Path+": "+config.ProblemLines(err)[0], "fix the workflow's YAML"
		return c
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(doc.Jobs)) {
		j := doc.Jobs[name]
		uses := false
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "review-loop/review-loop@") && s.With["mode"] != config.ModePrepare && s.With["mode"] != config.ModeDoctor {
				uses = true
			}
		}
		if !uses {
			continue
		}
		perms := j.Permissions
		if perms == nil {
			perms = doc.Permissions
		}
		have := permissionSet(perms)
		for _, p := range workflowPermissions {
			if !have[p] {
				missing = append(missing, fmt.Sprintf("job %s: %s", name, p))
			}
		}
	}
	if len(missing) > 0 {
		c.Status, c.Detail = DoctorMissing, f.Path+": "+strings.Join(missing, "; ")
		c.Fix = "grant them under `permissions:` (docs/tokens.md says what each is for)"
		return c
	}
	c.Status, c.Detail = DoctorOK, "the job that writes has "+strings.Join(workflowPermissions, ", ")
	return c
}

// permissionSet reads a permissions block: `write-all`, or a map of scope
// to read/write/none.
func permissionSet(v any) map[string]bool {
	out := map[string]bool{}
	switch p := v.(type) {
	case string:
		if p == "write-all" {
			for _, w := range workflowPermissions {
				out[w] = true
			}
		}
	case map[string]any:
		for k, lvl := range p {
			if fmt.Sprint(lvl) == "write" {
				out[k+": write"] = true
			}
		}
	}
	return out
}

// tokenRole is who a token is and its role on the repository.
func tokenRole(ctx context.Context, in DoctorInput, token string) (login string, bot bool, role string, err error) {
	gh, err := in.Client(token)
	if err != nil {
		return "", false, "", err
	}
	if login, bot, err = gh.Viewer(ctx); err != nil || bot {
		return login, bot, "", err
	}
	p, err := gh.CollaboratorPermission(ctx, in.Owner, in.Repo, login)
	if err != nil {
		return login, false, "", err
	}
	role = p.RoleName
	if role == "" {
		role = p.Permission
	}
	return login, false, role, nil
}

var writeRoles = []string{"write", "maintain", "admin"}

func checkPushToken(ctx context.Context, in DoctorInput) DoctorCheck {
	c := DoctorCheck{Name: "push token"}
	if in.PushToken == "" {
		c.Status, c.Detail = DoctorNote, "none: fix commits are pushed with GITHUB_TOKEN, which starts no workflow, so your CI and push-triggered engines do not run on them"
		c.Fix = "create a fine-grained token (Contents: write on this repository) as the secret REVIEW_LOOP_PUSH_TOKEN, or name your CI in `ci-workflows`"
		return c
	}
	login, bot, role, err := tokenRole(ctx, in, in.PushToken)
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = DoctorMissing, err.Error(), "replace REVIEW_LOOP_PUSH_TOKEN with a valid token"
	case bot:
		c.Status, c.Detail = DoctorUnknown, "an app token ("+login+"): its installation's permissions are not visible to doctor; it needs Contents: write"
	case slices.Contains(writeRoles, role):
		c.Status, c.Detail = DoctorOK, fmt.Sprintf("@%s has %s: can push fix commits", login, role)
	default:
		c.Status, c.Detail = DoctorMissing, fmt.Sprintf("@%s has %s on %s/%s: pushes will be refused", login, orDefault(role, "no role"), in.Owner, in.Repo)
		c.Fix = "give the token's owner write access, or use another token"
	}
	return c
}

func checkTriggerToken(ctx context.Context, in DoctorInput) DoctorCheck {
	c := DoctorCheck{Name: "trigger token"}
	if in.TriggerToken == "" {
		c.Status, c.Detail = DoctorNote, "none: Bugbot ignores `bugbot run` from bots and `@claude review` by GITHUB_TOKEN starts no workflow; those engines are left to review pushes on their own"
		c.Fix = "create a fine-grained token of a maintainer (Pull requests and Issues: write) as the secret REVIEW_LOOP_TRIGGER_TOKEN"
		return c
	}
	login, bot, role, err := tokenRole(ctx, in, in.TriggerToken)
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = DoctorMissing, err.Error(), "replace REVIEW_LOOP_TRIGGER_TOKEN with a valid token"
	case bot:
		c.Status, c.Detail = DoctorMissing, "an app or Actions token ("+login+"): engines ignore trigger comments from bots"
		c.Fix = "use a user's token (a maintainer's fine-grained PAT)"
	case slices.Contains(writeRoles, role):
		c.Status, c.Detail = DoctorOK, fmt.Sprintf("@%s, a user with %s: can post triggers and request Copilot", login, role)
	default:
		c.Status, c.Detail = DoctorMissing, fmt.Sprintf("@%s has %s: may comment, but cannot request Copilot's review (needs write)", login, orDefault(role, "no role"))
		c.Fix = "use the token of a user with write access"
	}
	return c
}

func checkSecrets(ctx context.Context, in DoctorInput, gh *github.Client) DoctorCheck {
	c := DoctorCheck{Name: "secrets"}
	present := in.Secrets
	how := "passed to the workflow"
	if present == nil {
		names, visible, err := gh.SecretNames(ctx, in.Owner, in.Repo)
		if err != nil || !visible {
			c.Status = DoctorUnknown
			c.Detail = "this token may not list the repository's secrets (GitHub shows them to admins only, never to an Actions token)"
			c.Fix = "check Settings → Secrets and variables → Actions for " + secretNames()
			return c
		}
		present, how = map[string]bool{}, "in the repository's Actions secrets"
		for _, n := range names {
			present[n] = true
		}
	}
	var have, lack []string
	for _, s := range quickStartSecrets {
		if present[s.name] {
			have = append(have, s.name)
		} else {
			lack = append(lack, s.name+" ("+s.why+")")
		}
	}
	if len(lack) == 0 {
		c.Status, c.Detail = DoctorOK, strings.Join(have, ", ")+" "+how
		return c
	}
	c.Status, c.Detail = DoctorMissing, "not "+how+": "+strings.Join(lack, "; ")
	c.Fix = "create them under Settings → Secrets and variables → Actions (the quick start's checklist says which your workflow needs)"
	return c
}

func secretNames() string {
	var out []string
	for _, s := range quickStartSecrets {
		out = append(out, s.name)
	}
	return strings.Join(out, ", ")
}

// checkEngines is IN2's evidence over the repository: the engines' config
// and workflow files and their reviews on the recent pull requests.
func checkEngines(ctx context.Context, in DoctorInput, gh *github.Client, files []github.File, recentPRs func() ([]*github.Observation, error)) DoctorCheck {
	c := DoctorCheck{Name: "engines seen"}
	reg, err := doctorRegistry(ctx, in, gh)
	if err != nil {
		c.Status, c.Detail, c.Fix = DoctorMissing, err.Error(), "fix "+in.ConfigFile
		return c
	}
	cfgs, err := gh.EngineConfigs(ctx, in.Owner, in.Repo)
	if err != nil {
		c.Status, c.Detail = DoctorUnknown, err.Error()
		return c
	}
	env := engines.Env{WorkflowFiles: make([]engines.WorkflowFile, 0, len(files))}
	for _, f := range files {
		env.WorkflowFiles = append(env.WorkflowFiles, engines.WorkflowFile{Path: f.Path, Content: f.Text})
	}
	ev := evidence.Local(reg, nil, cfgs, env)
	if missing := evidence.Missing(reg.Names(), nil, ev); len(missing) > 0 {
		recent, err := recentPRs()
		if err != nil {
			c.Status, c.Detail = DoctorUnknown, err.Error()
			return c
		}
		evidence.Recent(reg, ev, missing, recent, 0, env)
	}
	var seen, unseen []string
	for _, n := range reg.Names() {
		if ev[n] != "" {
			seen = append(seen, n+" ("+ev[n]+")")
		} else {
			unseen = append(unseen, n)
		}
	}
	if len(seen) == 0 {
		c.Status, c.Detail = DoctorMissing, "no engine shows on this repository: no review on its last pull requests, no Claude workflow, no CodeRabbit or Gemini config"
		c.Fix = "install an engine (docs/engines/*.md), or name one in `engines` (it is then asked once, and reported if it never answers)"
		return c
	}
	c.Status, c.Detail = DoctorOK, "the default set: "+strings.Join(seen, ", ")
	if len(unseen) > 0 {
		c.Detail += "; no sign of " + strings.Join(unseen, ", ")
	}
	return c
}

// doctorRegistry is the built-in engines plus the repository's own.
func doctorRegistry(ctx context.Context, in DoctorInput, gh *github.Client) (*engines.Registry, error) {
	var rc config.Repo
	if raw, found, err := gh.FileContent(ctx, in.Owner, in.Repo, in.ConfigFile, ""); err == nil && found {
		rc, _ = config.ParseRepo(raw, in.ConfigFile)
	}
	return builtin.Registry(builtin.Options{Claude: claude.Options{JobName: "claude-review"}, Definitions: rc.Definitions})
}

// checkProtection looks at the head branches of the open pull requests:
// a protected one refuses every push review-loop would make.
func checkProtection(ctx context.Context, in DoctorInput, gh *github.Client, recentPRs func() ([]*github.Observation, error)) DoctorCheck {
	c := DoctorCheck{Name: "branch protection"}
	recent, err := recentPRs()
	if err != nil {
		c.Status, c.Detail = DoctorUnknown, err.Error()
		return c
	}
	var checked, refused []string
	for _, o := range recent {
		if o.State != "OPEN" || o.IsFork || o.HeadRef == "" {
			continue
		}
		prot, err := gh.BranchProtected(ctx, in.Owner, in.Repo, o.HeadRef)
		if err != nil {
			continue
		}
		checked = append(checked, o.HeadRef)
		if prot {
			refused = append(refused, fmt.Sprintf("%s (PR #%d)", o.HeadRef, o.Number))
		}
		if len(checked) == 3 {
			break
		}
	}
	switch {
	case len(refused) > 0:
		c.Status, c.Detail = DoctorMissing, "protected, so review-loop's fix pushes will be refused: "+strings.Join(refused, ", ")
		c.Fix = "protect the default branch only (a rule on `*` or `**` covers every PR branch), or let the push token's owner bypass it"
	case len(checked) == 0:
		c.Status, c.Detail = DoctorUnknown, "no open pull request from this repository to check a branch of"
	default:
		c.Status, c.Detail = DoctorOK, "pushable: "+strings.Join(checked, ", ")
	}
	return c
}

func checkConfig(ctx context.Context, in DoctorInput, gh *github.Client) DoctorCheck {
	c := DoctorCheck{Name: "config"}
	raw, found, err := gh.FileContent(ctx, in.Owner, in.Repo, in.ConfigFile, "")
	switch {
	case err != nil:
		c.Status, c.Detail = DoctorUnknown, err.Error()
	case !found:
		c.Status, c.Detail = DoctorOK, in.ConfigFile+": none (the built-in engines and patterns)"
	default:
		if _, perr := config.ParseRepo(raw, in.ConfigFile); perr != nil {
			c.Status, c.Detail = DoctorMissing, strings.ReplaceAll(perr.Error(), "\n", "; ")
			c.Fix = "correct it (docs/review-loop.schema.json describes every key; editors check it through the file's first line)"
		} else {
			c.Status, c.Detail = DoctorOK, in.ConfigFile+": valid"
		}
	}
	return c
}

// WriteDoctor prints the checklist and reports whether nothing is missing.
func WriteDoctor(w io.Writer, repo string, checks []DoctorCheck) bool {
	fmt.Fprintf(w, "review-loop doctor: %s\n\n", repo)
	ok := true
	marks := map[string]string{DoctorOK: "[x]", DoctorMissing: "[ ]", DoctorUnknown: "[?]", DoctorNote: "[-]"}
	for _, c := range checks {
		fmt.Fprintf(w, "%s %s: %s\n", marks[c.Status], c.Name, c.Detail)
		if c.Fix != "" && c.Status != DoctorOK {
			fmt.Fprintf(w, "    fix: %s\n", c.Fix)
		}
		if c.Status == DoctorMissing {
			ok = false
		}
	}
	fmt.Fprintln(w, "\n[x] ready  [ ] missing  [?] not visible to this token  [-] optional")
	return ok
}
