package ghfake

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// contentsDoc is the documentation_url GitHub gives with a contents 404.
const contentsDoc = "https://docs.github.com/rest/repos/contents#get-repository-content"

// maxContentSize is the largest file whose content the JSON answer
// carries: "Between 1-100 MB: Only the raw or object custom media types
// are supported. ... the content field will be an empty string and the
// encoding field will be \"none\""
// (docs.github.com/en/rest/repos/contents#get-repository-content).
const maxContentSize = 1 << 20

func contentsNotFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": contentsDoc})
}

// gitBytes runs git in the bare repository with literal pathspecs and
// returns its untrimmed output (a blob's bytes as they are); a query
// about full SHAs is answered once (gitPinned).
func gitBytes(ctx context.Context, r *repo, args ...string) ([]byte, error) {
	out, err := r.gitPinned(ctx, true, args...)
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// resolveContentRef turns ?ref= into a commit: a branch, then a tag, then
// a commit SHA (full or abbreviated), as GitHub's "the name of the
// commit/branch/tag" allows; "" when none names a commit. The ref files
// are read first (a branch's tip is a commit; a ref that is in neither
// its loose file nor packed-refs is one git would not find), so only a
// tag or a SHA costs a git process, once for a full SHA (gitPinned).
func resolveContentRef(ctx context.Context, r *repo, ref string) string {
	plain := !strings.Contains(ref, "..")
	if sha := r.branchSHA(ref); shaRe.MatchString(sha) && plain {
		return sha
	}
	var cands []string
	for _, c := range []string{"refs/heads/" + ref, "refs/tags/" + ref} {
		if !plain || readRefFile(r.bare, c) != "" {
			cands = append(cands, c)
		}
	}
	if len(ref) >= 4 && len(ref) <= 40 && strings.Trim(ref, "0123456789abcdefABCDEF") == "" {
		cands = append(cands, ref)
	}
	for _, c := range cands {
		if out, err := gitBytes(ctx, r, "rev-parse", "--verify", "--quiet", c+"^{commit}"); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}

// treeEntry is one line of `git ls-tree -l -z`.
type treeEntry struct {
	mode, typ, sha string
	size           int
	path           string
}

func lsTree(ctx context.Context, r *repo, commit string, paths ...string) ([]treeEntry, error) {
	out, err := gitBytes(ctx, r, append([]string{"ls-tree", "-l", "-z", commit, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	var es []treeEntry
	for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		fs := strings.Fields(meta)
		if len(fs) != 4 {
			return nil, fmt.Errorf("ls-tree line %q", rec)
		}
		size, _ := strconv.Atoi(fs[3])
		es = append(es, treeEntry{mode: fs[0], typ: fs[1], sha: fs[2], size: size, path: p})
	}
	return es, nil
}

// wrapBase64 encodes b as GitHub's contents API does (Ruby's
// Base64.encode64): lines of 60 characters, each ending in "\n".
func wrapBase64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	for len(s) > 60 {
		sb.WriteString(s[:60] + "\n")
		s = s[60:]
	}
	if s != "" {
		sb.WriteString(s + "\n")
	}
	return sb.String()
}

// getContent serves a file (base64 content) or a directory listing of the
// repository at ?ref= (default the default branch), read from the bare
// repository so pushes from anyone show.
// https://docs.github.com/en/rest/repos/contents#get-repository-content
func getContent(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	rp := f.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	var owner, name, def string
	if rp != nil {
		owner, name, def = rp.owner, rp.name, rp.defaultBranch
	}
	f.mu.Unlock()
	if rp == nil {
		contentsNotFound(w)
		return
	}
	// The mux has already cleaned the path ("..", "." and "//" redirect).
	p := strings.Trim(r.PathValue("path"), "/")
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = def
	}
	ctx := r.Context()
	commit := resolveContentRef(ctx, rp, ref)
	if commit == "" {
		contentsNotFound(w)
		return
	}
	c := contentLinks{owner: owner, name: name, ref: ref}
	if p == "" {
		es, err := lsTree(ctx, rp, commit)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, c.listing(es))
		return
	}
	es, err := lsTree(ctx, rp, commit, p)
	if err != nil || len(es) != 1 || es[0].path != p {
		contentsNotFound(w)
		return
	}
	e := es[0]
	if e.typ == "tree" {
		kids, err := lsTree(ctx, rp, commit, p+"/")
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, c.listing(kids))
		return
	}
	m := c.entry(e)
	if e.typ == "commit" {
		// A submodule answers the URL .gitmodules gives its path.
		m["submodule_git_url"] = submoduleURL(ctx, rp, commit, p)
		writeJSON(w, http.StatusOK, m)
		return
	}
	blob, err := gitBytes(ctx, rp, "cat-file", "blob", e.sha)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	if m["type"] == "symlink" {
		m["target"] = string(blob)
		writeJSON(w, http.StatusOK, m)
		return
	}
	m["encoding"], m["content"] = "base64", wrapBase64(blob)
	if len(blob) > maxContentSize {
		m["encoding"], m["content"] = "none", ""
	}
	writeJSON(w, http.StatusOK, m)
}

// submoduleURL reads the url of the submodule at path p from the
// commit's .gitmodules ("" when absent).
func submoduleURL(ctx context.Context, r *repo, commit, p string) string {
	out, err := gitBytes(ctx, r, "config", "--blob", commit+":.gitmodules", "--get-regexp", `^submodule\..*\.path$`)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if v == p {
			u, err := gitBytes(ctx, r, "config", "--blob", commit+":.gitmodules", "--get", strings.TrimSuffix(k, ".path")+".url")
			if err == nil {
				return strings.TrimSpace(string(u))
			}
		}
	}
	return ""
}

// contentLinks builds the URLs of contents entries at one ref.
type contentLinks struct{ owner, name, ref string }

func (c contentLinks) listing(es []treeEntry) []map[string]any {
	out := make([]map[string]any, 0, len(es))
	for _, e := range es {
		out = append(out, c.entry(e))
	}
	return out
}

func (c contentLinks) entry(e treeEntry) map[string]any {
	repoAPI := api + "/repos/" + c.owner + "/" + c.name
	repoHTML := "https://github.com/" + c.owner + "/" + c.name
	escaped := (&url.URL{Path: e.path}).EscapedPath()
	typ, gitURL, html := "file", repoAPI+"/git/blobs/"+e.sha, repoHTML+"/blob/"+c.ref+"/"+escaped
	var download any = "https://raw.githubusercontent.com/" + c.owner + "/" + c.name + "/" + c.ref + "/" + escaped
	switch {
	case e.typ == "tree":
		typ, gitURL, html, download = "dir", repoAPI+"/git/trees/"+e.sha, repoHTML+"/tree/"+c.ref+"/"+escaped, nil
	case e.typ == "commit":
		typ, gitURL, html, download = "submodule", repoAPI+"/git/trees/"+e.sha, repoHTML+"/tree/"+e.sha, nil
	case e.mode == "120000":
		typ = "symlink"
	}
	size := e.size
	if e.typ != "blob" {
		size = 0
	}
	self := repoAPI + "/contents/" + escaped + "?ref=" + url.QueryEscape(c.ref)
	return map[string]any{"type": typ, "name": path.Base(e.path), "path": e.path, "sha": e.sha, "size": size,
		"url": self, "git_url": gitURL, "html_url": html, "download_url": download,
		"_links": map[string]any{"self": self, "git": gitURL, "html": html}}
}
