// Package doctor is `review-loop doctor`'s checklist: what a repository
// needs before its first loop, read with the repository's own tokens,
// each miss with its fix. It only reads.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/evidence"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
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
	// LocalConfig, when set, is the config file to check instead of the
	// repository's ConfigFile: a file of the user's machine
	// (`review-loop doctor --config-file PATH`).
	LocalConfig *LocalFile
	// Secrets maps a secret name to whether the workflow passed it; nil
	// when doctor runs locally.
	Secrets map[string]bool
	// Client builds a client for a token.
	Client func(token string) (*github.Client, error)
	// ServerURL is the GitHub server whose git endpoint the push check
	// asks (https://github.com, or GITHUB_SERVER_URL).
	ServerURL string
	// HTTP sends the push check's request; nil is http.DefaultClient.
	HTTP *http.Client
}

// LocalFile is a file read from the user's machine.
type LocalFile struct {
	Path string
	Raw  []byte
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
		out = append(out, unreachable(in, err))
		if in.LocalConfig != nil {
			out = append(out, CheckLocalConfig(*in.LocalConfig))
		}
		return out
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
	add(checkRulesets(ctx, in, gh, recent))
	add(checkMergeGate(ctx, in, gh))
	add(checkConfig(ctx, in, gh))
	texts, severities := checkWords(ctx, in, gh)
	add(texts)
	add(severities)
	return out
}

// unreachable is the first read failing: the network (GitHub never
// answered, so the token was never looked at), the token (401), or the
// token's access to the repository (403, 404).
func unreachable(in DoctorInput, err error) DoctorCheck {
	repo := in.Owner + "/" + in.Repo
	if ne, ok := github.AsNetwork(err); ok {
		return DoctorCheck{Name: "network", Status: DoctorMissing, Detail: ne.Error() + "; nothing else was checked, the token included",
			Fix: "check the connection, a proxy (HTTPS_PROXY) or GITHUB_API_URL and GITHUB_GRAPHQL_URL, then run doctor again"}
	}
	if github.IsUnauthorized(err) {
		return DoctorCheck{Name: "token", Status: DoctorMissing, Detail: "GitHub does not accept the token (401: unknown, expired or revoked): " + err.Error(),
			Fix: "set a valid token in GH_TOKEN or GITHUB_TOKEN (`gh auth token` prints yours)"}
	}
	if github.IsPermission(err) {
		return DoctorCheck{Name: "repository", Status: DoctorMissing, Detail: "GitHub refuses this token access to " + repo + " (403): " + err.Error(),
			Fix: "use a token that can read " + repo + " (contents: read; a fine-grained token must include the repository)"}
	}
	if github.IsNotFound(err) {
		return DoctorCheck{Name: "repository", Status: DoctorMissing, Detail: repo + " does not exist, or the token may not see it: " + err.Error(),
			Fix: "check the name, and use a token that can read " + repo + " (contents: read)"}
	}
	return DoctorCheck{Name: "repository", Status: DoctorMissing, Detail: err.Error(),
		Fix: fmt.Sprintf("use a token that can read %s (contents: read)", repo)}
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
	if err != nil {
		c.Status, c.Detail, c.Fix = DoctorMissing, err.Error(), "replace REVIEW_LOOP_PUSH_TOKEN with a valid token"
		return c
	}
	// What the token itself may do: the API shows an installation token
	// none of its permissions (GET /installation takes the app's JWT) and
	// a fine-grained token none of its own, but the git server answers
	// the push's first request only for a token that may push.
	status, perr := pushProbe(ctx, in, in.PushToken)
	repo := in.Owner + "/" + in.Repo
	switch {
	case bot && status == http.StatusOK:
		c.Status, c.Detail = DoctorOK, fmt.Sprintf("an app token (%s): the git server accepts it for a push to %s (Contents: write)", login, repo)
	case bot && status == http.StatusForbidden:
		c.Status, c.Detail = DoctorMissing, fmt.Sprintf("an app token (%s): the git server refuses it a push to %s: the app lacks Contents: write, or its installation does not include the repository", login, repo)
		c.Fix = "in the app's settings give it Repository permissions → Contents: Read and write, accept the new permission on its installation, and include " + repo + " in the installation's repositories"
	case bot:
		c.Status, c.Detail = DoctorUnknown, fmt.Sprintf("an app token (%s): its permissions are not readable with the token itself, and the git server's push check did not answer (%s)", login, probeOutcome(status, perr))
		c.Fix = "check the app's installation (Settings → GitHub Apps → Configure): Repository permissions → Contents: Read and write, and " + repo + " among its repositories"
	case !slices.Contains(writeRoles, role):
		c.Status, c.Detail = DoctorMissing, fmt.Sprintf("@%s has %s on %s: pushes will be refused", login, orDefault(role, "no role"), repo)
		c.Fix = "give the token's owner write access, or use another token"
	case status == http.StatusForbidden:
		c.Status, c.Detail = DoctorMissing, fmt.Sprintf("@%s has %s, but the git server refuses this token a push to %s: a fine-grained token without Contents: write on it, or a classic token without the repo scope", login, role, repo)
		c.Fix = "give the token Repository permissions → Contents: Read and write on " + repo + " (fine-grained), or the repo scope (classic), and store it again as REVIEW_LOOP_PUSH_TOKEN"
	case status == http.StatusOK:
		c.Status, c.Detail = DoctorOK, fmt.Sprintf("@%s has %s, and the git server accepts the token for a push", login, role)
	default:
		c.Status, c.Detail = DoctorUnknown, fmt.Sprintf("@%s has %s, but the git server's push check did not answer (%s)", login, role, probeOutcome(status, perr))
		c.Fix = "check that the token has Contents: Read and write on " + repo + " (fine-grained) or the repo scope (classic)"
	}
	return c
}

// pushProbe asks the git server for the receive-pack advertisement with
// the token, as the first request of `git push`: GitHub answers it 200
// only to a token that may push to the repository, and 403 "Permission to
// owner/repo.git denied to …" otherwise. Nothing is sent and nothing is
// written. The token travels only in the Authorization header, as for
// review-loop's own git requests.
func pushProbe(ctx context.Context, in DoctorInput, token string) (int, error) {
	server := strings.TrimSuffix(orDefault(in.ServerURL, "https://github.com"), "/")
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/"+in.Owner+"/"+in.Repo+".git/info/refs?service=git-receive-pack", nil)
	if err != nil {
		return 0, err
	}
	req.SetBasicAuth("x-access-token", token)
	req.Header.Set("User-Agent", "git/2 (review-loop doctor)")
	hc := in.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL holds no token, but keep the error short
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode, nil
}

func probeOutcome(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("HTTP %d", status)
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
	if in.LocalConfig != nil {
		rc, _ = config.ParseRepo(in.LocalConfig.Raw, in.LocalConfig.Path)
	} else if raw, found, err := gh.FileContent(ctx, in.Owner, in.Repo, in.ConfigFile, ""); err == nil && found {
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

// rulesetHarmless are the ruleset rule types proven not to refuse what
// review-loop does on a PR branch: it pushes fast-forward commits to a
// branch that exists, and never force-pushes, deletes or creates one (B5).
var rulesetHarmless = map[string]bool{"creation": true, "deletion": true, "non_fast_forward": true, "required_linear_history": true}

// rulesetRefusals are the rule types that refuse review-loop's fix push,
// why, and the fix for each.
var rulesetRefusals = map[string]struct{ why, fix string }{
	"update": {"only the ruleset's bypass list may push to the branch",
		"target the ruleset at the default branch only (`~DEFAULT_BRANCH`), or add the push token's user or app to its bypass list"},
	"pull_request": {"changes must come through a pull request, so a direct push is refused",
		"target the ruleset at the default branch only (`~DEFAULT_BRANCH`): the PR itself is the pull request it asks for"},
	"required_status_checks": {"a fix commit is new, so its required checks (%s) have not passed and GitHub refuses the push",
		"require the checks on the default branch only (they still hold the merge), or add the push token's user or app to the ruleset's bypass list"},
	"required_signatures": {"review-loop's fix commits are unsigned, and GitHub refuses unsigned commits",
		"require signed commits on the default branch only (GitHub signs the merge commits it makes), or add the push token's user or app to the ruleset's bypass list"},
}

// prBranches are the head branches of up to three open pull requests from
// the repository itself, from the recent activity.
func prBranches(recent []*github.Observation) []*github.Observation {
	var out []*github.Observation
	for _, o := range recent {
		if o.State == "OPEN" && !o.IsFork && o.HeadRef != "" {
			out = append(out, o)
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}

// checkRulesets reads the active ruleset rules on the open pull requests'
// head branches (the branches the fix commits go to): a rule that refuses
// a fast-forward push of an unsigned commit, and that the push identity
// may not bypass, stops every fix cycle. Whether the identity may bypass
// is current_user_can_bypass, read with the push token itself.
func checkRulesets(ctx context.Context, in DoctorInput, gh *github.Client, recentPRs func() ([]*github.Observation, error)) DoctorCheck {
	c := DoctorCheck{Name: "rulesets on PR branches"}
	recent, err := recentPRs()
	if err != nil {
		c.Status, c.Detail = DoctorUnknown, err.Error()
		return c
	}
	branches := prBranches(recent)
	if len(branches) == 0 {
		c.Status, c.Detail = DoctorUnknown, "no open pull request from this repository to check a branch of"
		return c
	}
	pusher, who := in.GitHubToken, "GITHUB_TOKEN"
	if in.PushToken != "" {
		pusher, who = in.PushToken, "the push token"
	}
	pc, perr := in.Client(pusher)
	type rsInfo struct {
		name, bypass string
	}
	seen := map[int64]rsInfo{}
	info := func(id int64) rsInfo {
		if i, ok := seen[id]; ok {
			return i
		}
		i := rsInfo{name: fmt.Sprintf("ruleset %d", id)}
		if perr == nil {
			if rs, err := pc.Ruleset(ctx, in.Owner, in.Repo, id); err == nil {
				i = rsInfo{name: fmt.Sprintf("ruleset %q (%d)", rs.Name, id), bypass: rs.CurrentUserCanBypass}
			}
		}
		seen[id] = i
		return i
	}
	var refused, unclear, bypassed, fixes, checked []string
	for _, o := range branches {
		rules, err := gh.BranchRules(ctx, in.Owner, in.Repo, o.HeadRef)
		if err != nil {
			unclear = append(unclear, err.Error())
			continue
		}
		checked = append(checked, o.HeadRef)
		for _, r := range rules {
			if rulesetHarmless[r.Type] {
				continue
			}
			rs := info(r.RulesetID)
			ref, known := rulesetRefusals[r.Type]
			switch {
			case rs.bypass == "always" || rs.bypass == "exempt":
				bypassed = append(bypassed, fmt.Sprintf("%s of %s on %s", r.Type, rs.name, o.HeadRef))
			case !known:
				unclear = append(unclear, fmt.Sprintf("%s of %s on %s (PR #%d)", r.Type, rs.name, o.HeadRef, o.Number))
			default:
				why := ref.why
				if strings.Contains(why, "%s") {
					why = fmt.Sprintf(why, strings.Join(r.StatusChecks, ", "))
				}
				refused = append(refused, fmt.Sprintf("%s (PR #%d): %s of %s: %s", o.HeadRef, o.Number, r.Type, rs.name, why))
				if !slices.Contains(fixes, r.Type+": "+ref.fix) {
					fixes = append(fixes, r.Type+": "+ref.fix)
				}
			}
		}
	}
	note := ""
	if len(bypassed) > 0 {
		note = "; " + who + " may bypass " + strings.Join(bypassed, ", ")
	}
	switch {
	case len(refused) > 0:
		c.Status = DoctorMissing
		c.Detail = "ruleset rules refuse review-loop's fix push by " + who + ": " + strings.Join(refused, "; ") + note
		c.Fix = strings.Join(fixes, "; ")
	case len(unclear) > 0:
		c.Status = DoctorUnknown
		c.Detail = "doctor cannot tell whether these refuse a fix push: " + strings.Join(unclear, "; ") + note
		c.Fix = "check, in Settings → Rules → Rulesets, that a commit `fix(review): …` pushed by " + who + " to a PR branch meets them, or target them at the default branch only"
	case len(checked) == 0:
		c.Status, c.Detail = DoctorUnknown, "the rules of no PR branch could be read"
	default:
		c.Status, c.Detail = DoctorOK, "no active ruleset rule refuses a fix push to "+strings.Join(checked, ", ")+note
	}
	return c
}

// gateCheck is the name of review-loop's own check run, the merge gate a
// ruleset or branch protection can require (MG1).
const gateCheck = "review-loop"

// checkMergeGate reads the default branch's ruleset rules for a required
// status check on review-loop's check run: optional, but without it a PR
// can merge while the loop still has findings open.
func checkMergeGate(ctx context.Context, in DoctorInput, gh *github.Client) DoctorCheck {
	c := DoctorCheck{Name: "merge gate"}
	def, err := gh.DefaultBranch(ctx, in.Owner, in.Repo)
	if err != nil {
		c.Status, c.Detail = DoctorUnknown, err.Error()
		return c
	}
	rules, err := gh.BranchRules(ctx, in.Owner, in.Repo, def)
	if err != nil {
		c.Status, c.Detail = DoctorUnknown, err.Error()
		return c
	}
	var others []string
	for _, r := range rules {
		if r.Type != "required_status_checks" {
			continue
		}
		if slices.Contains(r.StatusChecks, gateCheck) {
			c.Status, c.Detail = DoctorOK, fmt.Sprintf("ruleset %d requires the check %q on %s: a PR merges only once the loop is clean", r.RulesetID, gateCheck, def)
			return c
		}
		others = append(others, r.StatusChecks...)
	}
	c.Status = DoctorNote
	c.Detail = fmt.Sprintf("no active ruleset on %s requires the check %q, so a PR can merge while the loop still has findings open", def, gateCheck)
	if len(others) > 0 {
		c.Detail += " (it requires " + strings.Join(others, ", ") + ")"
	}
	c.Fix = fmt.Sprintf("add %q (review-loop's check run, not the job's name) to a required-status-checks rule of a ruleset on %s (README, Merge gate); a classic branch protection rule can require it instead, which doctor cannot read without admin", gateCheck, def)
	return c
}

func checkConfig(ctx context.Context, in DoctorInput, gh *github.Client) DoctorCheck {
	if in.LocalConfig != nil {
		return CheckLocalConfig(*in.LocalConfig)
	}
	c := DoctorCheck{Name: "config"}
	raw, found, err := gh.FileContent(ctx, in.Owner, in.Repo, in.ConfigFile, "")
	switch {
	case err != nil:
		c.Status, c.Detail = DoctorUnknown, err.Error()
	case !found:
		c.Status, c.Detail = DoctorOK, in.ConfigFile+": none (the built-in engines and patterns)"
	default:
		c = configCheck(in.ConfigFile, raw)
	}
	return c
}

// CheckLocalConfig checks a config file of the user's machine completely,
// as a cycle would adopt it: YAML, every key at every depth, every value,
// and the engines its prices name. It reads nothing from GitHub.
func CheckLocalConfig(f LocalFile) DoctorCheck {
	c := configCheck(f.Path, f.Raw)
	c.Name = "config (local file)"
	return c
}

func configCheck(file string, raw []byte) DoctorCheck {
	c := DoctorCheck{Name: "config"}
	if err := config.ValidateRepo(raw, file); err != nil {
		c.Status, c.Detail = DoctorMissing, strings.ReplaceAll(err.Error(), "\n", "; ")
		c.Fix = "correct it (docs/review-loop.schema.json describes every key; editors check it through the file's first line)"
		return c
	}
	c.Status, c.Detail = DoctorOK, file+": valid"
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

// checkWords lists the engines' words in force: their texts (S12), the
// built-in patterns of engines/defs/ and the repository's engine_texts,
// each with its engine, class, origin and kind, so a maintainer sees what
// proves a review and what is an exception before the loop reads one;
// and their severity mapping (EQ3), what each engine's severity words
// mean on the one scale the clean-at floor compares. The config is read
// once for both.
func checkWords(ctx context.Context, in DoctorInput, gh *github.Client) (texts, severities DoctorCheck) {
	c := DoctorCheck{Name: "engine texts", Status: DoctorOK}
	sc := DoctorCheck{Name: "engine severities", Status: DoctorOK}
	var rc config.Repo
	if raw, found, err := gh.FileContent(ctx, in.Owner, in.Repo, in.ConfigFile, ""); err == nil && found {
		var perr error
		if rc, perr = config.ParseRepo(raw, in.ConfigFile); perr != nil {
			c.Status, c.Detail = DoctorUnknown, "the config file does not parse (see config); the built-in texts only"
			sc.Status, sc.Detail = DoctorUnknown, "the config file does not parse (see config); the built-in engines only"
		}
	}
	lines, err := TextsInForce(rc)
	if err != nil {
		c.Status, c.Detail = DoctorMissing, err.Error()
		c.Fix = "report it: the built-in engine definitions do not load"
	} else {
		c.Detail = strings.TrimSpace(c.Detail+fmt.Sprintf(" %d in force (proof, then the exceptions, which always win):", len(lines))) +
			"\n    " + strings.Join(lines, "\n    ")
	}
	sev, err := SeveritiesInForce(rc)
	if err != nil {
		sc.Status, sc.Detail = DoctorMissing, err.Error()
		sc.Fix = "report it: the built-in engine definitions do not load"
	} else {
		sc.Detail = strings.TrimSpace(sc.Detail+fmt.Sprintf(" %d in force, per engine, highest first (an engine that states none counts as medium for clean-at):", len(sev))) +
			"\n    " + strings.Join(sev, "\n    ")
	}
	return c, sc
}

// SeveritiesInForce lists every engine's severity mapping in force (EQ3),
// one line each: "engine · origin · severity (category): pattern", highest
// first within an engine. Built-in first: the Go engines'
// engine_severity_markers and the declarative definitions'
// severity_markers and body sections; then the repository's definitions
// and engine_severity_markers (read after the built-in ones, they win
// where they match).
// An engine that maps nothing is listed as counting as medium.
func SeveritiesInForce(rc config.Repo) ([]string, error) {
	builtin, err := engines.BuiltinSeverityMarkers()
	if err != nil {
		return nil, err
	}
	defs, err := declarative.Builtin()
	if err != nil {
		return nil, err
	}
	type line struct {
		engine, origin string
		sev            loop.Severity
		category, text string
	}
	var out []line
	def := func(d declarative.Definition, origin string) {
		n := len(out)
		for _, m := range d.SeverityMarkers {
			out = append(out, line{d.Name, origin, loop.Severity(m.Severity), "", m.Pattern})
		}
		for _, sec := range d.BodySections {
			if sec.Severity != "" {
				out = append(out, line{d.Name, origin, loop.Severity(sec.Severity), sec.Category, "section «" + sec.Heading + "»"})
			}
		}
		if len(out) == n && len(rc.Severities[d.Name]) == 0 {
			out = append(out, line{engine: d.Name, origin: origin})
		}
	}
	for _, e := range slices.Sorted(maps.Keys(builtin)) {
		for _, m := range builtin[e] {
			out = append(out, line{e, engines.OriginBuiltin, m.Severity, m.Category, m.Pattern})
		}
	}
	for _, d := range defs {
		def(d, engines.OriginBuiltin)
	}
	for _, d := range rc.Definitions {
		def(d, engines.OriginRepository)
	}
	for _, e := range slices.Sorted(maps.Keys(rc.Severities)) {
		for _, m := range rc.Severities[e] {
			out = append(out, line{e, engines.OriginRepository, m.Severity, m.Category, m.Pattern})
		}
	}
	rank := func(s loop.Severity) int {
		if i := slices.Index([]loop.Severity{loop.SeverityCritical, loop.SeverityHigh, loop.SeverityMedium, loop.SeverityLow}, s); i >= 0 {
			return i
		}
		return 4
	}
	slices.SortStableFunc(out, func(a, b line) int {
		if c := strings.Compare(a.engine, b.engine); c != 0 {
			return c
		}
		return rank(a.sev) - rank(b.sev)
	})
	s := make([]string, len(out))
	for i, l := range out {
		switch {
		case l.sev == "":
			s[i] = fmt.Sprintf("%s · %s · states none: counts as medium", l.engine, l.origin)
		case l.category != "":
			s[i] = fmt.Sprintf("%s · %s · %s (%s): %s", l.engine, l.origin, l.sev, l.category, l.text)
		default:
			s[i] = fmt.Sprintf("%s · %s · %s: %s", l.engine, l.origin, l.sev, l.text)
		}
	}
	return s, nil
}

// TextsInForce lists every engine's words in force, one line each:
// "engine · class · origin · kind: text". Built-in first: the Go
// engines' engine_texts and the declarative definitions' proof kinds and
// phrases; then the repository's definitions and engine_texts.
func TextsInForce(rc config.Repo) ([]string, error) {
	builtinTexts, err := engines.BuiltinTexts()
	if err != nil {
		return nil, err
	}
	defs, err := declarative.Builtin()
	if err != nil {
		return nil, err
	}
	type line struct{ engine, class, origin, kind, text string }
	var out []line
	texts := func(e, origin string, ps []engines.TextPattern) {
		for _, p := range ps {
			out = append(out, line{e, string(p.Class), origin, p.Kind, p.Text()})
		}
	}
	def := func(d declarative.Definition, origin string) {
		for _, k := range d.Kinds {
			class := "not proof"
			if k.Proof {
				class = string(engines.TextProof)
			}
			out = append(out, line{d.Name, class, origin, k.Kind, k.Pattern})
		}
		for _, g := range []struct {
			class   engines.TextClass
			phrases []string
		}{{engines.TextQuota, d.QuotaPhrases}, {engines.TextSkip, d.UnprovenPhrases}, {engines.TextError, d.ErrorPhrases}, {engines.TextPause, d.PausePhrases}} {
			for _, p := range g.phrases {
				out = append(out, line{d.Name, string(g.class), origin, "phrase", p})
			}
		}
	}
	for _, e := range slices.Sorted(maps.Keys(builtinTexts)) {
		texts(e, engines.OriginBuiltin, builtinTexts[e])
	}
	for _, d := range defs {
		def(d, engines.OriginBuiltin)
	}
	for _, d := range rc.Definitions {
		def(d, engines.OriginRepository)
	}
	for _, e := range slices.Sorted(maps.Keys(rc.Texts)) {
		texts(e, engines.OriginRepository, rc.Texts[e])
	}
	rank := func(class string) int {
		if i := slices.Index(engines.TextClasses, engines.TextClass(class)); i >= 0 {
			return i
		}
		return len(engines.TextClasses)
	}
	slices.SortStableFunc(out, func(a, b line) int {
		if c := strings.Compare(a.engine, b.engine); c != 0 {
			return c
		}
		return rank(a.class) - rank(b.class)
	})
	s := make([]string, len(out))
	for i, l := range out {
		s[i] = fmt.Sprintf("%s · %s · %s · %s: %s", l.engine, l.class, l.origin, l.kind, l.text)
	}
	return s, nil
}
