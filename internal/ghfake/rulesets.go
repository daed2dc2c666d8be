package ghfake

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Ruleset is a repository ruleset (Settings → Rules → Rulesets), the newer
// kind of branch protection. Only branch rulesets exist in the fake.
// Shapes: components/schemas/repository-ruleset and repository-rule-detailed
// of GitHub's OpenAPI description.
type Ruleset struct {
	ID   int64
	Name string
	// Enforcement is active, evaluate or disabled. Only active rules refuse
	// pushes or show in GET /rules/branches/{branch}.
	Enforcement string
	// Include and Exclude are ref_name conditions: "~DEFAULT_BRANCH",
	// "~ALL" or patterns on refs/heads/…. The fake's only wildcard is *,
	// and it also crosses "/" (on GitHub only ** does).
	Include, Exclude []string
	Rules            []RulesetRule
	// BypassUsers are the ids of the users the ruleset lets bypass it
	// (bypass_actors of actor_type User, bypass_mode always). Other actor
	// types (Integration, RepositoryRole, Team, OrganizationAdmin) are not
	// modelled.
	BypassUsers []int64
}

// RulesetRule is one rule of a ruleset: its type (update, pull_request,
// required_status_checks, required_signatures, non_fast_forward, deletion,
// creation, …) and, for required_status_checks, the contexts it requires.
type RulesetRule struct {
	Type         string
	StatusChecks []string
}

// refusingRules are the rule types the fake's pre-receive hook enforces on
// a push over HTTP, and how: "update" refuses every update of an existing
// ref, "ff" only a non-fast-forward, "delete" a deletion, "create" a
// creation. On GitHub a pull_request rule makes every change go through a
// pull request, required_status_checks wants the new commit's checks
// passed on another ref first, and required_signatures wants a verified
// signature, which no commit of review-loop (or of the fake) carries.
var refusingRules = map[string]string{
	"update": "update", "pull_request": "update", "required_status_checks": "update", "required_signatures": "update",
	"non_fast_forward": "ff", "deletion": "delete", "creation": "create",
}

// ruleMessages are GitHub's words for each violation, under "GH013:
// Repository rule violations found for <ref>.".
var ruleMessages = map[string]string{
	"update":                 "Cannot update this protected ref.",
	"pull_request":           "Changes must be made through a pull request.",
	"required_status_checks": "Required status checks are expected.",
	"required_signatures":    "Commits must have verified signatures.",
	"non_fast_forward":       "Cannot force-push to this branch",
	"deletion":               "Cannot delete this branch",
	"creation":               "Cannot create ref due to creations being restricted.",
}

// AddRuleset adds a branch ruleset to the repository and returns its id.
// Pushes over the fake's HTTP git server (the pushes review-loop makes)
// are then checked against its active rules; the fake's own set-up pushes
// (PushCommit, CreatePR) are not.
func (f *Fake) AddRuleset(owner, repo string, rs Ruleset) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repo)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, repo)
	}
	switch rs.Enforcement {
	case "":
		rs.Enforcement = "active"
	case "active", "evaluate", "disabled":
	default:
		return 0, fmt.Errorf("ruleset %q: enforcement %q is not active, evaluate or disabled", rs.Name, rs.Enforcement)
	}
	for _, ru := range rs.Rules {
		if _, ok := ruleMessages[ru.Type]; !ok && ru.Type != "required_linear_history" && ru.Type != "merge_queue" && ru.Type != "required_deployments" {
			return 0, fmt.Errorf("ruleset %q: rule type %q is not one the fake knows", rs.Name, ru.Type)
		}
	}
	if rs.ID == 0 {
		rs.ID = f.id()
	}
	r.rulesets = append(r.rulesets, &rs)
	return rs.ID, f.writeRulesetRefsLocked(r)
}

// refPatterns are a ruleset's include or exclude conditions as shell case
// patterns on the full ref name.
func refPatterns(r *repo, conds []string) []string {
	var out []string
	for _, c := range conds {
		switch c {
		case "~ALL":
			out = append(out, "refs/heads/*")
		case "~DEFAULT_BRANCH":
			out = append(out, "refs/heads/"+r.defaultBranch)
		default:
			if !strings.HasPrefix(c, "refs/") {
				c = "refs/heads/" + c
			}
			out = append(out, c)
		}
	}
	return out
}

// writeRulesetRefsLocked writes what the pre-receive hook reads: one line
// per active refusing rule, "<kind> <rule type> <include patterns,…>
// <exclude patterns,…|-> <bypass logins,…|-> <GitHub's message>".
func (f *Fake) writeRulesetRefsLocked(r *repo) error {
	var lines []string
	for _, rs := range r.rulesets {
		if rs.Enforcement != "active" {
			continue
		}
		var bypass []string
		for _, u := range f.users {
			if slices.Contains(rs.BypassUsers, u.ID) {
				bypass = append(bypass, u.Login)
			}
		}
		slices.Sort(bypass)
		for _, ru := range rs.Rules {
			kind, ok := refusingRules[ru.Type]
			if !ok {
				continue
			}
			lines = append(lines, strings.Join([]string{kind, ru.Type, orDash(refPatterns(r, rs.Include)), orDash(refPatterns(r, rs.Exclude)), orDash(bypass), ruleMessages[ru.Type]}, " "))
		}
	}
	return os.WriteFile(filepath.Join(r.bare, "ruleset-refs"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func orDash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// matchRef reports whether a ruleset's conditions cover the branch, as
// GitHub does: an include matches and no exclude does. Patterns match as
// the pre-receive hook's case does (see Ruleset.Include).
func matchRef(r *repo, rs *Ruleset, branch string) bool {
	ref := "refs/heads/" + branch
	match := func(pats []string) bool {
		return slices.ContainsFunc(pats, func(p string) bool { return globMatch(p, ref) })
	}
	return match(refPatterns(r, rs.Include)) && !match(refPatterns(r, rs.Exclude))
}

// globMatch is the shell case's match for patterns whose only wildcard is
// *, which matches any string, "/" included.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// canBypass is current_user_can_bypass for the identity.
func (f *Fake) canBypassLocked(rs *Ruleset, id Identity) string {
	uid := id.ID
	if u, ok := f.users[strings.ToLower(id.Login)]; ok && uid == 0 {
		uid = u.ID
	}
	if uid != 0 && slices.Contains(rs.BypassUsers, uid) {
		return "always"
	}
	return "never"
}

func rulesetJSON(f *Fake, r *repo, rs *Ruleset, id Identity, withRules bool) map[string]any {
	base := fmt.Sprintf("%s/repos/%s/%s", api, r.owner, r.name)
	actors := []any{}
	for _, u := range rs.BypassUsers {
		actors = append(actors, map[string]any{"actor_id": u, "actor_type": "User", "bypass_mode": "always"})
	}
	out := map[string]any{
		"id": rs.ID, "name": rs.Name, "target": "branch", "source_type": "Repository", "source": r.owner + "/" + r.name,
		"enforcement": rs.Enforcement, "node_id": fmt.Sprintf("RRS_%d", rs.ID),
		"current_user_can_bypass": f.canBypassLocked(rs, id),
		"_links": map[string]any{"self": map[string]any{"href": fmt.Sprintf("%s/rulesets/%d", base, rs.ID)},
			"html": map[string]any{"href": fmt.Sprintf("https://github.com/%s/%s/rules/%d", r.owner, r.name, rs.ID)}},
		"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
	}
	if withRules {
		out["bypass_actors"] = actors
		out["conditions"] = map[string]any{"ref_name": map[string]any{"include": append([]string{}, rs.Include...), "exclude": append([]string{}, rs.Exclude...)}}
		rules := []any{}
		for _, ru := range rs.Rules {
			rules = append(rules, ruleJSON(ru))
		}
		out["rules"] = rules
	}
	return out
}

func ruleJSON(ru RulesetRule) map[string]any {
	m := map[string]any{"type": ru.Type}
	switch ru.Type {
	case "required_status_checks":
		checks := []any{}
		for _, c := range ru.StatusChecks {
			checks = append(checks, map[string]any{"context": c})
		}
		m["parameters"] = map[string]any{"required_status_checks": checks, "strict_required_status_checks_policy": false}
	case "update":
		m["parameters"] = map[string]any{"update_allows_fetch_and_merge": false}
	case "pull_request":
		m["parameters"] = map[string]any{"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
			"require_last_push_approval": false, "required_approving_review_count": 1, "required_review_thread_resolution": false}
	}
	return m
}

// listRulesets is GET /repos/{owner}/{repo}/rulesets: every ruleset of the
// repository, without its rules and conditions (GitHub lists them only
// for one ruleset).
// https://docs.github.com/en/rest/repos/rules#get-all-repository-rulesets
func listRulesets(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	out := make([]map[string]any, 0, len(rp.rulesets))
	for _, rs := range rp.rulesets {
		out = append(out, rulesetJSON(f, rp, rs, id, false))
	}
	writeJSON(w, http.StatusOK, page(w, r, out))
}

// getRuleset is GET /repos/{owner}/{repo}/rulesets/{ruleset_id}: one
// ruleset with its rules, conditions and bypass actors, and whether the
// requesting token may bypass it (current_user_can_bypass).
// https://docs.github.com/en/rest/repos/rules#get-a-repository-ruleset
func getRuleset(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	n, _ := strconv.ParseInt(r.PathValue("ruleset_id"), 10, 64)
	for _, rs := range rp.rulesets {
		if rs.ID == n {
			writeJSON(w, http.StatusOK, rulesetJSON(f, rp, rs, id, true))
			return
		}
	}
	notFound(w)
}

// getBranchRules is GET /repos/{owner}/{repo}/rules/branches/{branch}:
// the active rules that apply to a branch (which need not exist), each
// with the ruleset it comes from. Rules of evaluate or disabled rulesets
// are not listed.
// https://docs.github.com/en/rest/repos/rules#get-rules-for-a-branch
func getBranchRules(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	branch := r.PathValue("branch")
	out := []map[string]any{}
	for _, rs := range rp.rulesets {
		if rs.Enforcement != "active" || !matchRef(rp, rs, branch) {
			continue
		}
		for _, ru := range rs.Rules {
			m := ruleJSON(ru)
			m["ruleset_source_type"], m["ruleset_source"], m["ruleset_id"] = "Repository", rp.owner+"/"+rp.name, rs.ID
			out = append(out, m)
		}
	}
	writeJSON(w, http.StatusOK, page(w, r, out))
}
