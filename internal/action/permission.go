package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// permissionOf returns a user's permission on the repository, asked once
// per run (TB3).
func (r *runner) permissionOf(ctx context.Context, owner, repo, login string) (github.Permission, error) {
	key := strings.ToLower(owner + "/" + repo + "@" + login)
	if p, ok := r.permissions[key]; ok {
		return p, nil
	}
	p, err := r.gh.CollaboratorPermission(ctx, owner, repo, login)
	if err != nil {
		return p, err
	}
	if r.permissions == nil {
		r.permissions = map[string]github.Permission{}
	}
	r.permissions[key] = p
	return p, nil
}

// refuseWithoutWrite refuses a writing command from a commenter without
// write, maintain or admin permission (TB3): the author association says
// nothing about the role (a COLLABORATOR may only triage). It returns a
// one-line reason, or "" when the command may run. An unreadable
// permission refuses too: the command never runs unchecked.
func (c *prCycle) refuseWithoutWrite(ctx context.Context, kind string) string {
	if !loop.CommandWrites(kind) {
		return ""
	}
	login := c.wake.Source
	if login == "" {
		login = c.wake.Actor
	}
	if login == "" {
		return fmt.Sprintf("`%s` needs write permission and the commenter is unknown; refused", kind)
	}
	p, err := c.permissionOf(ctx, c.owner, c.repo, login)
	if err != nil {
		return fmt.Sprintf("`%s` by @%s refused: its permission could not be checked: %v", kind, login, err)
	}
	if loop.PermissionWrites(p.Permission, p.RoleName) {
		return ""
	}
	role := p.RoleName
	if role == "" {
		role = p.Permission
	}
	return fmt.Sprintf("`%s` by @%s refused: it needs write, maintain or admin permission on %s/%s, and @%s has %s", kind, login, c.owner, c.repo, login, role)
}
