package loop

import (
	"errors"
	"testing"
)

func TestRule_TB3_OnlyWriteMaintainOrAdminMayCommandWrites(t *testing.T) {
	for _, tc := range []struct {
		permission, role string
		want             bool
	}{
		{"admin", "admin", true}, {"write", "maintain", true}, {"write", "write", true},
		{"read", "triage", false}, {"read", "read", false}, {"none", "", false},
		{"write", "", true}, {"read", "", false}, {"write", "custom-reviewer", true}, {"read", "custom-triager", false},
		{"", "", false},
	} {
		if got := PermissionWrites(tc.permission, tc.role); got != tc.want {
			t.Errorf("PermissionWrites(%q, %q) = %v, want %v", tc.permission, tc.role, got, tc.want)
		}
	}
	for _, k := range []string{"start", "approve", "reset", "skip", "stop", "resolve-stale"} {
		if !CommandWrites(k) {
			t.Errorf("%s does not count as writing", k)
		}
	}
	if CommandWrites("status") {
		t.Error("status counts as writing")
	}
}

// TestRule_TB3_AWritingCommandIsRefusedUnlessItsAuthorProvablyMayWrite:
// a command that only reads needs no permission; one that writes is
// refused, with a one-line reason, when the commenter is unknown, when
// their permission could not be read (never run unchecked), or when their
// role does not write; the role is named, or the base permission without
// one.
func TestRule_TB3_AWritingCommandIsRefusedUnlessItsAuthorProvablyMayWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, login, permission, role string
		readErr                       error
		want                          string
	}{
		{"status", "", "", "", nil, ""},
		{"status", "mallory", "read", "read", nil, ""},
		{"start", "maint", "write", "maintain", nil, ""},
		{"stop", "dev", "write", "", nil, ""},
		{"start", "", "", "", nil, "`start` needs write permission and the commenter is unknown; refused"},
		{"approve", "eve", "", "", errors.New("HTTP 502"), "`approve` by @eve refused: its permission could not be checked: HTTP 502"},
		{"reset", "tri", "read", "triage", nil, "`reset` by @tri refused: it needs write, maintain or admin permission on o/r, and @tri has triage"},
		{"skip", "rd", "read", "", nil, "`skip` by @rd refused: it needs write, maintain or admin permission on o/r, and @rd has read"},
	} {
		if got := CommandRefusal(tc.kind, tc.login, "o/r", tc.permission, tc.role, tc.readErr); got != tc.want {
			t.Errorf("%s by %q (%s/%s, %v):\n got %q\nwant %q", tc.kind, tc.login, tc.permission, tc.role, tc.readErr, got, tc.want)
		}
	}
}
