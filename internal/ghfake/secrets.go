package ghfake

import (
	"net/http"
	"slices"
	"strings"
)

// SetSecret records that the repository has an Actions secret of that
// name (the fake keeps no value: the API never returns one).
func (f *Fake) SetSecret(owner, repo, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repo)]
	if r == nil {
		return
	}
	if r.secrets == nil {
		r.secrets = map[string]bool{}
	}
	r.secrets[strings.ToUpper(name)] = true
}

// listRepoSecrets lists the names of the repository's Actions secrets. As
// on GitHub, only an admin (a classic token's repo scope, or a
// fine-grained token's Secrets read) sees them; an Actions token never
// does: 403 "Resource not accessible by integration".
// https://docs.github.com/en/rest/actions/secrets#list-repository-secrets
func listRepoSecrets(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	login := strings.ToLower(id.Login)
	role, ok := rp.roles[login]
	if !ok && strings.EqualFold(login, rp.owner) {
		role = "admin"
	}
	if id.Bot || role != "admin" {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": permissionMessage, "documentation_url": "https://docs.github.com/rest/actions/secrets#list-repository-secrets", "status": "403"})
		return
	}
	names := make([]string, 0, len(rp.secrets))
	for n := range rp.secrets {
		names = append(names, n)
	}
	slices.Sort(names)
	list := make([]map[string]any, 0, len(names))
	for _, n := range names {
		list = append(list, map[string]any{"name": n, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(list), "secrets": list})
}
