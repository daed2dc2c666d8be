package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The one command-line grammar (STYLE.md, round 4): every command names a
// pull request as owner/repo#N or its URL and a repository as owner/repo,
// takes its flags before or after them, has a --help with a usage line
// and an example, and answers an unknown flag or an extra argument with
// exit 3 and one line. What a command understood is read from the
// requests it sends to a GitHub that refuses every token (401), so the
// tests need no loop and no network.

// target is the repository (and PR) a request names.
type target struct {
	Owner, Repo string
	Number      int
}

// refusingGitHub answers every request 401 and records what each names:
// GraphQL variables (owner, name, number) or a REST path
// /repos/{owner}/{repo}/….
type refusingGitHub struct {
	*httptest.Server
	mu      sync.Mutex
	targets []target
}

func newRefusingGitHub(t *testing.T) *refusingGitHub {
	t.Helper()
	g := &refusingGitHub{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var tg target
		if strings.HasSuffix(r.URL.Path, "/graphql") {
			var body struct {
				Variables map[string]any `json:"variables"`
			}
			b, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(b, &body)
			tg.Owner, _ = body.Variables["owner"].(string)
			tg.Repo, _ = body.Variables["name"].(string)
			if n, ok := body.Variables["number"].(float64); ok {
				tg.Number = int(n)
			}
		} else if parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/"); len(parts) >= 3 && parts[0] == "repos" {
			tg.Owner, tg.Repo = parts[1], parts[2]
			if len(parts) >= 5 && (parts[3] == "pulls" || parts[3] == "issues") {
				_, _ = fmt.Sscan(parts[4], &tg.Number)
			}
		}
		if tg.Owner != "" {
			g.mu.Lock()
			g.targets = append(g.targets, tg)
			g.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *refusingGitHub) seen() []target {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]target(nil), g.targets...)
}

// env is the environment of a user whose token GitHub refuses, with the
// API at the refusing server.
func (g *refusingGitHub) env(extra map[string]string) func(string) string {
	m := map[string]string{"GH_TOKEN": "ghp_refused", "GITHUB_API_URL": g.URL, "GITHUB_GRAPHQL_URL": g.URL + "/graphql", "GITHUB_SERVER_URL": g.URL}
	for k, v := range extra {
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

type ran struct {
	code           ExitCode
	stdout, stderr string
}

func run(getenv func(string) string, args ...string) ran {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{Getenv: getenv, Stdout: &out, Stderr: &errb, Version: "test"})
	return ran{code, out.String(), errb.String()}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCLI_APullRequestAndARepositoryAreNamedOneWayWhereverTheFlagsStand:
// each spelling reaches GitHub naming the same pull request or repository.
func TestCLI_APullRequestAndARepositoryAreNamedOneWayWhereverTheFlagsStand(t *testing.T) {
	t.Parallel()
	g := newRefusingGitHub(t)
	host := strings.TrimPrefix(g.URL, "http://")
	cfg := writeFile(t, "review-loop.yml", "shared_paths: [src/lib/**]\n")
	pr := target{"octo", "app", 7}
	repo := target{Owner: "octo", Repo: "app"}
	for _, tc := range []struct {
		name string
		args []string
		want target
	}{
		{"status owner/repo#N", []string{"status", "octo/app#7"}, pr},
		{"status a PR URL", []string{"status", g.URL + "/octo/app/pull/7"}, pr},
		{"status a PR URL of its files tab", []string{"status", g.URL + "/octo/app/pull/7/files?w=1#diff"}, pr},
		{"status the deprecated --repo and --pr", []string{"status", "--repo", "octo/app", "--pr", "7"}, pr},
		{"plan owner/repo#N", []string{"plan", "octo/app#7"}, pr},
		{"plan a PR URL", []string{"plan", "http://" + strings.ToUpper(host) + "/octo/app/pull/7"}, pr},
		{"doctor owner/repo", []string{"doctor", "octo/app"}, repo},
		{"doctor with the flag before the repository", []string{"doctor", "--config-file", cfg, "octo/app"}, repo},
		{"doctor with the flag after the repository", []string{"doctor", "octo/app", "--config-file", cfg}, repo},
		{"doctor with the flag after the repository, = form", []string{"doctor", "octo/app", "--config-file=" + cfg}, repo},
		{"doctor with -- before the repository", []string{"doctor", "--config-file", cfg, "--", "octo/app"}, repo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One server per case: the requests say what this case named.
			g := newRefusingGitHub(t)
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				args[i] = strings.Replace(a, host, strings.TrimPrefix(g.URL, "http://"), 1)
				args[i] = strings.Replace(args[i], strings.ToUpper(host), strings.ToUpper(strings.TrimPrefix(g.URL, "http://")), 1)
			}
			r := run(g.env(nil), args...)
			if r.code != ExitError {
				t.Fatalf("exit %d, want %d (GitHub refuses the token)\nstdout:\n%s\nstderr:\n%s", r.code, ExitError, r.stdout, r.stderr)
			}
			seen := g.seen()
			if len(seen) == 0 {
				t.Fatalf("no request named a repository\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
			got := seen[0]
			if tc.want.Number == 0 {
				got.Number = 0
			}
			if got != tc.want {
				t.Errorf("the first request named %+v, want %+v", got, tc.want)
			}
		})
	}
}

// grammarCommands are every command with arguments that parse.
var grammarCommands = []struct {
	name string
	args []string // valid positionals
}{
	{"cycle", nil},
	{"publish", []string{"prepared"}},
	{"status", []string{"octo/app#7"}},
	{"doctor", []string{"octo/app"}},
	{"plan", []string{"octo/app#7"}},
	{"report", []string{"octo/app"}},

	{"watch", []string{"octo/app#7"}},
	{"demo", nil},
	{"version", nil},
}

// TestCLI_EveryCommandHasHelpWithAUsageLineAndAnExample: --help, before
// or after the arguments, and `review-loop help NAME` print the
// command's description, usage and example on stdout, exit 0, and run
// nothing.
func TestCLI_EveryCommandHasHelpWithAUsageLineAndAnExample(t *testing.T) {
	t.Parallel()
	if got := len(grammarCommands); got != len(commands()) {
		t.Fatalf("the table has %d commands, review-loop %d", got, len(commands()))
	}
	for _, c := range grammarCommands {
		for _, args := range [][]string{
			append([]string{c.name, "--help"}, c.args...),
			append(append([]string{c.name}, c.args...), "-h"),
			{"help", c.name},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				g := newRefusingGitHub(t)
				r := run(g.env(nil), args...)
				if r.code != ExitOK || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
				for _, want := range []string{"USAGE\n  review-loop " + c.name, "EXAMPLES\n  $ review-loop " + c.name, "--help"} {
					if !strings.Contains(r.stdout, want) {
						t.Errorf("the help lacks %q:\n%s", want, r.stdout)
					}
				}
				if desc, _, _ := strings.Cut(r.stdout, "\n"); len(desc) < 20 || strings.HasPrefix(desc, "USAGE") {
					t.Errorf("the help opens with %q, want a description", desc)
				}
				if len(g.seen()) > 0 {
					t.Errorf("--help sent requests: %+v", g.seen())
				}
			})
		}
	}
}

// TestCLI_AnUnknownFlagOrAnExtraArgumentIsExitThreeAndOneLine: wherever
// it stands, a mistake in the command line is the README's exit code 3
// and one line on stderr naming it and the command's --help, before any
// request.
func TestCLI_AnUnknownFlagOrAnExtraArgumentIsExitThreeAndOneLine(t *testing.T) {
	t.Parallel()
	for _, c := range grammarCommands {
		cases := map[string][]string{
			"an unknown flag first": append([]string{c.name, "--bogus"}, c.args...),
			"an unknown flag last":  append(append([]string{c.name}, c.args...), "--bogus"),
			"an extra argument":     append(append([]string{c.name}, c.args...), "extra"),
		}
		for name, args := range cases {
			t.Run(c.name+": "+name, func(t *testing.T) {
				t.Parallel()
				g := newRefusingGitHub(t)
				r := run(g.env(nil), args...)
				if r.code != ExitUsage {
					t.Errorf("%v: exit %d, want %d", args, r.code, ExitUsage)
				}
				line := strings.TrimSuffix(r.stderr, "\n")
				bad := "--bogus"
				if strings.HasPrefix(name, "an extra") {
					bad = `"extra"`
				}
				if r.stdout != "" || strings.Contains(line, "\n") || !strings.Contains(line, bad) || !strings.Contains(line, "review-loop "+c.name+" --help") {
					t.Errorf("%v: stdout %q, stderr %q; want one line on stderr naming %s and `review-loop %s --help`", args, r.stdout, r.stderr, bad, c.name)
				}
				if len(g.seen()) > 0 {
					t.Errorf("a bad command line sent requests: %+v", g.seen())
				}
			})
		}
	}
}

// TestCLI_ABadPullRequestOrRepositoryIsAUsageError: what is not a PR or
// a repository, and a PR URL on another server than the one set, are
// exit 3 and one line.
func TestCLI_ABadPullRequestOrRepositoryIsAUsageError(t *testing.T) {
	t.Parallel()
	g := newRefusingGitHub(t)
	for _, args := range [][]string{
		{"plan", "octo/app"},
		{"plan", "octo/app#0"},
		{"plan", "octo/app#07"},
		{"plan", "octo#7"},
		{"plan", "-octo/app#7"},
		{"plan", "https://github.com/octo/app/issues/7"},
		{"plan", "https://github.com/octo/app/pull/x"},
		{"plan", "ftp://github.com/octo/app/pull/7"},
		{"status", "https://github.com/octo/app/pull/7"}, // GITHUB_SERVER_URL is the refusing server
		{"status"},
		{"status", "octo/app#7", "--repo", "octo/app", "--pr", "7"},
		{"doctor", "octo"},
		{"doctor", "octo/app/x"},
		{"doctor", "octo/app#7"},
		{"publish"},
	} {
		r := run(g.env(nil), args...)
		if r.code != ExitUsage || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and one line", args, r.code, r.stdout, r.stderr, ExitUsage)
		}
	}
	if len(g.seen()) > 0 {
		t.Errorf("a bad command line sent requests: %+v", g.seen())
	}
}

// TestCLI_TheDeprecatedStatusFlagsSaySo: --repo and --pr still work, with
// one warning line that names the new spelling.
func TestCLI_TheDeprecatedStatusFlagsSaySo(t *testing.T) {
	t.Parallel()
	g := newRefusingGitHub(t)
	r := run(g.env(nil), "status", "--repo", "octo/app", "--pr", "7")
	if !strings.Contains(r.stderr, "review-loop status: --repo is deprecated: name the pull request as owner/repo#N") {
		t.Errorf("stderr %q lacks the deprecation", r.stderr)
	}
	if h := run(g.env(nil), "status", "--help"); strings.Contains(h.stdout, "--repo") {
		t.Errorf("the help lists the deprecated flag:\n%s", h.stdout)
	}
}

// TestCLI_DoctorConfigFileChecksALocalFileCompletely: `doctor
// --config-file PATH` alone checks a file of this machine, offline and
// with no token, nested keys and the engines of `prices` included.
func TestCLI_DoctorConfigFileChecksALocalFileCompletely(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	for _, tc := range []struct {
		name, text string
		code       ExitCode
		want       string
	}{
		{"a misspelt engine in prices", "prices:\n  bugbott: 0.5\n", ExitError, "prices.bugbott: unknown engine (did you mean bugbot?"},
		{"a misspelt key in an engine's author", "engines:\n  - name: mybot\n    author:\n      login: [my-bot]\n", ExitError,
			"engines[0].author.login: unknown key (did you mean logins?"},
		{"a valid file", "prices:\n  bugbot: 0.5\n  actions_minute: 0.008\n", ExitOK, ": valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, "review-loop.yml", tc.text)
			r := run(none, "doctor", "--config-file", path)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.want) {
				t.Errorf("exit %d, want %d; stdout lacks %q:\n%s\nstderr:\n%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
	if r := run(none, "doctor", "--config-file", filepath.Join(t.TempDir(), "none.yml")); r.code != ExitError || !strings.Contains(r.stderr, "none.yml") {
		t.Errorf("a missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLI_OfflineErrorsNameTheNetworkNotTheToken: with GitHub out of
// reach, doctor and status say so and that the token was not checked;
// a token GitHub refuses (401) is named as the token's fault.
func TestCLI_OfflineErrorsNameTheNetworkNotTheToken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	offline := func(k string) string {
		return map[string]string{"GH_TOKEN": "ghp_x", "GITHUB_API_URL": closed, "GITHUB_GRAPHQL_URL": closed + "/graphql", "GITHUB_SERVER_URL": closed}[k]
	}
	r := run(offline, "doctor", "octo/app")
	if r.code != ExitError || !strings.Contains(r.stdout, "[ ] network: cannot reach "+strings.TrimPrefix(closed, "http://")) || strings.Contains(r.stdout, "fix: use a token") {
		t.Errorf("doctor offline: exit %d\n%s", r.code, r.stdout)
	}
	r = run(offline, "status", "octo/app#7")
	if r.code != ExitError || !strings.Contains(r.stderr, "cannot reach") || !strings.Contains(r.stderr, "the token was not checked") {
		t.Errorf("status offline: exit %d, stderr %q", r.code, r.stderr)
	}
	g := newRefusingGitHub(t)
	r = run(g.env(nil), "doctor", "octo/app")
	if r.code != ExitError || !strings.Contains(r.stdout, "[ ] token: GitHub does not accept the token (401") {
		t.Errorf("doctor with a refused token: exit %d\n%s", r.code, r.stdout)
	}
}

// TestParsePR_ReferencesAndURLs: the spellings of a pull request, and
// what is not one.
func TestParsePR_ReferencesAndURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, server string
		want       PRRef
	}{
		{"octo/app#7", "", PRRef{Owner: "octo", Repo: "app", Number: 7}},
		{"Octo-Org/my.app_2#12345", "", PRRef{Owner: "Octo-Org", Repo: "my.app_2", Number: 12345}},
		{"https://github.com/octo/app/pull/7", "", PRRef{Host: "github.com", Owner: "octo", Repo: "app", Number: 7}},
		{"https://github.com/octo/app/pull/7/", "", PRRef{Host: "github.com", Owner: "octo", Repo: "app", Number: 7}},
		{"https://github.com/octo/app/pull/7/files#diff-1", "https://github.com", PRRef{Host: "github.com", Owner: "octo", Repo: "app", Number: 7}},
		{"https://GHE.example.com/octo/app/pull/7?w=1", "", PRRef{Host: "ghe.example.com", Owner: "octo", Repo: "app", Number: 7}},
		{"https://ghe.example.com/octo/app/pull/7", "https://ghe.example.com/", PRRef{Host: "ghe.example.com", Owner: "octo", Repo: "app", Number: 7}},
	} {
		got, err := ParsePR(tc.in, tc.server)
		if err != nil || got != tc.want {
			t.Errorf("ParsePR(%q, %q) = %+v, %v; want %+v", tc.in, tc.server, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, server string }{
		{"octo/app", ""}, {"octo/app#", ""}, {"octo/app#-1", ""}, {"octo/app#+1", ""}, {"octo/app#1x", ""}, {"octo/app#99999999999999999999", ""},
		{"octo/../app#1", ""}, {"octo/..#1", ""}, {"-octo/app#1", ""}, {"octo-/app#1", ""}, {"oc to/app#1", ""}, {"/app#1", ""},
		{"https://github.com/octo/app/issues/7", ""}, {"https://github.com/octo/app/pull", ""}, {"https://github.com/octo/app/pull/0", ""},
		{"https://user:pw@github.com/octo/app/pull/7", ""}, {"git://github.com/octo/app/pull/7", ""}, {"https:///octo/app/pull/7", ""},
		{"https://evil.example/octo/app/pull/7", "https://github.com"},
	} {
		if got, err := ParsePR(tc.in, tc.server); err == nil {
			t.Errorf("ParsePR(%q, %q) = %+v, want an error", tc.in, tc.server, got)
		}
	}
}

// TestEndpointsFor_AServerPRURLNamesItsAPI: a PR URL on a GitHub
// Enterprise Server, with no server of the user's, points the API there;
// github.com, owner/repo#N and a server the user set keep theirs.
func TestEndpointsFor_AServerPRURLNamesItsAPI(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	ghes := endpointsFor(none, "ghe.example.com")
	for k, want := range map[string]string{"GITHUB_SERVER_URL": "https://ghe.example.com", "GITHUB_API_URL": "https://ghe.example.com/api/v3", "GITHUB_GRAPHQL_URL": "https://ghe.example.com/api/graphql"} {
		if got := ghes(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	set := func(k string) string {
		return map[string]string{"GITHUB_SERVER_URL": "https://mine.example", "GITHUB_API_URL": "https://mine.example/api/v3"}[k]
	}
	for _, tc := range []struct {
		getenv func(string) string
		host   string
	}{{none, "github.com"}, {none, ""}, {set, "mine.example"}} {
		if got := endpointsFor(tc.getenv, tc.host)("GITHUB_API_URL"); got != tc.getenv("GITHUB_API_URL") {
			t.Errorf("host %q: GITHUB_API_URL = %q, want %q", tc.host, got, tc.getenv("GITHUB_API_URL"))
		}
	}
}

// TestSpec_ACommandToComeIsOneMoreSpec: the report command of LW/EQ2
// (`report <owner/repo> [--since 30d]`) is a spec like the others: its
// flag stands anywhere, its repository is checked, its help is made.
func TestSpec_ACommandToComeIsOneMoreSpec(t *testing.T) {
	t.Parallel()
	report := &spec{
		name: "report", short: "a per-engine scorecard", long: "Print a per-engine scorecard of recent pull requests.",
		args:    []positional{{name: "<owner/repo>", kind: argRepo}},
		example: []string{"review-loop report octo/app --since 30d"},
		flags:   func(fs *flag.FlagSet) { fs.String("since", "30d", "how far back, as `AGE`") },
	}
	for _, args := range [][]string{{"octo/app", "--since", "7d"}, {"--since", "7d", "octo/app"}, {"--since=7d", "octo/app"}} {
		inv, err := report.parse(args, "")
		if err != nil || inv.repo.String() != "octo/app" || inv.string("since") != "7d" {
			t.Errorf("%v: %+v, %v", args, inv, err)
		}
	}
	if _, err := report.parse([]string{"octo/app#1"}, ""); err == nil {
		t.Error("a PR taken for a repository")
	}
	var b bytes.Buffer
	report.writeHelp(&b)
	if !strings.Contains(b.String(), "USAGE\n  review-loop report [flags] <owner/repo>\n") || !strings.Contains(b.String(), "--since AGE  how far back, as AGE (default 30d)") {
		t.Errorf("help:\n%s", b.String())
	}
}

func FuzzParsePR(f *testing.F) {
	for _, s := range []string{"octo/app#7", "https://github.com/octo/app/pull/7/files", "octo/app", "https://x/y/z/pull/1", "a/b#0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pr, err := ParsePR(s, "")
		if err != nil {
			return
		}
		if pr.Number <= 0 || !validOwner(pr.Owner) || !validRepo(pr.Repo) {
			t.Fatalf("%q parsed to %+v", s, pr)
		}
		if again, err := ParsePR(pr.String(), ""); err != nil || again.Owner != pr.Owner || again.Repo != pr.Repo || again.Number != pr.Number {
			t.Fatalf("%q → %s → %+v, %v", s, pr, again, err)
		}
	})
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"30d", "12h", "2w", "2026-11-01", "0d", "-3d", "99999d", "d", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, now)
		if err != nil {
			if !strings.Contains(err.Error(), "--since") {
				t.Fatalf("%q: error %v does not name --since", s, err)
			}
			return
		}
		if _, derr := time.Parse("2006-01-02", s); derr != nil && !got.Before(now) {
			t.Fatalf("%q: an age gives %v, not before now", s, got)
		}
	})
}
