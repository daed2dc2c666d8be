package ghfake

import (
	"maps"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// GitRequest is one entry of the git traffic log: a smart-HTTP request to
// a repository's clone URL. Git traffic is kept apart from Requests(), the
// API log, as GitHub's API rate limits and request counts do not see it.
type GitRequest struct {
	// Service is "git-upload-pack" (fetch) or "git-receive-pack" (push).
	Service string
	Method  string
	Path    string
	// Login is who the request authenticated as; empty when refused with 401.
	Login  string
	Status int
}

// HTTPCloneURL is the repository's clone URL over the fake's own HTTP
// server, <URL>/<owner>/<repo>.git: what review-loop builds from
// GITHUB_SERVER_URL (the fake's URL serves as both API and server URL).
func (f *Fake) HTTPCloneURL(owner, repo string) string {
	return f.URL() + "/" + owner + "/" + repo + ".git"
}

// GitRequests returns the git traffic log so far. ResetRequests leaves it
// alone (tests count API requests and git requests separately); use
// ResetGitRequests.
func (f *Fake) GitRequests() []GitRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.gitLog)
}

// ResetGitRequests clears the git traffic log.
func (f *Fake) ResetGitRequests() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gitLog = nil
}

// gitRoute is a smart-HTTP request for one of the fake's repositories.
type gitRoute struct {
	repo    *repo
	rest    string // "info/refs", "git-upload-pack" or "git-receive-pack"
	service string
}

// matchGit recognises <owner>/<repo>[.git]/info/refs?service=...,
// .../git-upload-pack and .../git-receive-pack for an existing
// repository (GitHub accepts the clone URL with or without ".git").
// Anything else is left to the API.
func (f *Fake) matchGit(r *http.Request) (gitRoute, bool) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
	if len(parts) != 3 {
		return gitRoute{}, false
	}
	rt := gitRoute{rest: parts[2]}
	switch {
	case rt.rest == "info/refs" && r.Method == http.MethodGet:
		rt.service = r.URL.Query().Get("service")
		if rt.service != "git-upload-pack" && rt.service != "git-receive-pack" {
			return gitRoute{}, false
		}
	case (rt.rest == "git-upload-pack" || rt.rest == "git-receive-pack") && r.Method == http.MethodPost:
		rt.service = rt.rest
	default:
		return gitRoute{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rt.repo = f.repos[key(parts[0], strings.TrimSuffix(parts[1], ".git"))]
	return rt, rt.repo != nil
}

// gitIdentity authenticates a git request as GitHub does over HTTPS:
// HTTP Basic with the token as password and any user name (review-loop
// sends "x-access-token"). Without registered tokens every request is the
// default viewer, as for the API (identity).
func (f *Fake) gitIdentity(r *http.Request) (Identity, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.tokens) == 0 {
		return f.viewer, true
	}
	_, tok, ok := r.BasicAuth()
	if !ok {
		return Identity{}, false
	}
	id, ok := f.tokens[tok]
	return id, ok
}

// serveGit serves git's smart HTTP protocol with `git http-backend`, so a
// push runs the bare repository's pre-receive hook (protected branches,
// RejectPushes) exactly as a file:// push does. After a push the PRs
// follow their branches and OnPush hooks fire, as for PushCommit.
func (f *Fake) serveGit(w http.ResponseWriter, r *http.Request, rt gitRoute) {
	sw := &statusWriter{ResponseWriter: w}
	entry := GitRequest{Service: rt.service, Method: r.Method, Path: r.URL.Path}
	defer func() {
		entry.Status = sw.status
		f.mu.Lock()
		f.gitLog = append(f.gitLog, entry)
		f.mu.Unlock()
	}()
	id, ok := f.gitIdentity(r)
	if !ok {
		// GitHub asks for Basic credentials; git then tries its
		// credential helpers and fails without a prompt.
		sw.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(sw, "Invalid username or token. Password authentication is not supported for Git operations.", http.StatusUnauthorized)
		return
	}
	entry.Login = id.Login
	if rt.service == "git-receive-pack" && (id.ReadOnly || !f.mayPush(rt.repo, id)) {
		// GitHub's answer to a push with a token that may not write, or
		// by a user whose role may not (git shows a text/plain body as
		// "remote: ..." lines). It comes on the receive-pack
		// advertisement, before any object is sent.
		login := id.Login
		if id.Bot {
			login += "[bot]"
		}
		http.Error(sw, "Permission to "+rt.repo.owner+"/"+rt.repo.name+".git denied to "+login+".", http.StatusForbidden)
		return
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		http.Error(sw, "git not found: "+err.Error(), http.StatusInternalServerError)
		return
	}
	// http-backend finds the repository at GIT_PROJECT_ROOT + PATH_INFO,
	// and the bare repository is f.dir/<owner>/<name>.git (AddRepo).
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + rt.repo.owner + "/" + rt.repo.name + ".git/" + rt.rest
	h := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Dir:  f.dir,
		Env: []string{
			"GIT_PROJECT_ROOT=" + f.dir,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
			// http-backend enables receive-pack for an authenticated user.
			"REMOTE_USER=" + id.Login,
		},
		InheritEnv: []string{"PATH"},
	}
	h.Env = append(h.Env, f.hiddenRefsEnv(rt.repo)...)
	if p := r.Header.Get("Git-Protocol"); p != "" {
		// Protocol v2 is asked for with the Git-Protocol header. The CGI
		// passes it as HTTP_GIT_PROTOCOL, which recent http-backends read;
		// older ones read only GIT_PROTOCOL, so it is set here too.
		h.Env = append(h.Env, "GIT_PROTOCOL="+p)
	}
	h.ServeHTTP(sw, r2)
	if rt.rest == "git-receive-pack" {
		f.mu.Lock()
		events := f.syncRepoLocked(rt.repo)
		f.mu.Unlock()
		f.firePush(events)
	}
}

// mayPush is false for a user whose role on the repository (SetPermission)
// is read, triage or none: GitHub refuses their pushes. A user without a
// role set keeps the fake's default (the repository's owner).
func (f *Fake) mayPush(r *repo, id Identity) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	role, ok := r.roles[strings.ToLower(id.Login)]
	return id.Bot || !ok || role == "write" || role == "maintain" || role == "admin"
}

// hiddenRefsEnv is the git configuration, as GIT_CONFIG_* variables, that
// makes the base repository look as GitHub's does: a fork PR's head
// branch lives in the fork, so it is neither advertised nor pushable here
// (transfer.hideRefs; its head is served as refs/pull/<N>/head), and
// refs/pull/* are advertised to a fetch but refused to a push, with git's
// "deny updating a hidden ref" as GitHub answers (receive.hideRefs).
func (f *Fake) hiddenRefsEnv(r *repo) []string {
	f.mu.Lock()
	own, fork := map[string]bool{}, map[string]bool{}
	for _, p := range r.prs {
		if p.Fork {
			fork[p.HeadRef] = true
		} else {
			own[p.HeadRef] = true
		}
	}
	f.mu.Unlock()
	kv := [][2]string{{"receive.hideRefs", "refs/pull/"}}
	for _, b := range slices.Sorted(maps.Keys(fork)) {
		if !own[b] {
			kv = append(kv, [2]string{"transfer.hideRefs", "refs/heads/" + b})
		}
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(kv))}
	for i, c := range kv {
		env = append(env, "GIT_CONFIG_KEY_"+strconv.Itoa(i)+"="+c[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(i)+"="+c[1])
	}
	return env
}
