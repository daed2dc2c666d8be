package loop

import (
	"cmp"
	"fmt"
)

// This file says who may give a maintainer command (TB3).

// Maintainer commands that change the loop or the repository (TB3): start,
// approve, reset, skip, stop, resolve-stale, resume and accept (S11).
// status only reads.
var writingCommands = map[string]bool{
	"start": true, "approve": true, "reset": true, "skip": true, "stop": true, "resolve-stale": true,
	"resume": true, "accept": true,
}

// CommandWrites reports whether a maintainer command (by its word) writes
// and so needs write, maintain or admin permission on the repository (TB3).
func CommandWrites(kind string) bool { return writingCommands[kind] }

// PermissionWrites reports whether a collaborator permission lets its
// holder command writes (TB3). permission is the API's legacy base role
// (admin, write, read, none; maintain reads as write, triage as read);
// roleName is the assigned role where present (admin, maintain, write,
// triage, read, or a custom role, which counts by its base permission).
func PermissionWrites(permission, roleName string) bool {
	switch roleName {
	case "admin", "maintain", "write":
		return true
	case "triage", "read", "none":
		return false
	}
	return permission == "admin" || permission == "write"
}

// CommandRefusal is why a command of that kind by login may not run on
// repository repo (owner/name), or "" when it may (TB3). A command that
// only reads needs no permission. One that writes needs write, maintain
// or admin permission (PermissionWrites of the permission and role read
// for login); an unknown commenter, or a permission that could not be
// read (readErr), is refused too: the command never runs unchecked.
func CommandRefusal(kind, login, repo, permission, roleName string, readErr error) string {
	switch {
	case !CommandWrites(kind):
		return ""
	case login == "":
		return fmt.Sprintf("`%s` needs write permission and the commenter is unknown; refused", kind)
	case readErr != nil:
		return fmt.Sprintf("`%s` by @%s refused: its permission could not be checked: %v", kind, login, readErr)
	case PermissionWrites(permission, roleName):
		return ""
	}
	return fmt.Sprintf("`%s` by @%s refused: it needs write, maintain or admin permission on %s, and @%s has %s",
		kind, login, repo, login, cmp.Or(roleName, permission))
}
