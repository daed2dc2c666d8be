package ghfake

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The resolvers below run with f.mu held.

func (e *gqlExec) rootField(root string) func(string, map[string]any) (any, error) {
	f := e.f
	if root == "Mutation" {
		return e.mutation
	}
	return func(field string, args map[string]any) (any, error) {
		switch field {
		case "viewer":
			return e.userObj(f.addUserLocked(e.viewer.Login, e.viewer.ID, e.viewer.Bot)), nil
		case "repository":
			r := f.repos[key(strArg(args, "owner"), strArg(args, "name"))]
			if r == nil {
				return nil, typedErr{"NOT_FOUND", fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", strArg(args, "owner"), strArg(args, "name"))}
			}
			return e.repoObj(r), nil
		case "node":
			return e.nodeObj(strArg(args, "id"))
		case "rateLimit":
			return e.rateLimitObj(), nil
		}
		return nil, notImplemented("Query", field)
	}
}

func (e *gqlExec) nodeObj(id string) (*obj, error) {
	switch n := e.f.nodes[id].(type) {
	case *pr:
		return e.prObj(n), nil
	case *Thread:
		return e.threadObj(n), nil
	case *IssueComment:
		return e.issueCommentObj(n), nil
	case *repo:
		return e.repoObj(n), nil
	}
	return nil, typedErr{"NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)}
}

func (e *gqlExec) userObj(u *user) *obj {
	if u == nil {
		return nil
	}
	typ := "User"
	if u.Bot {
		typ = "Bot"
	}
	return &obj{typ: typ, get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "login":
			return u.Login, nil
		case "databaseId":
			return u.ID, nil
		case "id":
			return u.NodeID, nil
		case "url":
			return "https://github.com/" + u.Login, nil
		}
		return nil, notImplemented(typ, field)
	}}
}

func (e *gqlExec) actor(login string) *obj {
	if login == "" {
		return nil
	}
	return e.userObj(e.f.users[strings.ToLower(login)])
}

func (e *gqlExec) repoObj(r *repo) *obj {
	return &obj{typ: "Repository", get: func(field string, args map[string]any) (any, error) {
		switch field {
		case "id":
			return r.nodeID, nil
		case "name":
			return r.name, nil
		case "nameWithOwner":
			return r.owner + "/" + r.name, nil
		case "url":
			return "https://github.com/" + r.owner + "/" + r.name, nil
		case "defaultBranchRef":
			return e.refObj(r, r.defaultBranch), nil
		case "pullRequest":
			n, _ := intArg(args, "number")
			p := r.prs[n]
			if p == nil {
				return nil, typedErr{"NOT_FOUND", fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n)}
			}
			return e.prObj(p), nil
		case "pullRequests":
			states, _ := args["states"].([]any)
			var items []*obj
			nums := make([]int, 0, len(r.prs))
			for n := range r.prs {
				nums = append(nums, n)
			}
			slices.Sort(nums)
			if o, ok := args["orderBy"].(map[string]any); ok {
				orderPRs(r, nums, o)
			}
			for _, n := range nums {
				p := r.prs[n]
				if (len(states) == 0 || slices.Contains(states, any(p.State))) && labelsMatch(p, args) {
					items = append(items, e.prObj(p))
				}
			}
			return connection("PullRequestConnection", items, args)
		case "object":
			return e.gitObject(r, strArg(args, "expression"), strArg(args, "oid"))
		}
		return nil, notImplemented("Repository", field)
	}}
}

func (e *gqlExec) refObj(r *repo, branch string) *obj {
	return &obj{typ: "Ref", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "name":
			return branch, nil
		case "prefix":
			return "refs/heads/", nil
		}
		return nil, notImplemented("Ref", field)
	}}
}

// gitObject answers repository.object from the bare repository.
func (e *gqlExec) gitObject(r *repo, expression, oid string) (any, error) {
	ctx := context.Background()
	rev := oid
	if expression != "" {
		rev = expression
	}
	// A revision pinned to a SHA is answered once (gitObjectCached keeps
	// only queries naming full SHAs); any other runs every time.
	if pinned, ok := pinHead(r.bare, rev); ok {
		rev = pinned
	}
	sha, typ, ok := treeLookup(ctx, r, rev)
	if ok && sha == "" {
		return nil, nil
	}
	if !ok {
		var err error
		sha, err = gitObjectCached(ctx, r, "rev-parse", "--verify", "--quiet", rev)
		if err != nil || sha == "" {
			return nil, nil
		}
		typ, err = gitObjectCached(ctx, r, "cat-file", "-t", sha)
		if err != nil {
			return nil, nil
		}
	}
	switch typ {
	case "tree":
		return e.treeObj(r, sha, strings.TrimSuffix(afterColon(expression), "/")), nil
	case "blob":
		return e.blobObj(r, sha), nil
	case "commit":
		return e.commitObj(r, sha), nil
	}
	return nil, nil
}

// treeLookup answers "<commit SHA>:<path>" for a plain path (segments
// joined by "/", none empty, "." or "..") from the commit's whole tree,
// listed by one cached git ls-tree: a repository's configuration is
// looked up as five such expressions per commit, each a rev-parse and a
// cat-file before. A path not in the tree is found with an empty sha;
// ok is false when the expression is not of that form or the listing
// cannot answer it (a submodule's commit), for rev-parse to answer.
func treeLookup(ctx context.Context, r *repo, expr string) (sha, typ string, ok bool) {
	commit, path, found := strings.Cut(expr, ":")
	if !found || len(commit) != 40 || strings.Trim(commit, "0123456789abcdef") != "" || path == "" {
		return "", "", false
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", "", false
		}
	}
	list, err := gitObjectCached(ctx, r, "ls-tree", "-r", "-t", "-z", "--full-tree", commit)
	if err != nil {
		return "", "", false
	}
	for _, entry := range strings.Split(list, "\x00") {
		meta, name, ok := strings.Cut(entry, "\t")
		if !ok || name != path {
			continue
		}
		parts := strings.Fields(meta)
		if len(parts) != 3 || (parts[1] != "blob" && parts[1] != "tree") {
			return "", "", false
		}
		return parts[2], parts[1], true
	}
	return "", "", true
}

func afterColon(s string) string {
	_, after, _ := strings.Cut(s, ":")
	return after
}

func (e *gqlExec) treeObj(r *repo, sha, dir string) *obj {
	return &obj{typ: "Tree", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "oid":
			return sha, nil
		case "entries":
			out, err := gitObjectCached(context.Background(), r, "ls-tree", sha)
			if err != nil {
				return nil, err
			}
			var entries []*obj
			for _, line := range strings.Split(out, "\n") {
				meta, name, ok := strings.Cut(line, "\t")
				if !ok {
					continue
				}
				parts := strings.Fields(meta)
				if len(parts) != 3 {
					continue
				}
				kind, osha := parts[1], parts[2]
				p := name
				if dir != "" {
					p = dir + "/" + name
				}
				entries = append(entries, &obj{typ: "TreeEntry", get: func(f string, _ map[string]any) (any, error) {
					switch f {
					case "name":
						return name, nil
					case "path":
						return p, nil
					case "type":
						return kind, nil
					case "oid":
						return osha, nil
					case "object":
						if kind == "blob" {
							return e.blobObj(r, osha), nil
						}
						return e.treeObj(r, osha, p), nil
					}
					return nil, notImplemented("TreeEntry", f)
				}})
			}
			return entries, nil
		}
		return nil, notImplemented("Tree", field)
	}}
}

func (e *gqlExec) blobObj(r *repo, sha string) *obj {
	return &obj{typ: "Blob", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "oid":
			return sha, nil
		case "text", "byteSize", "isBinary":
			text, err := gitObjectCached(context.Background(), r, "cat-file", "blob", sha)
			if err != nil {
				return nil, err
			}
			switch field {
			case "byteSize":
				return len(text), nil
			case "isBinary":
				return strings.ContainsRune(text, 0), nil
			}
			return text, nil
		}
		return nil, notImplemented("Blob", field)
	}}
}

func (e *gqlExec) commitObj(r *repo, sha string) *obj {
	return &obj{typ: "Commit", get: func(field string, args map[string]any) (any, error) {
		switch field {
		case "oid":
			return sha, nil
		case "checkSuites":
			return e.checkSuites(r, sha, args)
		case "status":
			return e.statusObj(r, sha), nil
		case "associatedPullRequests":
			var items []*obj
			nums := make([]int, 0, len(r.prs))
			for n := range r.prs {
				nums = append(nums, n)
			}
			slices.Sort(nums)
			for _, n := range nums {
				if slices.Contains(r.prs[n].commits, sha) {
					items = append(items, e.prObj(r.prs[n]))
				}
			}
			return connection("PullRequestConnection", items, args)
		}
		return nil, notImplemented("Commit", field)
	}}
}

// statusObj is a commit's combined status: null when the commit has no
// status, else the newest status of each context.
func (e *gqlExec) statusObj(r *repo, sha string) any {
	all := r.statuses[sha]
	if len(all) == 0 {
		return nil
	}
	var newest []*CommitStatus
	for i := len(all) - 1; i >= 0; i-- {
		if !slices.ContainsFunc(newest, func(s *CommitStatus) bool { return s.Context == all[i].Context }) {
			newest = append(newest, all[i])
		}
	}
	slices.Reverse(newest)
	return &obj{typ: "Status", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "id":
			return "S_" + sha, nil
		case "contexts":
			items := make([]*obj, len(newest))
			for i, s := range newest {
				items[i] = &obj{typ: "StatusContext", get: func(f string, _ map[string]any) (any, error) {
					switch f {
					case "id":
						return s.NodeID, nil
					case "context":
						return s.Context, nil
					case "state":
						return s.State, nil
					case "description":
						return nullStr(s.Description), nil
					case "createdAt":
						return s.CreatedAt, nil
					case "creator":
						return e.actor(s.Creator), nil
					}
					return nil, notImplemented("StatusContext", f)
				}}
			}
			return items, nil
		}
		return nil, notImplemented("Status", field)
	}}
}

// checkSuites groups a commit's check runs as GitHub does: one suite per
// app, and for GitHub Actions one per workflow run (here: per workflow
// file), whose workflowRun names the file.
func (e *gqlExec) checkSuites(r *repo, sha string, args map[string]any) (any, error) {
	type suiteKey struct{ slug, workflow string }
	var keys []suiteKey
	byKey := map[suiteKey][]*CheckRun{}
	for _, c := range r.checkRuns[sha] {
		k := suiteKey{c.AppSlug, c.WorkflowPath}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	var suites []*obj
	for _, k := range keys {
		slug, runs := k.slug, byKey[k]
		suites = append(suites, &obj{typ: "CheckSuite", get: func(field string, args map[string]any) (any, error) {
			switch field {
			case "workflowRun":
				if k.workflow == "" {
					return nil, nil
				}
				return &obj{typ: "WorkflowRun", get: func(f string, _ map[string]any) (any, error) {
					if f != "file" {
						return nil, notImplemented("WorkflowRun", f)
					}
					return &obj{typ: "WorkflowRunFile", get: func(f string, _ map[string]any) (any, error) {
						if f != "path" {
							return nil, notImplemented("WorkflowRunFile", f)
						}
						return k.workflow, nil
					}}, nil
				}}, nil
			case "app":
				if slug == "" {
					return nil, nil
				}
				return &obj{typ: "App", get: func(f string, _ map[string]any) (any, error) {
					switch f {
					case "slug":
						return slug, nil
					case "name":
						return slug, nil
					}
					return nil, notImplemented("App", f)
				}}, nil
			case "checkRuns":
				items := make([]*obj, len(runs))
				for i, c := range runs {
					items[i] = e.checkRunObj(c)
				}
				return connection("CheckRunConnection", items, args)
			}
			return nil, notImplemented("CheckSuite", field)
		}})
	}
	return connection("CheckSuiteConnection", suites, args)
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (e *gqlExec) checkRunObj(c *CheckRun) *obj {
	return &obj{typ: "CheckRun", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "id":
			return c.NodeID, nil
		case "databaseId":
			// CheckRun.databaseId is an Int (32 bits): GitHub answers null
			// for ids of 2^31 and above, and CheckRun has no fullDatabaseId
			// (../shared/ENGINES.md, round 2). The fake's ids start above
			// 2^31, so every check run here answers null, as on GitHub today.
			if c.ID >= 1<<31 {
				return nil, nil
			}
			return c.ID, nil
		case "name":
			return c.Name, nil
		case "status":
			return c.Status, nil
		case "conclusion":
			return nullStr(c.Conclusion), nil
		case "startedAt":
			return c.StartedAt, nil
		case "completedAt":
			return c.CompletedAt, nil
		case "title":
			return nullStr(c.Title), nil
		case "summary":
			return nullStr(c.Summary), nil
		case "text":
			return nullStr(c.Text), nil
		}
		return nil, notImplemented("CheckRun", field)
	}}
}

func (e *gqlExec) prObj(p *pr) *obj {
	r := p.repo
	return &obj{typ: "PullRequest", get: func(field string, args map[string]any) (any, error) {
		switch field {
		case "id":
			return p.NodeID, nil
		case "number":
			return p.Number, nil
		case "url":
			return fmt.Sprintf("https://github.com/%s/%s/pull/%d", r.owner, r.name, p.Number), nil
		case "title":
			return p.Title, nil
		case "body":
			return p.Body, nil
		case "state":
			return p.State, nil
		case "isDraft":
			return p.Draft, nil
		case "author":
			return e.actor(p.Author), nil
		case "headRefOid":
			return p.headSHA, nil
		case "headRefName":
			return p.HeadRef, nil
		case "baseRefName":
			return p.BaseRef, nil
		case "baseRefOid":
			return r.branchSHA(p.BaseRef), nil
		case "changedFiles":
			return p.changedFiles(), nil
		case "isCrossRepository":
			return p.Fork, nil
		case "headRepository", "baseRepository":
			if field == "headRepository" && p.Fork {
				owner, name, _ := strings.Cut(p.HeadRepo, "/")
				fork := &repo{owner: owner, name: name, nodeID: "R_fork_" + p.NodeID, defaultBranch: r.defaultBranch}
				return e.repoObj(fork), nil
			}
			return e.repoObj(r), nil
		case "additions":
			return p.Additions, nil
		case "deletions":
			return p.Deletions, nil
		case "createdAt":
			return p.CreatedAt, nil
		case "updatedAt":
			return p.updatedAt(), nil
		case "commits":
			items := make([]*obj, len(p.commits))
			for i, sha := range p.commits {
				items[i] = &obj{typ: "PullRequestCommit", get: func(f string, _ map[string]any) (any, error) {
					if f == "commit" {
						return e.commitObj(r, sha), nil
					}
					return nil, notImplemented("PullRequestCommit", f)
				}}
			}
			return connection("PullRequestCommitConnection", items, args)
		case "reviews":
			items := make([]*obj, len(p.Reviews))
			for i, rv := range p.Reviews {
				items[i] = e.reviewObj(r, rv)
			}
			return connection("PullRequestReviewConnection", items, args)
		case "reviewThreads":
			items := make([]*obj, len(p.Threads))
			for i, t := range p.Threads {
				items[i] = e.threadObj(t)
			}
			return connection("PullRequestReviewThreadConnection", items, args)
		case "comments":
			items := make([]*obj, len(p.Comments))
			for i, c := range p.Comments {
				items[i] = e.issueCommentObj(c)
			}
			return connection("IssueCommentConnection", items, args)
		case "reviewRequests":
			items := make([]*obj, len(p.Requested))
			for i, login := range p.Requested {
				items[i] = &obj{typ: "ReviewRequest", get: func(f string, _ map[string]any) (any, error) {
					if f == "requestedReviewer" {
						return e.actor(login), nil
					}
					return nil, notImplemented("ReviewRequest", f)
				}}
			}
			return connection("ReviewRequestConnection", items, args)
		case "labels":
			return e.labelConnection(p, args)
		}
		return nil, notImplemented("PullRequest", field)
	}}
}

func bigint(id int64) string { return strconv.FormatInt(id, 10) }

func (e *gqlExec) reviewObj(r *repo, rv *Review) *obj {
	return &obj{typ: "PullRequestReview", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "id":
			return rv.NodeID, nil
		case "fullDatabaseId":
			return bigint(rv.ID), nil
		case "databaseId":
			return nil, nil // does not fit an Int; GitHub answers null or errors
		case "author":
			return e.actor(rv.Author), nil
		case "commit":
			return e.commitObj(r, rv.CommitSHA), nil
		case "state":
			return rv.State, nil
		case "body":
			return rv.Body, nil
		case "submittedAt":
			return rv.SubmittedAt, nil
		case "isMinimized":
			return rv.MinimizedReason != "", nil
		case "minimizedReason":
			if rv.MinimizedReason == "" {
				return nil, nil
			}
			return rv.MinimizedReason, nil
		}
		return nil, notImplemented("PullRequestReview", field)
	}}
}

func (e *gqlExec) findReview(id int64) (*repo, *Review) {
	rv, _ := e.f.nodes[fmt.Sprintf("PRR_%d", id)].(*Review)
	if rv == nil {
		return nil, nil
	}
	for _, r := range e.f.repos {
		for _, p := range r.prs {
			if slices.Contains(p.Reviews, rv) {
				return r, rv
			}
		}
	}
	return nil, nil
}

func (e *gqlExec) threadObj(t *Thread) *obj {
	return &obj{typ: "PullRequestReviewThread", get: func(field string, args map[string]any) (any, error) {
		switch field {
		case "id":
			return t.NodeID, nil
		case "isResolved":
			return t.Resolved, nil
		case "isOutdated":
			return t.Outdated, nil
		case "path":
			return t.Path, nil
		case "line":
			if t.Line == 0 {
				return nil, nil
			}
			return t.Line, nil
		case "startLine":
			if t.StartLine == 0 {
				return nil, nil
			}
			return t.StartLine, nil
		case "originalLine":
			if t.OriginalLine == 0 {
				return nil, nil
			}
			return t.OriginalLine, nil
		case "comments":
			items := make([]*obj, len(t.Comments))
			for i, c := range t.Comments {
				items[i] = e.reviewCommentObj(c)
			}
			return connection("PullRequestReviewCommentConnection", items, args)
		}
		return nil, notImplemented("PullRequestReviewThread", field)
	}}
}

func (e *gqlExec) reviewCommentObj(c *ReviewComment) *obj {
	return &obj{typ: "PullRequestReviewComment", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "id":
			return c.NodeID, nil
		case "fullDatabaseId":
			return bigint(c.ID), nil
		case "databaseId":
			return nil, nil
		case "author":
			return e.actor(c.Author), nil
		case "body":
			return c.Body, nil
		case "createdAt":
			return c.CreatedAt, nil
		case "pullRequestReview":
			r, rv := e.findReview(c.ReviewID)
			if rv == nil {
				return nil, nil
			}
			return e.reviewObj(r, rv), nil
		case "commit", "originalCommit":
			sha := c.CommitSHA
			if field == "originalCommit" {
				sha = c.OriginalCommitSHA
			}
			if sha == "" {
				return nil, nil
			}
			return &obj{typ: "Commit", get: func(f string, _ map[string]any) (any, error) {
				if f == "oid" {
					return sha, nil
				}
				return nil, notImplemented("Commit", f)
			}}, nil
		}
		if field == "isMinimized" || field == "minimizedReason" {
			return minimizedNever(field), nil
		}
		return nil, notImplemented("PullRequestReviewComment", field)
	}}
}

func (e *gqlExec) issueCommentObj(c *IssueComment) *obj {
	return &obj{typ: "IssueComment", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "id":
			return c.NodeID, nil
		case "fullDatabaseId":
			return bigint(c.ID), nil
		case "databaseId":
			return nil, nil
		case "author":
			return e.actor(c.Author), nil
		case "authorAssociation":
			return c.Association, nil
		case "body":
			return c.Body, nil
		case "createdAt":
			return c.CreatedAt, nil
		case "updatedAt":
			return c.UpdatedAt, nil
		}
		if field == "isMinimized" || field == "minimizedReason" {
			return minimizedNever(field), nil
		}
		return nil, notImplemented("IssueComment", field)
	}}
}

func (e *gqlExec) mutation(field string, args map[string]any) (any, error) {
	in := inputArg(args)
	switch field {
	case "resolveReviewThread", "unresolveReviewThread":
		id, _ := in["threadId"].(string)
		t, ok := e.f.nodes[id].(*Thread)
		if !ok {
			return nil, typedErr{"NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)}
		}
		if e.f.denyRes[strings.ToLower(e.viewer.Login)] {
			return nil, typedErr{"FORBIDDEN", "Resource not accessible by integration"}
		}
		t.Resolved = field == "resolveReviewThread"
		return &obj{typ: strings.ToUpper(field[:1]) + field[1:] + "Payload", get: func(f string, _ map[string]any) (any, error) {
			switch f {
			case "thread":
				return e.threadObj(t), nil
			case "clientMutationId":
				return in["clientMutationId"], nil
			}
			return nil, notImplemented("Payload", f)
		}}, nil
	case "minimizeComment":
		// Only reviews are modelled as Minimizable: an engine hides its
		// own earlier reviews (Bugbot on rerun, ENGINES.md round 3).
		id, _ := in["subjectId"].(string)
		node, found := e.f.nodes[id]
		if !found {
			return nil, typedErr{"NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)}
		}
		rv, ok := node.(*Review)
		if !ok {
			return nil, notImplemented("minimizeComment", fmt.Sprintf("subject %T", node))
		}
		classifier, _ := in["classifier"].(string)
		if !slices.Contains(minimizeClassifiers, classifier) {
			return nil, typedErr{"INVALID", fmt.Sprintf("Argument 'classifier' on InputObject 'MinimizeCommentInput' has an invalid value (%q)", classifier)}
		}
		if !e.mayMinimize(rv) {
			return nil, typedErr{"FORBIDDEN", "Resource not accessible by integration"}
		}
		rv.MinimizedReason = strings.ToLower(classifier)
		return &obj{typ: "MinimizeCommentPayload", get: func(f string, _ map[string]any) (any, error) {
			switch f {
			case "minimizedComment":
				return e.reviewObj(e.repoOfReview(rv), rv), nil
			case "clientMutationId":
				return in["clientMutationId"], nil
			}
			return nil, notImplemented("MinimizeCommentPayload", f)
		}}, nil
	case "markPullRequestReadyForReview":
		id, _ := in["pullRequestId"].(string)
		p, ok := e.f.nodes[id].(*pr)
		if !ok {
			return nil, typedErr{"NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)}
		}
		p.Draft = false
		return &obj{typ: "MarkPullRequestReadyForReviewPayload", get: func(f string, _ map[string]any) (any, error) {
			switch f {
			case "pullRequest":
				return e.prObj(p), nil
			case "clientMutationId":
				return in["clientMutationId"], nil
			}
			return nil, notImplemented("MarkPullRequestReadyForReviewPayload", f)
		}}, nil
	}
	return nil, notImplemented("Mutation", field)
}

// minimizeClassifiers are GitHub's ReportedContentClassifiers.
var minimizeClassifiers = []string{"SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "DUPLICATE", "RESOLVED"}

// repoOfReview is the repository whose pull request holds rv.
func (e *gqlExec) repoOfReview(rv *Review) *repo {
	for _, r := range e.f.repos {
		for _, p := range r.prs {
			if slices.Contains(p.Reviews, rv) {
				return r
			}
		}
	}
	return nil
}

// mayMinimize allows hiding a review to its author, to an app or Actions
// token that may write (a read-only token is refused before any
// mutation), and to the repository's owner and people with triage access
// or more (docs.github.com, "Managing disruptive comments").
func (e *gqlExec) mayMinimize(rv *Review) bool {
	login := strings.ToLower(strings.TrimSuffix(e.viewer.Login, "[bot]"))
	if login == strings.ToLower(rv.Author) || e.viewer.Bot {
		return true
	}
	r := e.repoOfReview(rv)
	if r == nil {
		return false
	}
	return strings.EqualFold(login, r.owner) || slices.Contains([]string{"admin", "maintain", "write", "triage"}, r.roles[login])
}

// minimizedNever answers isMinimized and minimizedReason for a comment the
// fake never hides (only reviews are minimized, minimizeComment).
func minimizedNever(field string) any {
	if field == "isMinimized" {
		return false
	}
	return nil
}

// orderPRs sorts pull request numbers as pullRequests(orderBy:) does:
// by creation, update or comment count, ascending or descending; ties
// keep the number order.
func orderPRs(r *repo, nums []int, o map[string]any) {
	field, _ := o["field"].(string)
	key := func(n int) int64 {
		p := r.prs[n]
		switch field {
		case "UPDATED_AT":
			return p.updatedAt().UnixNano()
		case "COMMENTS":
			return int64(len(p.Comments))
		}
		return p.CreatedAt.UnixNano()
	}
	desc := o["direction"] == "DESC"
	slices.SortStableFunc(nums, func(a, b int) int {
		c := cmp.Compare(key(a), key(b))
		if desc {
			c = -c
		}
		return c
	})
}
