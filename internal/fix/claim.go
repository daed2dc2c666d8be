package fix

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// Rule TB9: a fix commit holds only the files the fix claimed, with the
// content the fix gave them. The commit's pathspec is built as an
// allow-list: the files of the findings kept as fixed, filtered by
// CommitRefusal; everything else a command changed is put back.

// toolDirs are top-level directories whose files change how tools, hooks
// or editors run; a fix may change one only when a finding is on it.
var toolDirs = []string{".github", ".husky", ".vscode", ".devcontainer"}

// toolFiles are file names, at any depth, that change how git or a tool
// runs; a fix may change one only when a finding is on it.
var toolFiles = []string{".gitattributes", ".gitmodules", ".lfsconfig", ".devcontainer.json", ".pre-commit-config.yaml", ".envrc"}

// CommitRefusal says why review-loop never commits a change to p, or ""
// when it may. onPath is true when a finding of the fix is on that very
// path. Names are compared case-insensitively, as macOS and Windows file
// systems do.
func CommitRefusal(p string, onPath bool) string {
	l := strings.ToLower(path.Clean(strings.ReplaceAll(p, `\`, "/")))
	switch {
	case under(l, ".github/workflows"), under(l, ".github/actions"):
		return "review-loop never commits .github/workflows or .github/actions (TB9)"
	case IsAgentInstruction(l):
		return "an agent instruction file (" + p + "): review-loop never commits one"
	case onPath:
		return ""
	case slices.Contains(toolFiles, path.Base(l)):
		return "it changes how git or a tool runs and no finding is on it (TB9)"
	}
	for _, d := range toolDirs {
		if under(l, d) {
			return "it changes how tools run (" + d + "/) and no finding is on it (TB9)"
		}
	}
	return ""
}

// under reports whether p is dir or lies under it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// refusalFor is CommitRefusal for a file of a finding on fPath.
func refusalFor(p, fPath string) string { return CommitRefusal(p, p == fPath) }

// produced is the content a fix gave one file; gone means the fix
// deleted it.
type produced struct {
	content []byte
	gone    bool
}

// keep records the content the fix gave p, read now from the checkout
// (never through a symlink).
func (c *cycle) keep(p string) error {
	b, err := c.readFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.kept[p] = produced{gone: true}
	case err != nil:
		return fmt.Errorf("reading %s after the fix: %w", p, err)
	default:
		c.kept[p] = produced{content: b}
	}
	return nil
}

// confine makes the tree hold exactly the claimed files with the content
// their fix gave them (TB9): every other change (what setup, test and lint
// commands wrote, new files included) is put back to HEAD, and a claimed
// file a command changed after the fix gets the fix's content again. Each
// path put back is recorded with why.
func (c *cycle) confine(ctx context.Context) error {
	claimed := map[string]bool{}
	for _, r := range c.res.Results {
		if r.Outcome != OutcomeFixed {
			continue
		}
		for _, p := range r.Files {
			if why := refusalFor(p, c.paths[r.ID]); why != "" {
				return fmt.Errorf("%s: %s is claimed but %s", r.ID, p, why)
			}
			if _, ok := c.kept[p]; !ok {
				return fmt.Errorf("%s: %s is claimed but the fix's content was not recorded", r.ID, p)
			}
			claimed[p] = true
		}
	}
	changed, err := c.p.cfg.Git.ChangedFiles(ctx)
	if err != nil {
		return fmt.Errorf("reading the working tree: %w", err)
	}
	var back []string
	for _, p := range changed {
		if !claimed[p] {
			back = append(back, p)
			c.res.Reverted = append(c.res.Reverted, Revert{Path: p, Why: "changed by a command (setup, test or lint) or outside the claimed files; no fix claims it (TB9)"})
		}
	}
	// Every claimed file goes back to HEAD and gets the fix's content
	// again, so that no mode or content change a command made survives.
	var mine []string
	for p := range claimed {
		mine = append(mine, p)
	}
	slices.Sort(mine)
	tampered := map[string]bool{}
	for _, p := range mine {
		tampered[p] = !c.holdsKept(p)
	}
	if err := c.p.cfg.Git.RestoreFiles(ctx, append(back, mine...)); err != nil {
		return fmt.Errorf("putting back what no fix claims: %w", err)
	}
	for _, p := range mine {
		k := c.kept[p]
		if k.gone {
			if err := c.removeFile(p); err != nil {
				return err
			}
		} else if err := c.writeFile(p, k.content); err != nil {
			return fmt.Errorf("restoring the fix's content of %s: %w", p, err)
		}
		if tampered[p] {
			c.res.Reverted = append(c.res.Reverted, Revert{Path: p, Why: "a command changed it after the fix; the fix's own content is committed (TB9)"})
		}
	}
	for _, r := range c.res.Reverted {
		c.logf("TB9: put back %s: %s", r.Path, r.Why)
	}
	return nil
}

// holdsKept reports whether p in the checkout is what the fix left: a
// regular file with the fix's content, or absent when the fix deleted it.
func (c *cycle) holdsKept(p string) bool {
	k := c.kept[p]
	root, name, err := c.openRoot(p)
	if err != nil {
		return false
	}
	defer root.Close()
	info, err := root.Lstat(name)
	if k.gone {
		return errors.Is(err, fs.ErrNotExist)
	}
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	b, err := root.ReadFile(name)
	return err == nil && string(b) == string(k.content)
}

// removeFile deletes a file of the checkout through os.Root.
func (c *cycle) removeFile(p string) error {
	root, name, err := c.openRoot(p)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", p, err)
	}
	return nil
}
