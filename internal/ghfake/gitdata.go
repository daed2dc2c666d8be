package ghfake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file is GitHub's Git database API on the bare repository: blobs,
// trees, commits and the update of a branch reference, with git's own
// semantics (objects are written by git, a tree is built on its base
// tree, a reference moves only by fast-forward unless forced). A commit
// made through the API by a bot or App token with no author, committer
// or signature of its own is signed by GitHub and verified; every other
// commit is unsigned. Shapes: components/schemas/short-blob, git-tree,
// git-commit and git-ref of GitHub's OpenAPI description.
//
// https://docs.github.com/en/rest/git — and, for signing, "About commit
// signature verification" (signature verification for bots): GitHub signs
// a bot's commit made through the API only when the request carries no
// custom author, committer or signature.

// signingKey stands for GitHub's web-flow key: the fake's signature of a
// commit is an HMAC of its payload, so a signature no one but the fake
// made does not verify.
var signingKey = []byte("ghfake web-flow signing key")

// gitWith runs git in the bare repository with extra environment and
// standard input, counted as the repository's.
func gitWith(ctx context.Context, bare string, env []string, stdin []byte, args ...string) (string, error) {
	out, err := gitRaw(ctx, bare, env, stdin, args...)
	return strings.TrimSpace(out), err
}

// gitRaw is gitWith with its output as git wrote it.
func gitRaw(ctx context.Context, bare string, env []string, stdin []byte, args ...string) (string, error) {
	countGit(bare)
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + bare}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1")
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// objectType is git's type of the object sha names ("" when none).
func objectType(ctx context.Context, bare, sha string) string {
	if !shaRe.MatchString(sha) {
		return ""
	}
	t, err := gitWith(ctx, bare, nil, nil, "cat-file", "-t", sha)
	if err != nil {
		return ""
	}
	return t
}

func (f *Fake) repoURL(rp *repo) string {
	return fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
}

// createBlob is POST /repos/{owner}/{repo}/git/blobs.
// https://docs.github.com/en/rest/git/blobs#create-a-blob
func createBlob(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if err := decodeBody(r, &in); err != nil || in.Content == nil {
		unprocessable(w, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	}
	data := []byte(*in.Content)
	switch in.Encoding {
	case "", "utf-8":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*in.Content), ""))
		if err != nil {
			unprocessable(w, "Invalid request.\n\nContent is not valid Base64.")
			return
		}
		data = b
	default:
		unprocessable(w, fmt.Sprintf("Invalid request.\n\nencoding %q is not utf-8 or base64.", in.Encoding))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	sha, err := gitWith(r.Context(), rp.bare, nil, data, "hash-object", "-w", "--stdin")
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"url": f.repoURL(rp) + "/git/blobs/" + sha, "sha": sha})
}

// apiTreeEntry is one entry of a tree as the API shows it.
type apiTreeEntry struct {
	Mode, Type, SHA, Path string
	Size                  int64
}

// lsTree lists tree (recursive: every entry below it, trees included).
func lsAPITree(ctx context.Context, bare, tree string, recursive bool) ([]apiTreeEntry, error) {
	args := []string{"ls-tree", "-z", "--long", "--full-tree"}
	if recursive {
		args = append(args, "-r", "-t")
	}
	out, err := gitWith(ctx, bare, nil, nil, append(args, tree)...)
	if err != nil {
		return nil, err
	}
	var entries []apiTreeEntry
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		fs := strings.Fields(meta)
		if len(fs) != 4 {
			return nil, fmt.Errorf("ls-tree: %q", rec)
		}
		e := apiTreeEntry{Mode: fs[0], Type: fs[1], SHA: fs[2], Path: p, Size: -1}
		if n, err := strconv.ParseInt(fs[3], 10, 64); err == nil {
			e.Size = n
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func (f *Fake) treeJSON(ctx context.Context, rp *repo, sha string, recursive bool) (map[string]any, error) {
	entries, err := lsAPITree(ctx, rp.bare, sha, recursive)
	if err != nil {
		return nil, err
	}
	list := make([]any, 0, len(entries))
	for _, e := range entries {
		m := map[string]any{"path": e.Path, "mode": e.Mode, "type": e.Type, "sha": e.SHA}
		switch e.Type {
		case "blob":
			m["size"], m["url"] = e.Size, f.repoURL(rp)+"/git/blobs/"+e.SHA
		case "tree":
			m["url"] = f.repoURL(rp) + "/git/trees/" + e.SHA
		}
		list = append(list, m)
	}
	return map[string]any{"sha": sha, "url": f.repoURL(rp) + "/git/trees/" + sha, "tree": list, "truncated": false}, nil
}

// getTree is GET /repos/{owner}/{repo}/git/trees/{tree_sha}: a tree (or
// the tree of a commit), with ?recursive= every entry below it.
// https://docs.github.com/en/rest/git/trees#get-a-tree
func getTree(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	ctx := r.Context()
	sha := r.PathValue("tree_sha")
	switch objectType(ctx, rp.bare, sha) {
	case "tree":
	case "commit":
		sha, _ = gitWith(ctx, rp.bare, nil, nil, "rev-parse", sha+"^{tree}")
	default:
		notFound(w)
		return
	}
	m, err := f.treeJSON(ctx, rp, sha, r.URL.Query().Get("recursive") != "")
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// treeModes are the modes a tree entry may have, with the object type
// each wants.
var treeModes = map[string]string{"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}

// createTree is POST /repos/{owner}/{repo}/git/trees: the base tree with
// the given entries set (an entry with sha null removed), nested paths
// making their trees, written with one temporary index.
// https://docs.github.com/en/rest/git/trees#create-a-tree
func createTree(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string          `json:"path"`
			Mode    string          `json:"mode"`
			Type    string          `json:"type"`
			SHA     json.RawMessage `json:"sha"`
			Content *string         `json:"content"`
		} `json:"tree"`
	}
	if err := decodeBody(r, &in); err != nil || in.Tree == nil {
		unprocessable(w, "Invalid request.\n\n\"tree\" wasn't supplied.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	ctx := r.Context()
	idx, err := os.CreateTemp("", "ghfake-index-")
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	idx.Close()
	os.Remove(idx.Name()) // git wants to create the index itself
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if in.BaseTree != "" {
		if t := objectType(ctx, rp.bare, in.BaseTree); t != "tree" && t != "commit" {
			unprocessable(w, "Invalid tree info: base_tree "+in.BaseTree+" is not a tree")
			return
		}
		if _, err := gitWith(ctx, rp.bare, env, nil, "read-tree", in.BaseTree); err != nil {
			unprocessable(w, "Invalid tree info: "+err.Error())
			return
		}
	}
	var info bytes.Buffer
	for _, e := range in.Tree {
		p := e.Path
		if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || path.Clean(p) != p || slices.Contains(strings.Split(p, "/"), ".git") || strings.ContainsAny(p, "\x00\n") {
			unprocessable(w, fmt.Sprintf("tree.path %q is invalid", p))
			return
		}
		want, ok := treeModes[e.Mode]
		if !ok || (e.Type != "" && e.Type != want) {
			unprocessable(w, fmt.Sprintf("tree.mode %q with type %q is invalid", e.Mode, e.Type))
			return
		}
		var sha *string
		if len(e.SHA) > 0 {
			if err := json.Unmarshal(e.SHA, &sha); err != nil {
				unprocessable(w, "tree.sha is not a string or null")
				return
			}
		}
		switch {
		case e.Content != nil && sha != nil:
			unprocessable(w, "Must supply either tree.sha or tree.content. Request will be rejected if both are present.")
			return
		case e.Content != nil:
			if want != "blob" {
				unprocessable(w, "tree.content is for blobs only")
				return
			}
			s, err := gitWith(ctx, rp.bare, nil, []byte(*e.Content), "hash-object", "-w", "--stdin")
			if err != nil {
				writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
				return
			}
			sha = &s
		case sha == nil && len(e.SHA) > 0: // "sha": null removes the path
			fmt.Fprintf(&info, "0 %s\t%s\x00", strings.Repeat("0", 40), p)
			continue
		case sha == nil:
			unprocessable(w, "Must supply either tree.sha or tree.content.")
			return
		}
		if want != "commit" && objectType(ctx, rp.bare, *sha) != want {
			unprocessable(w, fmt.Sprintf("tree.sha %s is not a valid %s", *sha, want))
			return
		}
		mode := e.Mode
		if mode == "040000" {
			// A tree entry replaces the directory: drop what the base had
			// under it, then read the tree in at its prefix.
			under, err := gitWith(ctx, rp.bare, env, nil, "ls-files", "-z", "--", p+"/")
			if err != nil {
				writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
				return
			}
			var drop bytes.Buffer
			for _, q := range strings.Split(under, "\x00") {
				if q != "" {
					fmt.Fprintf(&drop, "0 %s\t%s\x00", strings.Repeat("0", 40), q)
				}
			}
			if drop.Len() > 0 {
				if _, err := gitWith(ctx, rp.bare, env, drop.Bytes(), "update-index", "-z", "--remove", "--index-info"); err != nil {
					writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
					return
				}
			}
			if _, err := gitWith(ctx, rp.bare, env, nil, "read-tree", "--prefix="+p+"/", *sha); err != nil {
				unprocessable(w, "Invalid tree info: "+err.Error())
				return
			}
			continue
		}
		fmt.Fprintf(&info, "%s %s\t%s\x00", mode, *sha, p)
	}
	if info.Len() > 0 {
		if _, err := gitWith(ctx, rp.bare, env, info.Bytes(), "update-index", "-z", "--add", "--remove", "--replace", "--index-info"); err != nil {
			unprocessable(w, "Invalid tree info: "+err.Error())
			return
		}
	}
	sha, err := gitWith(ctx, rp.bare, env, nil, "write-tree")
	if err != nil {
		unprocessable(w, "Invalid tree info: "+err.Error())
		return
	}
	m, err := f.treeJSON(ctx, rp, sha, false)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, m)
}

// gitPerson is a commit's author or committer as the API takes it.
type gitPerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// gitCommitObject is a commit object as git reads it.
type gitCommitObject struct {
	tree, message, signature, payload string
	parents                           []string
	author, committer                 gitPerson
}

// parsePerson reads "Name <email> 1700000000 +0000".
func parsePerson(s string) gitPerson {
	name, rest, _ := strings.Cut(s, " <")
	email, when, _ := strings.Cut(rest, "> ")
	secs, _, _ := strings.Cut(when, " ")
	n, _ := strconv.ParseInt(secs, 10, 64)
	return gitPerson{Name: name, Email: email, Date: ts(time.Unix(n, 0))}
}

// readCommitObject reads commit sha's object, its signature apart from
// the payload that was signed.
func readCommitObject(ctx context.Context, bare, sha string) (gitCommitObject, error) {
	raw, err := gitRaw(ctx, bare, nil, nil, "cat-file", "commit", sha)
	if err != nil {
		return gitCommitObject{}, err
	}
	head, msg, _ := strings.Cut(raw, "\n\n")
	c := gitCommitObject{message: msg}
	var payload, sig []string
	inSig := false
	for _, l := range strings.Split(head, "\n") {
		if inSig && strings.HasPrefix(l, " ") {
			sig = append(sig, l[1:])
			continue
		}
		inSig = false
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "gpgsig":
			inSig, sig = true, []string{v}
			continue
		case "tree":
			c.tree = v
		case "parent":
			c.parents = append(c.parents, v)
		case "author":
			c.author = parsePerson(v)
		case "committer":
			c.committer = parsePerson(v)
		}
		payload = append(payload, l)
	}
	c.payload = strings.Join(payload, "\n") + "\n\n" + msg
	if sig != nil {
		c.signature = strings.Join(sig, "\n") + "\n"
	}
	return c, nil
}

// sign is the fake's signature of payload.
func sign(payload string) string {
	m := hmac.New(sha256.New, signingKey)
	m.Write([]byte(payload))
	return "-----BEGIN PGP SIGNATURE-----\n\n" + base64.StdEncoding.EncodeToString(m.Sum(nil)) + "\n-----END PGP SIGNATURE-----\n"
}

// verified reports whether c carries the fake's own signature of it.
func (c gitCommitObject) verified() bool {
	return c.signature != "" && hmac.Equal([]byte(c.signature), []byte(sign(c.payload)))
}

func (f *Fake) gitCommitJSON(rp *repo, sha string, c gitCommitObject) map[string]any {
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, map[string]any{"sha": p, "url": f.repoURL(rp) + "/git/commits/" + p, "html_url": "https://github.com/" + rp.owner + "/" + rp.name + "/commit/" + p})
	}
	ver := map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	if c.signature != "" {
		ver = map[string]any{"verified": c.verified(), "reason": "valid", "signature": c.signature, "payload": c.payload, "verified_at": c.committer.Date}
		if !c.verified() {
			ver["reason"], ver["verified_at"] = "unknown_key", nil
		}
	}
	return map[string]any{
		"sha": sha, "node_id": "C_" + sha[:12], "url": f.repoURL(rp) + "/git/commits/" + sha,
		"html_url":  "https://github.com/" + rp.owner + "/" + rp.name + "/commit/" + sha,
		"author":    map[string]any{"name": c.author.Name, "email": c.author.Email, "date": c.author.Date},
		"committer": map[string]any{"name": c.committer.Name, "email": c.committer.Email, "date": c.committer.Date},
		"message":   c.message, "tree": map[string]any{"sha": c.tree, "url": f.repoURL(rp) + "/git/trees/" + c.tree},
		"parents": parents, "verification": ver,
	}
}

// getGitCommit is GET /repos/{owner}/{repo}/git/commits/{commit_sha}.
// https://docs.github.com/en/rest/git/commits#get-a-commit-object
func getGitCommit(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	sha := r.PathValue("commit_sha")
	if objectType(r.Context(), rp.bare, sha) != "commit" {
		notFound(w)
		return
	}
	c, err := readCommitObject(r.Context(), rp.bare, sha)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, f.gitCommitJSON(rp, sha, c))
}

// createGitCommit is POST /repos/{owner}/{repo}/git/commits. With no
// author and committer the commit is the token's user's; a bot's commit
// with neither, and no signature of the request's own, is signed by
// GitHub.
// https://docs.github.com/en/rest/git/commits#create-a-commit
func createGitCommit(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message   *string    `json:"message"`
		Tree      string     `json:"tree"`
		Parents   []string   `json:"parents"`
		Author    *gitPerson `json:"author"`
		Committer *gitPerson `json:"committer"`
		Signature string     `json:"signature"`
	}
	if err := decodeBody(r, &in); err != nil || in.Message == nil || in.Tree == "" {
		unprocessable(w, "Invalid request.\n\n\"message\" and \"tree\" are required.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	ctx := r.Context()
	if objectType(ctx, rp.bare, in.Tree) != "tree" {
		unprocessable(w, "Tree SHA does not exist")
		return
	}
	for _, p := range in.Parents {
		if objectType(ctx, rp.bare, p) != "commit" {
			unprocessable(w, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	now := time.Now().UTC()
	login := restLogin(f.userLocked(id.Login))
	self := gitPerson{Name: login, Email: fmt.Sprintf("%d+%s@users.noreply.github.com", f.userLocked(id.Login).ID, login)}
	person := func(p *gitPerson, def gitPerson) (string, bool) {
		if p == nil {
			p = &def
		}
		if p.Name == "" || p.Email == "" || strings.ContainsAny(p.Name+p.Email, "<>\n\x00") {
			return "", false
		}
		when := now
		if p.Date != "" {
			t, err := time.Parse(time.RFC3339, p.Date)
			if err != nil {
				return "", false
			}
			when = t
		}
		return fmt.Sprintf("%s <%s> %d +0000", p.Name, p.Email, when.Unix()), true
	}
	author, ok1 := person(in.Author, self)
	committer, ok2 := person(in.Committer, func() gitPerson {
		if in.Author != nil {
			return *in.Author
		}
		return self
	}())
	if !ok1 || !ok2 {
		unprocessable(w, "Invalid request.\n\nauthor or committer is invalid.")
		return
	}
	var head strings.Builder
	fmt.Fprintf(&head, "tree %s\n", in.Tree)
	for _, p := range in.Parents {
		fmt.Fprintf(&head, "parent %s\n", p)
	}
	fmt.Fprintf(&head, "author %s\ncommitter %s\n", author, committer)
	msg := *in.Message
	payload := head.String() + "\n" + msg
	sig := in.Signature
	if sig == "" && id.Bot && in.Author == nil && in.Committer == nil {
		sig = sign(payload)
	}
	obj := payload
	if sig != "" {
		obj = head.String() + "gpgsig " + strings.ReplaceAll(strings.TrimSuffix(sig, "\n"), "\n", "\n ") + "\n\n" + msg
	}
	sha, err := gitWith(ctx, rp.bare, nil, []byte(obj), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		unprocessable(w, "Invalid request.\n\n"+err.Error())
		return
	}
	c, err := readCommitObject(ctx, rp.bare, sha)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, f.gitCommitJSON(rp, sha, c))
}

// getGitRef is GET /repos/{owner}/{repo}/git/ref/{ref}.
// https://docs.github.com/en/rest/git/refs#get-a-reference
func getGitRef(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	ref := "refs/" + r.PathValue("ref")
	sha := readRefFile(rp.bare, ref)
	if sha == "" {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, f.refJSON(rp, ref, sha))
}

func (f *Fake) refJSON(rp *repo, ref, sha string) map[string]any {
	return map[string]any{"ref": ref, "node_id": "REF_" + sha[:12], "url": f.repoURL(rp) + "/git/" + ref,
		"object": map[string]any{"type": "commit", "sha": sha, "url": f.repoURL(rp) + "/git/commits/" + sha}}
}

// updateGitRef is PATCH /repos/{owner}/{repo}/git/refs/{ref}: the branch
// moves to sha when sha contains its tip (force moves it anyway), the
// user may push, and no protection or active ruleset refuses the update
// (required_signatures wants every new commit verified). The move is
// git's compare-and-swap, so a push in between fails it.
// https://docs.github.com/en/rest/git/refs#update-a-reference
func updateGitRef(f *Fake, id Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if err := decodeBody(r, &in); err != nil || in.SHA == "" {
		unprocessable(w, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return
	}
	f.mu.Lock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		f.mu.Unlock()
		return
	}
	ctx := r.Context()
	ref := "refs/" + r.PathValue("ref")
	branch, isBranch := strings.CutPrefix(ref, "refs/heads/")
	old := readRefFile(rp.bare, ref)
	role, hasRole := rp.roles[strings.ToLower(id.Login)]
	mayPush := id.Bot || !hasRole || role == "write" || role == "maintain" || role == "admin"
	switch {
	case old == "":
		f.mu.Unlock()
		unprocessable(w, "Reference does not exist")
		return
	case !mayPush:
		f.mu.Unlock()
		writeJSON(w, http.StatusForbidden, map[string]any{"message": permissionMessage, "documentation_url": "https://docs.github.com/rest/git/refs#update-a-reference"})
		return
	case objectType(ctx, rp.bare, in.SHA) != "commit":
		f.mu.Unlock()
		unprocessable(w, "Object does not exist")
		return
	}
	if !in.Force && old != in.SHA {
		if _, err := gitWith(ctx, rp.bare, nil, nil, "merge-base", "--is-ancestor", old, in.SHA); err != nil {
			f.mu.Unlock()
			unprocessable(w, "Update is not a fast forward")
			return
		}
	}
	if err := refusePush(rp.bare, ref); err != nil {
		f.mu.Unlock()
		unprocessable(w, strings.TrimPrefix(err.Error(), "push refused: error: "))
		return
	}
	if isBranch {
		if why := f.refusedByRulesetLocked(ctx, rp, id, branch, old, in.SHA); why != "" {
			f.mu.Unlock()
			unprocessable(w, "Repository rule violations found\n\n"+why+"\n\n")
			return
		}
	}
	if _, err := gitWith(ctx, rp.bare, nil, nil, "update-ref", ref, in.SHA, old); err != nil {
		f.mu.Unlock()
		unprocessable(w, "Update is not a fast forward")
		return
	}
	out := f.refJSON(rp, ref, in.SHA)
	events := f.syncRepoLocked(rp)
	f.mu.Unlock()
	f.firePush(events)
	writeJSON(w, http.StatusOK, out)
}

// refusedByRulesetLocked is GitHub's word for an active rule of a ruleset
// on branch that refuses moving it from old to sha through the API, ""
// when none does. required_signatures wants every commit the update adds
// verified; the other refusing rules refuse as they do a push.
func (f *Fake) refusedByRulesetLocked(ctx context.Context, rp *repo, id Identity, branch, old, sha string) string {
	for _, rs := range rp.rulesets {
		if rs.Enforcement != "active" || !matchRef(rp, rs, branch) || f.canBypassLocked(rs, id) == "always" {
			continue
		}
		for _, ru := range rs.Rules {
			switch refusingRules[ru.Type] {
			case "update":
				if ru.Type != "required_signatures" {
					return ruleMessages[ru.Type]
				}
				added, err := gitWith(ctx, rp.bare, nil, nil, "rev-list", old+".."+sha)
				if err != nil {
					return ruleMessages[ru.Type]
				}
				for _, c := range strings.Fields(added) {
					obj, err := readCommitObject(ctx, rp.bare, c)
					if err != nil || !obj.verified() {
						return ruleMessages[ru.Type]
					}
				}
			case "ff":
				if _, err := gitWith(ctx, rp.bare, nil, nil, "merge-base", "--is-ancestor", old, sha); err != nil {
					return ruleMessages[ru.Type]
				}
			}
		}
	}
	return ""
}
