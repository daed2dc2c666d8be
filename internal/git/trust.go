package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// hardening is prepended to every git invocation (TB2): hooks are looked
// up in /dev/null, where none can ever be planted, no fsmonitor program
// runs whatever the repository's config says, and no attributes or
// excludes file is read from a home directory. Pathspecs are literal
// (TB10): a file named like pathspec magic (":(glob)**", ":!x") names
// only itself.
func hardening() []string {
	return []string{"--literal-pathspecs", "-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false",
		// TB7: no attributes or excludes file from the (private) home.
		"-c", "core.attributesFile=" + os.DevNull, "-c", "core.excludesFile=" + os.DevNull}
}

// Snapshot is what the repository's git config and hooks held at one
// moment: the cycle takes one before any command runs and compares it
// with the checkout before every push (TB2).
type Snapshot struct {
	config map[string][]string // lower-case key → values, in order
	hooks  map[string]string   // hook file name → SHA-256 of its content
}

// Snapshot reads the repository's own config file (includes not followed)
// and the content of every file in its hooks directory.
func (r *Runner) Snapshot(ctx context.Context) (*Snapshot, error) {
	dir, err := r.commonDir(ctx)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{config: map[string][]string{}, hooks: map[string]string{}}
	for _, name := range []string{"config", "config.worktree"} {
		file := filepath.Join(dir, name)
		if _, err := os.Lstat(file); err != nil {
			continue
		}
		out, err := r.Run(ctx, "config", "--file", file, "--no-includes", "--list", "-z")
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		for _, e := range strings.Split(out, "\x00") {
			if e == "" {
				continue
			}
			k, v, _ := strings.Cut(e, "\n")
			k = strings.ToLower(k)
			s.config[k] = append(s.config[k], v)
		}
	}
	hooks := filepath.Join(dir, "hooks")
	entries, err := os.ReadDir(hooks)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("reading the hooks directory: %w", err)
	}
	for _, e := range entries {
		sum := "dir"
		if !e.IsDir() {
			b, err := os.ReadFile(filepath.Join(hooks, e.Name()))
			if err != nil {
				sum = "unreadable"
			} else {
				h := sha256.Sum256(b)
				sum = hex.EncodeToString(h[:])
			}
		}
		s.hooks[e.Name()] = sum
	}
	return s, nil
}

// Origin is origin's push URL, else its URL, as the repository's own
// config held it when the snapshot was taken (before any command ran).
func (s *Snapshot) Origin() string {
	for _, k := range []string{"remote.origin.pushurl", "remote.origin.url"} {
		if v := s.config[k]; len(v) > 0 && v[0] != "" {
			return v[0]
		}
	}
	return ""
}

// commonDir is the absolute directory holding the repository's config
// and hooks (shared by every worktree).
func (r *Runner) commonDir(ctx context.Context) (string, error) {
	out, err := r.Run(ctx, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("finding the git directory: %w", err)
	}
	dir := strings.TrimSpace(out)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.Dir, dir)
	}
	return dir, nil
}

// Gained lists what now holds that the snapshot did not: config values
// added or changed and hook files added or changed. Git's own upstream
// tracking (branch.<name>.*, written by `checkout -B`) is not counted.
func (s *Snapshot) Gained(now *Snapshot) []string {
	var gained []string
	for k, vs := range now.config {
		if strings.HasPrefix(k, "branch.") {
			continue
		}
		for _, v := range vs {
			if !slices.Contains(s.config[k], v) {
				gained = append(gained, "config "+k)
				break
			}
		}
	}
	for name, sum := range now.hooks {
		if s.hooks[name] != sum {
			gained = append(gained, "hook "+name)
		}
	}
	slices.Sort(gained)
	return gained
}

// checkUnchanged refuses a push when the repository's git config or hooks
// gained anything since base was taken (TB2).
// CheckUnchanged refuses (TB2) when the checkout's git config or hooks
// gained anything since Baseline was taken, before any command ran: a
// command that planted them is taken as hostile, and the cycle pushes
// nothing.
func (r *Repo) CheckUnchanged(ctx context.Context) error {
	if r.Baseline == nil {
		return nil
	}
	now, err := r.Git.Snapshot(ctx)
	if err != nil {
		return &RefusedError{Rule: "TB2", Reason: fmt.Sprintf("cannot read the repository's git config and hooks before pushing: %v", err)}
	}
	if gained := r.Baseline.Gained(now); len(gained) > 0 {
		return &RefusedError{Rule: "TB2", Reason: fmt.Sprintf("the repository's git config or hooks changed since the checkout (%s); a command run by the cycle may have planted them, so nothing is pushed", strings.Join(gained, ", "))}
	}
	return nil
}

// serverOrigin is the scheme://host[:port] of the GitHub server the
// credential belongs to.
func serverOrigin(server string) (*url.URL, error) {
	if server == "" {
		server = "https://github.com"
	}
	u, err := url.Parse(server)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("server URL %q is not an http(s) URL", server)
	}
	if u.Scheme == "http" && !isLoopback(u.Host) {
		// Plain HTTP would show the credential to the network: only a
		// server on this machine (a test double) may be reached so.
		return nil, fmt.Errorf("server URL %q is not HTTPS; the token is sent over HTTPS only", server)
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}, nil
}

// redactURL drops any user information from a URL before it is shown.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return s
}

// DropPersistedCredentials removes the credentials a checkout may have
// left in the repository's own config, where every command can read them
// (TB1): http.<url>.extraheader entries (actions/checkout without
// persist-credentials: false) and user information in remote URLs. It
// returns the keys it changed. review-loop authenticates its own fetch and
// push and needs neither.
func (r *Runner) DropPersistedCredentials(ctx context.Context) ([]string, error) {
	dir, err := r.commonDir(ctx)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "config")
	out, err := r.Run(ctx, "config", "--file", file, "--no-includes", "--list", "-z")
	if err != nil {
		return nil, fmt.Errorf("reading the repository's git config: %w", err)
	}
	var dropped []string
	for _, e := range strings.Split(out, "\x00") {
		k, v, _ := strings.Cut(e, "\n")
		lk := strings.ToLower(k)
		switch {
		case strings.HasPrefix(lk, "http.") && strings.HasSuffix(lk, ".extraheader"):
			if slices.Contains(dropped, k) {
				continue
			}
			if _, err := r.Run(ctx, "config", "--file", file, "--unset-all", k); err != nil {
				return dropped, fmt.Errorf("removing the persisted credential %s: %w", k, err)
			}
			dropped = append(dropped, k)
		case strings.HasPrefix(lk, "remote.") && (strings.HasSuffix(lk, ".url") || strings.HasSuffix(lk, ".pushurl")):
			u, err := url.Parse(v)
			if err != nil || u.User == nil {
				continue
			}
			u.User = nil
			if _, err := r.Run(ctx, "config", "--file", file, "--replace-all", k, u.String(), "^"+regexpQuote(v)+"$"); err != nil {
				return dropped, fmt.Errorf("removing the credential from %s: %w", k, err)
			}
			dropped = append(dropped, k)
		}
	}
	return dropped, nil
}

// regexpQuote escapes s for git config's value pattern (a POSIX ERE).
func regexpQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
