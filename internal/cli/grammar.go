package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file is the one grammar every command shares: how a command is
// described (usage, description, example), how its arguments are split
// into flags and positionals (flags anywhere, `--` ends them), how a pull
// request and a repository are named, and the help text. A command is a
// spec and a run function; commands to come (`watch <owner/repo#N | PR
// URL>`, `report <owner/repo> [--since 30d]`) are two more specs.

// argKind is what a positional argument names.
type argKind int

const (
	argPR   argKind = iota + 1 // a pull request: owner/repo#N or its URL
	argRepo                    // a repository: owner/repo
	argPath                    // a local file or directory
)

// positional is one positional argument of a command.
type positional struct {
	name     string // as the usage line shows it: "<owner/repo#N | PR URL>"
	kind     argKind
	optional bool
	// or are flags that may stand in for the argument (an older
	// spelling); the usage line shows the argument as required.
	or []string
}

// spec describes a command: what the help prints and what the parser
// accepts.
type spec struct {
	name    string
	short   string // one line, for `review-loop --help`
	long    string // the description of `review-loop NAME --help`
	args    []positional
	example []string // whole command lines, without the leading "$ "
	// flags declares the command's flags on fs; nil for none.
	flags func(fs *flag.FlagSet)
	// deprecated are flags kept for old command lines and left out of the
	// help; using one prints a one-line warning.
	deprecated map[string]string
	// more is printed after the flags (cycle's inputs and environment).
	more func(w io.Writer)
}

// invocation is a parsed command line.
type invocation struct {
	spec  *spec
	fs    *flag.FlagSet
	set   map[string]bool // the flags given
	pr    *PRRef
	repo  *RepoRef
	path  string
	warns []string // deprecation warnings, one line each
}

// warn prints the deprecation warnings, once the command line is known
// to be good.
func (inv *invocation) warn(w io.Writer) {
	for _, l := range inv.warns {
		fmt.Fprintln(w, l)
	}
}

// usageLine is "review-loop NAME [flags] ARGS".
func (s *spec) usageLine() string {
	parts := []string{"review-loop", s.name}
	fs, visible := s.flagSet(), false
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := s.deprecated[f.Name]; !old {
			visible = true
		}
	})
	if visible {
		parts = append(parts, "[flags]")
	}
	for _, a := range s.args {
		if a.optional {
			parts = append(parts, "["+a.name+"]")
		} else {
			parts = append(parts, a.name)
		}
	}
	return strings.Join(parts, " ")
}

// flagSet is the command's flags, silent: the parser reports errors.
func (s *spec) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(s.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if s.flags != nil {
		s.flags(fs)
	}
	return fs
}

// parse splits args into flags and positionals wherever the flags stand,
// parses the flags, and checks and resolves the positionals: a PR by
// reference or URL (server is the GitHub server URL the user set, "" for
// none), a repository as owner/repo. A mistake is a *usageError of one
// line naming the command's --help; --help is flag.ErrHelp.
func (s *spec) parse(args []string, server string) (*invocation, error) {
	fs := s.flagSet()
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		// A flag that takes a value takes the next argument, as the flag
		// package reads it.
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
			return nil, s.usageErr("unknown flag -%s", name)
		}
		return nil, s.usageErr("%v", err)
	}
	inv := &invocation{spec: s, fs: fs, set: map[string]bool{}}
	fs.Visit(func(f *flag.Flag) {
		inv.set[f.Name] = true
		if why, ok := s.deprecated[f.Name]; ok {
			inv.warns = append(inv.warns, fmt.Sprintf("review-loop %s: --%s is deprecated: %s", s.name, f.Name, why))
		}
	})
	for i, a := range s.args {
		if i >= len(pos) {
			if !a.optional && !slices.ContainsFunc(a.or, func(f string) bool { return inv.set[f] }) {
				return nil, s.usageErr("missing %s (usage: %s)", a.name, s.usageLine())
			}
			continue
		}
		switch a.kind {
		case argPR:
			pr, err := ParsePR(pos[i], server)
			if err != nil {
				return nil, s.usageErr("%v", err)
			}
			inv.pr = &pr
		case argRepo:
			r, err := ParseRepo(pos[i])
			if err != nil {
				return nil, s.usageErr("%v", err)
			}
			inv.repo = &r
		case argPath:
			inv.path = pos[i]
		}
	}
	if len(pos) > len(s.args) {
		return nil, s.usageErr("unexpected argument %q (usage: %s)", pos[len(s.args)], s.usageLine())
	}
	return inv, nil
}

func (s *spec) usageErr(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf("%s: %s; see `review-loop %s --help`", s.name, fmt.Sprintf(format, args...), s.name)}
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// writeHelp prints the command's help in the shape of gh's: description,
// usage, flags, examples.
func (s *spec) writeHelp(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUSAGE\n  %s\n", strings.TrimSpace(s.long), s.usageLine())
	fs := s.flagSet()
	var lines [][2]string
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := s.deprecated[f.Name]; old {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if len(f.Name) == 1 {
			left = "-" + f.Name
		}
		if arg != "" && !isBoolFlag(f) {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		lines = append(lines, [2]string{left, usage})
	})
	lines = append(lines, [2]string{"--help", "show this help"})
	width := 0
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	fmt.Fprint(w, "\nFLAGS\n")
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l[0], l[1])
	}
	if len(s.example) > 0 {
		fmt.Fprint(w, "\nEXAMPLES\n")
		for _, e := range s.example {
			fmt.Fprintf(w, "  $ %s\n", e)
		}
	}
	if s.more != nil {
		s.more(w)
	}
}

// PRRef names a pull request: owner/repo#N, or its URL on a GitHub
// server. Host is the URL's host ("" for owner/repo#N).
type PRRef struct {
	Host, Owner, Repo string
	Number            int
}

// String is owner/repo#N.
func (p PRRef) String() string { return fmt.Sprintf("%s/%s#%d", p.Owner, p.Repo, p.Number) }

// RepoRef names a repository: owner/repo.
type RepoRef struct{ Owner, Repo string }

// String is owner/repo.
func (r RepoRef) String() string { return r.Owner + "/" + r.Repo }

// GitHub's rules for names: an owner is 1–39 letters, digits and inner
// dashes; a repository 1–100 letters, digits, '.', '-', '_', never "."
// or "..".
var (
	ownerRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$`)
	repoRE  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// ParseRepo reads owner/repo.
func ParseRepo(s string) (RepoRef, error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || !validOwner(owner) || !validRepo(name) {
		return RepoRef{}, fmt.Errorf("%q is not a repository: want owner/repo", s)
	}
	return RepoRef{Owner: owner, Repo: name}, nil
}

func validOwner(s string) bool { return ownerRE.MatchString(s) }
func validRepo(s string) bool  { return repoRE.MatchString(s) && s != "." && s != ".." }

// ParsePR reads owner/repo#N or a pull request's URL,
// https://HOST/owner/repo/pull/N (anything after N — /files, a query, an
// anchor — is ignored). server is the GitHub server the user set
// (GITHUB_SERVER_URL); a URL on another host is refused when one is set,
// since the token and the API are that server's.
func ParsePR(s, server string) (PRRef, error) {
	bad := fmt.Errorf("%q is not a pull request: want owner/repo#N or https://github.com/owner/repo/pull/N", s)
	if !strings.Contains(s, "://") {
		repo, num, ok := strings.Cut(s, "#")
		r, err := ParseRepo(repo)
		n, nerr := strconv.Atoi(num)
		if !ok || err != nil || nerr != nil || n <= 0 || num[0] == '+' || num[0] == '0' {
			return PRRef{}, bad
		}
		return PRRef{Owner: r.Owner, Repo: r.Repo, Number: n}, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return PRRef{}, bad
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" || !validOwner(parts[0]) || !validRepo(parts[1]) {
		return PRRef{}, bad
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 || parts[3][0] == '+' || parts[3][0] == '0' {
		return PRRef{}, bad
	}
	if server != "" {
		su, err := url.Parse(server)
		if err == nil && !strings.EqualFold(su.Host, u.Host) {
			return PRRef{}, fmt.Errorf("%q is on %s, but GITHUB_SERVER_URL is %s: unset it, or name the PR as owner/repo#N", s, u.Host, server)
		}
	}
	return PRRef{Host: strings.ToLower(u.Host), Owner: parts[0], Repo: parts[1], Number: n}, nil
}
