package git

import (
	"errors"
	"fmt"
	"strings"
)

// forbidden enforces rule B5 on every argv before git runs: never merge
// (merge, pull), never skip hooks (--no-verify, commit -n), never force or
// delete on push (--force, -f, +refspec, --force-with-lease,
// --force-if-includes, --delete, -d, :branch, --mirror, --prune).
//
// The argv is read the way git reads it: global options come before the
// subcommand (-C dir, -c key=value, --git-dir=...), short flags combine
// (-an is -a -n) and stop at one that takes a value (-mn is -m "n"), long
// options may be abbreviated to any unambiguous prefix (--no-verif), and
// "--" ends the options. Whatever it cannot read — an unknown global
// option, an alias defined on the command line — is refused.
func forbidden(args []string) error {
	sub, rest, err := subcommand(args)
	if err != nil {
		return err
	}
	refuse := func(what string) error {
		return fmt.Errorf("git %s: refused: %s is never used (B5)", sub, what)
	}
	switch sub {
	case "merge", "pull":
		return fmt.Errorf("git %s: refused: the loop never merges (B5)", sub)
	}
	// The short options of the subcommands we check: the letters that
	// take a value (the rest of the group, or the next argument), and the
	// letters that are refused.
	var valued, optional, denied string
	switch sub {
	case "commit":
		valued, optional, denied = "mFCct", "uS", "n"
	case "push":
		valued, denied = "o", "fd"
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			return pushRefspecs(sub, rest[i+1:], refuse)
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a, "=")
			if long := deniedLong(sub, name); long != "" {
				return refuse(fmt.Sprintf("%q (%s)", a, long))
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j, ch := range a[1:] {
				if strings.ContainsRune(denied, ch) {
					return refuse(fmt.Sprintf("%q (-%c)", a, ch))
				}
				if strings.ContainsRune(optional, ch) {
					break
				}
				if strings.ContainsRune(valued, ch) {
					if j == len(a)-2 {
						i++ // the value is the next argument
					}
					break
				}
			}
		default:
			if err := pushRefspecs(sub, []string{a}, refuse); err != nil {
				return err
			}
		}
	}
	return nil
}

// pushRefspecs refuses, for push, a refspec that forces (+src:dst) or
// deletes (:dst).
func pushRefspecs(sub string, positional []string, refuse func(string) error) error {
	if sub != "push" {
		return nil
	}
	for _, a := range positional {
		switch {
		case strings.HasPrefix(a, "+"):
			return refuse(fmt.Sprintf("the forced refspec %q", a))
		case strings.HasPrefix(a, ":"):
			return refuse(fmt.Sprintf("the deleting refspec %q", a))
		}
	}
	return nil
}

// deniedLong returns the refused long option that name spells or
// abbreviates (git accepts any unambiguous prefix), or "".
func deniedLong(sub, name string) string {
	denied := []string{"--no-verify"}
	if sub == "push" {
		denied = append(denied, "--force", "--force-with-lease", "--force-if-includes", "--delete", "--mirror", "--prune")
	}
	for _, d := range denied {
		// "--no-" alone abbreviates every negation: refused too.
		if len(name) > 2 && strings.HasPrefix(d, name) {
			return d
		}
	}
	return ""
}

// globalWithValue are git's global options that take the next argument
// as their value when it is not attached with "=".
var globalWithValue = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--config-env": true, "--super-prefix": true, "--attr-source": true, "--list-cmds": true,
}

// globalFlags are git's global options without a value.
var globalFlags = map[string]bool{
	"-p": true, "--paginate": true, "-P": true, "--no-pager": true, "--bare": true,
	"--no-replace-objects": true, "--literal-pathspecs": true, "--glob-pathspecs": true,
	"--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-optional-locks": true,
	"--no-advice": true, "--exec-path": true,
}

// subcommand skips git's global options and returns the subcommand and
// its arguments. A configuration given on the command line that could
// turn a harmless subcommand into a refused one (an alias, a remote's
// forced or mirroring push) is refused.
func subcommand(args []string) (string, []string, error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:], nil
		}
		name, value, attached := strings.Cut(a, "=")
		switch {
		case globalWithValue[name]:
			if !attached {
				if i+1 >= len(args) {
					return "", nil, fmt.Errorf("git: refused: global option %s has no value", a)
				}
				i++
				value = args[i]
			}
			if name == "-c" || name == "--config-env" {
				if err := commandLineConfig(value); err != nil {
					return "", nil, err
				}
			}
		case globalFlags[name]:
		default:
			return "", nil, fmt.Errorf("git: refused: unknown global option %q", a)
		}
	}
	return "", nil, errors.New("git: no subcommand")
}

// commandLineConfig refuses a -c key=value (or --config-env key=var) that
// defines an alias or changes what a push sends.
func commandLineConfig(kv string) error {
	key, _, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	if strings.HasPrefix(key, "alias.") ||
		strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".push") || strings.HasSuffix(key, ".mirror")) ||
		strings.HasPrefix(key, "push.") {
		return fmt.Errorf("git: refused: -c %s could make a command merge, force or skip hooks (B5)", key)
	}
	return nil
}
