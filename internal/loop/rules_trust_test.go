package loop

import "testing"

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
