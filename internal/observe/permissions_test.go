package observe

import (
	"context"
	"testing"
)

// TB3: a run asks GitHub for a commenter's permission once, whatever the
// case of the login, and each user's permission is their own.
func TestRule_TB3_ACommentersPermissionIsAskedOncePerRun(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	for login, role := range map[string]string{"maintainer": "write", "mallory": "read"} {
		if err := r.fake.SetPermission("octo", "app", login, role); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var ps Permissions
	r.fake.ResetRequests()
	for _, login := range []string{"maintainer", "Maintainer", "mallory", "maintainer"} {
		p, err := ps.Of(ctx, r.gh, "octo", "app", login)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: "read", false: "write"}[login == "mallory"]; p.Permission != want {
			t.Errorf("%s: permission %q, want %q", login, p.Permission, want)
		}
	}
	if n := len(r.fake.Requests()); n != 2 {
		t.Errorf("%d requests for four look-ups of two users, want 2", n)
	}
}
