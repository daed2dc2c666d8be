package ghfake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Roles are the repository roles SetPermission accepts.
var Roles = []string{"admin", "maintain", "write", "triage", "read", "none"}

// SetPermission gives login a repository role, as reported by
// GET /repos/{owner}/{repo}/collaborators/{username}/permission.
func (f *Fake) SetPermission(owner, repo, login, role string) error {
	if !slices.Contains(Roles, role) {
		return fmt.Errorf("role %q is not one of %v", role, Roles)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repo)]
	if r == nil {
		return fmt.Errorf("no repository %s/%s", owner, repo)
	}
	if r.roles == nil {
		r.roles = map[string]string{}
	}
	f.addUserLocked(login, 0, false)
	r.roles[strings.ToLower(strings.TrimSuffix(login, "[bot]"))] = role
	return nil
}

// legacyPermission maps a role to the `permission` field: "the maintain
// role is mapped to write and the triage role is mapped to read"
// (docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user).
func legacyPermission(role string) string {
	switch role {
	case "maintain":
		return "write"
	case "triage":
		return "read"
	}
	return role
}

// getCollaboratorPermission serves a user's permission on the repository:
// the owner is admin; a user given no role reads a public repository
// (permission and role_name "read"); an unknown login is 404.
func getCollaboratorPermission(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	login := strings.ToLower(strings.TrimSuffix(r.PathValue("username"), "[bot]"))
	if rp == nil || f.users[login] == nil && !strings.EqualFold(login, rp.owner) {
		notFound(w)
		return
	}
	role, ok := rp.roles[login]
	switch {
	case ok:
	case strings.EqualFold(login, rp.owner):
		role = "admin"
	default:
		role = "read"
	}
	u := f.simpleUser(login)
	u["role_name"] = role
	writeJSON(w, http.StatusOK, map[string]any{"permission": legacyPermission(role), "role_name": role, "user": u})
}

// mayEditOthersLocked reports whether id may edit another account's
// issue comment: "People with write access to a repository can edit
// comments" (docs.github.com/en/communities/moderating-comments-and-conversations/managing-disruptive-comments#editing-a-comment),
// and a GitHub App installation whose token may write issues (the
// Actions bot with `issues: write` or `pull-requests: write`) may too.
// A user with no role set counts by association: the owner and members
// write, as the fake's maintainers do. f.mu is held.
func (f *Fake) mayEditOthersLocked(rp *repo, id Identity) bool {
	if id.ReadOnly {
		return false
	}
	if id.Bot {
		return true
	}
	if role, ok := rp.roles[strings.ToLower(strings.TrimSuffix(id.Login, "[bot]"))]; ok {
		return role == "admin" || role == "maintain" || role == "write"
	}
	return id.Association == "OWNER" || id.Association == "MEMBER"
}
