package loop

// Maintainer commands that change the loop or the repository (TB3): start,
// approve, reset, skip, stop, resolve-stale and resume. status only reads.
var writingCommands = map[string]bool{
	"start": true, "approve": true, "reset": true, "skip": true, "stop": true, "resolve-stale": true,
	"resume": true,
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
