package git

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/review-loop/review-loop/internal/reap"
)

// TB7: review-loop's own git reads nothing a command can write.
//
//   - Every git child gets an environment built from nothing: a few
//     variables passed through by name (PATH, locale, proxies, CA
//     certificates), HOME and XDG_CONFIG_HOME in a directory of its own,
//     and no global or system config. Nothing the job's environment holds
//     for git (GIT_*) reaches it.
//   - Fetches that carry the credential run in a git directory
//     review-loop creates for that one operation, after every command has
//     ended (TB8): its config is empty, its objects are the checkout's. The
//     checkout's own .git/config — which a command can edit — is never read
//     by a git that holds the credential, so no insteadOf, pushInsteadOf,
//     receivepack, proxy or credential helper planted there applies.
//   - The URL is explicit, never a remote name, and must be the GitHub
//     server's over its scheme; a credential is never sent anywhere else.
//   - The credential reaches git through a credential helper that reads it
//     from a pipe on file descriptor 3, written once by review-loop: it is
//     in no process's environment or command line.

// passThrough are the variables of the job's environment git children
// receive; every other variable is dropped.
var passThrough = map[string]bool{
	"LANG": true, "LANGUAGE": true, "LC_ALL": true, "LC_CTYPE": true, "LC_MESSAGES": true, "TZ": true,
	"HTTPS_PROXY": true, "HTTP_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"https_proxy": true, "http_proxy": true, "no_proxy": true, "all_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "SYSTEMROOT": true,
}

// ownVars are the variables review-loop itself sets for one git run.
var ownVars = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"}

var (
	homeOnce sync.Once
	homeDir  string
	homeErr  error
)

// privateHome is the HOME of every git child: a directory this process
// creates once (mode 0700), holding nothing git reads.
func privateHome() (string, error) {
	homeOnce.Do(func() {
		homeDir, homeErr = os.MkdirTemp("", "review-loop-git-")
		if homeErr == nil {
			homeErr = os.Mkdir(filepath.Join(homeDir, "xdg"), 0o700)
		}
		if homeErr != nil {
			homeErr = fmt.Errorf("creating git's private home: %w", homeErr)
		}
	})
	return homeDir, homeErr
}

// environ is the environment of one git child: the pass-through variables
// of base (r.Env, else this process's environment), the isolation, and
// extra (review-loop's own GIT_AUTHOR_*, GIT_OBJECT_DIRECTORY).
func (r *Runner) environ(extra []string, home string) ([]string, error) {
	if home == "" {
		var err error
		if home, err = privateHome(); err != nil {
			return nil, err
		}
	}
	base := r.Env
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, 16)
	for _, kv := range base {
		if k, _, ok := strings.Cut(kv, "="); ok && passThrough[k] {
			env = append(env, kv)
		}
	}
	env = append(env,
		// TB13: git and what it starts by name (a credential helper's
		// commands) come from the system's directories only, never from a
		// directory the job's user can write, such as ~/.local/bin.
		"PATH="+SystemPath,
		// TB13: refs/replace/ is not honoured: a command's `git replace`
		// cannot change what a tree or commit holds.
		"GIT_NO_REPLACE_OBJECTS=1",
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "xdg"),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_SYSTEM="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		// No prompt, and no askpass program from any config.
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
	)
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		found := false
		for _, o := range ownVars {
			found = found || k == o
		}
		if !found {
			return nil, fmt.Errorf("git: refused: %s is not a variable review-loop sets for git (TB7)", k)
		}
		env = append(env, kv)
	}
	return env, nil
}

// credentialHelper answers git's "get" with what review-loop wrote on file
// descriptor 3 and ignores "store" and "erase". The command line names
// the descriptor, never the credential. It uses the shell's builtins only
// (git runs it with /bin/sh): no program is looked up by name, so nothing
// planted on any PATH is handed the credential (TB13).
const credentialHelper = `!f() { test "$1" = get || exit 0; while IFS= read -r l && [ -n "$l" ]; do :; done; while IFS= read -r l <&3; do printf '%s\n' "$l"; done; }; f`

// credentialPipe returns the read end of a pipe holding the credential
// helper's answer for token; the write end is already closed.
func credentialPipe(token string) (*os.File, error) {
	if strings.ContainsAny(token, "\n\x00") {
		return nil, errors.New("the token holds a line break")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// A pipe buffers far more than this before anyone reads.
	_, werr := fmt.Fprintf(pw, "username=x-access-token\npassword=%s\n", token)
	if cerr := pw.Close(); werr != nil || cerr != nil {
		pr.Close()
		return nil, errors.Join(werr, cerr)
	}
	return pr, nil
}

// Target is where a fetch goes and whether the credential goes
// with it.
type Target struct {
	URL string
	// Credential is true for the GitHub server's HTTP(S) URL with a token.
	Credential bool
}

// target checks remote, the explicit URL of a fetch, against the
// GitHub server: a token is sent only to the server's own scheme and host.
// A local repository (a path or file:// URL) gets no credential. Any other
// URL is refused when there is a token to send.
func (r *Runner) target(remote, token string) (Target, error) {
	if remote == "" {
		return Target{}, &RefusedError{Rule: "TB7", Reason: "the repository has no origin URL to fetch from or push to"}
	}
	if strings.HasPrefix(remote, "file://") || filepath.IsAbs(remote) {
		return Target{URL: remote}, nil
	}
	if token == "" {
		return Target{URL: remote}, nil
	}
	srv, err := serverOrigin(r.ServerURL)
	if err != nil {
		return Target{}, &RefusedError{Rule: "TB7", Reason: err.Error()}
	}
	u, err := url.Parse(remote)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return Target{}, &RefusedError{Rule: "TB7", Reason: fmt.Sprintf("the URL %q is not an %s URL on the GitHub server %s; the token is not sent", redactURL(remote), srv.Scheme, srv.Host)}
	case u.Scheme != srv.Scheme || !strings.EqualFold(u.Host, srv.Host):
		return Target{}, &RefusedError{Rule: "TB7", Reason: fmt.Sprintf("the URL's host %s://%s is not the GitHub server %s://%s; the token is not sent", u.Scheme, u.Host, srv.Scheme, srv.Host)}
	case u.User != nil:
		return Target{}, &RefusedError{Rule: "TB7", Reason: fmt.Sprintf("the URL %s carries credentials of its own; the token is not sent", redactURL(remote))}
	}
	return Target{URL: remote, Credential: true}, nil
}

// netRepo is a git directory review-loop creates for one fetch:
// an empty config, no hooks, and an object store of its own (TB13) that
// reads the checkout's objects as an alternate and writes nothing there;
// what a fetch brought is copied into the checkout afterwards (adopt).
type netRepo struct {
	base    string // the operation's directory, removed after it
	home    string // HOME and XDG_CONFIG_HOME of its git
	dir     string // the git directory
	private string // the operation's own object directory
	objects string // the checkout's object directory
	common  string // the checkout's git directory
}

// newNetRepo creates the operation's git directory after making sure no
// process a command started is still alive (TB8): from here to the end
// of the operation nothing but review-loop can write the files this git
// reads. The checkout's shallow list is copied in.
func (r *Runner) newNetRepo(ctx context.Context, common string) (*netRepo, error) {
	if err := reap.Clear(); err != nil {
		return nil, &RefusedError{Rule: "TB8", Reason: err.Error()}
	}
	if s, err := reap.Strays(); err != nil || len(s) > 0 {
		return nil, &RefusedError{Rule: "TB8", Reason: fmt.Sprintf("processes started by a command are still alive (pids %v, %v); nothing is fetched or pushed", s, err)}
	}
	home, err := privateHome()
	if err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp(home, "net-")
	if err != nil {
		return nil, err
	}
	// The operation's HOME is fresh too: no .netrc, XDG file or anything
	// else a command could have left in the shared private home.
	n := &netRepo{base: base, dir: filepath.Join(base, "git"), home: filepath.Join(base, "home"), private: filepath.Join(base, "objects"),
		objects: filepath.Join(common, "objects"), common: common}
	if strings.ContainsRune(n.objects, filepath.ListSeparator) {
		n.close()
		return nil, &RefusedError{Rule: "TB13", Reason: fmt.Sprintf("the checkout's object directory %q holds a %q", n.objects, filepath.ListSeparator)}
	}
	for _, d := range []string{n.home, n.private, filepath.Join(n.private, "pack"), filepath.Join(n.private, "info")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			n.close()
			return nil, err
		}
	}
	dir := n.dir
	if _, err := r.exec(ctx, execOpts{dir: base, home: n.home}, "init", "--quiet", "--bare", "--template=", dir); err != nil {
		n.close()
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(common, "shallow")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "shallow"), b, 0o600); err != nil {
			n.close()
			return nil, err
		}
	}
	return n, nil
}

func (n *netRepo) close() { _ = os.RemoveAll(n.base) }

// adopt copies the objects the operation wrote to its own store (packs
// and loose objects) into the checkout's object directory, each file
// through a temporary file and a rename, skipping those already there.
func (n *netRepo) adopt() error {
	return filepath.WalkDir(n.private, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(n.private, p)
		if err != nil {
			return err
		}
		if rel == "info" {
			return filepath.SkipDir // nothing of a fetch's own belongs there
		}
		if !d.Type().IsRegular() {
			return nil
		}
		dst := filepath.Join(n.objects, rel)
		if _, err := os.Lstat(dst); err == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return writeAtomic(dst, b)
	})
}

// run runs git in the operation's directory with the credential on fd 3
// when t carries one. The output is cleaned of the token.
func (n *netRepo) run(ctx context.Context, r *Runner, t Target, token string, args ...string) (string, error) {
	o := execOpts{dir: n.dir, home: n.home, extraEnv: []string{"GIT_OBJECT_DIRECTORY=" + n.private, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + n.objects}}
	pre := []string{"--git-dir=" + n.dir, "-c", "credential.helper="}
	if t.Credential {
		pipe, err := credentialPipe(token)
		if err != nil {
			return "", err
		}
		defer pipe.Close()
		o.files = []*os.File{pipe}
		pre = append(pre, "-c", "credential.helper="+credentialHelper)
	}
	out, err := r.exec(ctx, o, append(pre, args...)...)
	if err != nil && token != "" {
		var ce *CommandError
		if errors.As(err, &ce) {
			ce.Output = strings.ReplaceAll(ce.Output, token, "***")
		}
	}
	return out, err
}

// checkResolved refuses when git, as configured in gitDir, would fetch
// from anything but url after its URL rewriting (insteadOf).
func (r *Runner) checkResolved(ctx context.Context, gitDir, remote string) error {
	out, err := r.exec(ctx, execOpts{dir: gitDir}, "--git-dir="+gitDir, "ls-remote", "--get-url", remote)
	if err != nil {
		return err
	}
	if got := strings.TrimSpace(out); got != remote {
		return &RefusedError{Rule: "TB7", Reason: fmt.Sprintf("git would send to %s instead of %s after URL rewriting; nothing is sent", redactURL(got), redactURL(remote))}
	}
	return nil
}

// isLoopback reports whether host (host[:port]) is a loopback address.
func isLoopback(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
