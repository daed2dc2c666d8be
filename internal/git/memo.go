package git

import (
	"slices"
	"strings"
)

// A cycle asks git the same few questions several times: where the git
// directory is, what HEAD is, what the repository's own config holds. Their
// answers change only when something writes to the checkout, and only two
// things do while review-loop runs: a git write of its own and a
// repository command (which may run anything, git included). A Runner
// keeps each answer until either happens (the epoch), so a question asked
// again with nothing written in between runs no git.
//
// What is kept is an allow-list of queries (memoKey); which git calls
// leave the answers standing is an allow-list of read-only subcommands
// (readOnly): anything else, or any call in another directory, drops them.

// memoKey is the key under which the answer to args is kept, and whether
// it is kept at all: only a plain query in the checkout itself.
func (r *Runner) memoKey(o execOpts, args []string) (string, bool) {
	if o.dir != r.Dir || o.home != "" || len(o.extraEnv) > 0 || o.stdin != nil || len(o.files) > 0 {
		return "", false
	}
	switch {
	case slices.Equal(args, []string{"rev-parse", "--git-common-dir"}),
		slices.Equal(args, []string{"rev-parse", "--verify", "HEAD"}),
		slices.Equal(args, []string{"rev-parse", "--abbrev-ref", "HEAD"}),
		len(args) == 6 && args[0] == "config" && args[1] == "--file" && slices.Equal(args[3:], []string{"--no-includes", "--list", "-z"}):
		return strings.Join(args, "\x00"), true
	}
	return "", false
}

// readOnlyCommands are the git subcommands that change no ref, no config
// and no file of the repository's git directory that a kept answer reads
// (status may refresh the index's stat data, which none of them reads).
var readOnlyCommands = map[string]bool{
	"status": true, "diff": true, "cat-file": true, "show": true, "rev-parse": true, "ls-files": true,
	"for-each-ref": true, "log": true, "rev-list": true, "ls-tree": true, "merge-base": true,
}

// readOnly reports whether args (a subcommand first, as Run takes it)
// leaves every kept answer standing.
func readOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if args[0] == "config" {
		reads, writes := false, false
		for _, a := range args[1:] {
			switch a {
			case "--list", "-l", "--get", "--get-all", "--get-regexp":
				reads = true
			case "--unset", "--unset-all", "--replace-all", "--add", "--rename-section", "--remove-section", "--edit", "-e":
				writes = true
			}
		}
		return reads && !writes
	}
	return readOnlyCommands[args[0]]
}
