package ghfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/review-loop/review-loop/internal/ghfake"
)

const bypassToken = "ghs_releaser"

// rulesetFixture is the git fixture with a user who may bypass rulesets
// that name them (id 777, token bypassToken).
func rulesetFixture(t *testing.T) gitFixture {
	t.Helper()
	fx := newGitFixture(t, true)
	fx.f.AddUser("releaser", 777, false)
	fx.f.AddToken(bypassToken, ghfake.Identity{Login: "releaser", ID: 777})
	return fx
}

// TestRulesets_PushesTheActiveRulesRefuseFailWithGH013: a push over HTTP
// to a branch an active ruleset covers is refused with GitHub's GH013
// words and the violated rule, and the PR head stays; an evaluate-mode
// ruleset, a ruleset on other branches, a force-push rule on a
// fast-forward and a user on the bypass list push.
func TestRulesets_PushesTheActiveRulesRefuseFailWithGH013(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rs      ghfake.Ruleset
		token   string
		refused string // the rule named in git's output; empty: the push lands
	}{
		{"signatures on every branch", ghfake.Ruleset{Name: "signed", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}}, writeToken, "Commits must have verified signatures. (required_signatures)"},
		{"status checks on feat*", ghfake.Ruleset{Name: "checks", Include: []string{"refs/heads/feat*"}, Rules: []ghfake.RulesetRule{{Type: "required_status_checks", StatusChecks: []string{"ci"}}}}, writeToken, "(required_status_checks)"},
		{"restrict updates", ghfake.Ruleset{Name: "frozen", Include: []string{"feature"}, Rules: []ghfake.RulesetRule{{Type: "update"}}}, writeToken, "Cannot update this protected ref. (update)"},
		{"pull requests only", ghfake.Ruleset{Name: "via PR", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "pull_request"}}}, writeToken, "(pull_request)"},
		{"excluded branch", ghfake.Ruleset{Name: "signed", Include: []string{"~ALL"}, Exclude: []string{"refs/heads/feature"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}}, writeToken, ""},
		{"evaluate mode", ghfake.Ruleset{Name: "trial", Enforcement: "evaluate", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "update"}}}, writeToken, ""},
		{"default branch only", ghfake.Ruleset{Name: "main", Include: []string{"~DEFAULT_BRANCH"}, Rules: []ghfake.RulesetRule{{Type: "update"}}}, writeToken, ""},
		{"no force-push, a fast-forward", ghfake.Ruleset{Name: "linear", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "non_fast_forward"}, {Type: "deletion"}}}, writeToken, ""},
		{"bypassed", ghfake.Ruleset{Name: "frozen", Include: []string{"~ALL"}, BypassUsers: []int64{777}, Rules: []ghfake.RulesetRule{{Type: "update"}}}, bypassToken, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := rulesetFixture(t)
			if _, err := fx.f.AddRuleset("octo", "demo", tc.rs); err != nil {
				t.Fatal(err)
			}
			dir, env, sha := pushFixture(t, fx, tc.token)
			before := fx.f.HeadSHA("octo", "demo", fx.number)
			// Unforced: a fast-forward of the PR head (the clone is
			// shallow, so git cannot prove it, but the server can).
			out, err := runGit(t, dir, env, "push", fx.f.HTTPCloneURL("octo", "demo"), "HEAD:refs/heads/feature")
			head := fx.f.HeadSHA("octo", "demo", fx.number)
			if tc.refused == "" {
				if err != nil || head != sha {
					t.Fatalf("push refused or lost: err %v, head %s (want %s)\n%s", err, head, sha, out)
				}
				return
			}
			if err == nil || !strings.Contains(out, "GH013: Repository rule violations found for refs/heads/feature.") || !strings.Contains(out, tc.refused) {
				t.Fatalf("push: err %v, want GH013 naming %q:\n%s", err, tc.refused, out)
			}
			if head != before {
				t.Fatalf("head moved to %s after a refused push", head)
			}
		})
	}
}

// TestRulesets_AnswersMatchGitHubsDescription validates the fake's answers
// for the three ruleset reads against operations repos/get-repo-rulesets,
// repos/get-repo-ruleset and repos/get-branch-rules of GitHub's OpenAPI
// description, and checks what they say: the branch's active rules with
// their ruleset, and whether the requesting token may bypass.
func TestRulesets_AnswersMatchGitHubsDescription(t *testing.T) {
	fx := rulesetFixture(t)
	id, err := fx.f.AddRuleset("octo", "demo", ghfake.Ruleset{Name: "PR branches", Include: []string{"~ALL"}, Exclude: []string{"~DEFAULT_BRANCH"}, BypassUsers: []int64{777},
		Rules: []ghfake.RulesetRule{{Type: "required_signatures"}, {Type: "required_status_checks", StatusChecks: []string{"review-loop"}}, {Type: "update"}, {Type: "pull_request"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fx.f.AddRuleset("octo", "demo", ghfake.Ruleset{Name: "trial", Enforcement: "evaluate", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "deletion"}}}); err != nil {
		t.Fatal(err)
	}
	get := func(tpl, path, token string) []byte {
		t.Helper()
		d := describedOperation(t, tpl)
		router, err := gorillamux.NewRouter(d)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, fx.f.URL()+path, nil)
		req.Header.Set("Authorization", "token "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		vreq, _ := http.NewRequest(http.MethodGet, "https://api.github.com"+path, nil)
		route, params, err := router.FindRoute(vreq)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
			Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("GET %s: the fake's answer does not validate: %v\n%s", path, err, body)
		}
		return body
	}
	var list []map[string]any
	if err := json.Unmarshal(get("/repos/{owner}/{repo}/rulesets", "/repos/octo/demo/rulesets", writeToken), &list); err != nil || len(list) != 2 {
		t.Fatalf("rulesets: %v %v", list, err)
	}
	for _, tok := range []struct {
		token, want string
	}{{writeToken, "never"}, {bypassToken, "always"}} {
		var rs map[string]any
		if err := json.Unmarshal(get("/repos/{owner}/{repo}/rulesets/{ruleset_id}", fmt.Sprintf("/repos/octo/demo/rulesets/%d", id), tok.token), &rs); err != nil {
			t.Fatal(err)
		}
		if rs["current_user_can_bypass"] != tok.want || len(rs["rules"].([]any)) != 4 {
			t.Errorf("ruleset for %s: current_user_can_bypass %v, rules %v; want %s and 4 rules", tok.token, rs["current_user_can_bypass"], rs["rules"], tok.want)
		}
	}
	var rules []map[string]any
	if err := json.Unmarshal(get("/repos/{owner}/{repo}/rules/branches/{branch}", "/repos/octo/demo/rules/branches/feature", writeToken), &rules); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range rules {
		types = append(types, fmt.Sprint(r["type"]))
		if r["ruleset_id"] != float64(id) {
			t.Errorf("rule %v: ruleset_id %v, want %d", r["type"], r["ruleset_id"], id)
		}
	}
	if strings.Join(types, ",") != "required_signatures,required_status_checks,update,pull_request" {
		t.Errorf("rules on feature: %v, want the active ruleset's four (not the evaluate one's deletion)", types)
	}
	if err := json.Unmarshal(get("/repos/{owner}/{repo}/rules/branches/{branch}", "/repos/octo/demo/rules/branches/main", writeToken), &rules); err != nil || len(rules) != 0 {
		t.Errorf("rules on main (excluded): %v %v", rules, err)
	}
}
