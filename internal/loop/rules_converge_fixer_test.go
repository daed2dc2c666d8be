package loop

import (
	"slices"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_CV5_AnEngineFixersOwnLinesAmongSeveralNewCommits: Bugbot
// Autofix's commit (message naming no finding) and a person's commit come
// in together. The finding on the lines Autofix replaced is outdated on
// the new head (GitHub keeps only its original line, on the commit it was
// written on, which is the Autofix commit's parent): it is known as fixed
// by Autofix and held; a finding three lines below, which the commit's
// patch shows only as context, is not. Lines of a commit made on another
// commit than the finding's are not compared (their numbers differ).
func TestRule_CV5_AnEngineFixersOwnLinesAmongSeveralNewCommits(t *testing.T) {
	cfg := DefaultConfig()
	bug := Finding{ID: "bugbot-4", CommentID: 4, Path: "calc.go", Outdated: true, OriginalLine: 20, OriginalCommit: sha1,
		Title: "Sub has its operands swapped", ReviewSHA: sha1}
	near := Finding{ID: "bugbot-5", CommentID: 5, Path: "calc.go", Outdated: true, OriginalLine: 23, OriginalCommit: sha1,
		Title: "Sub lacks an overflow check", ReviewSHA: sha1}
	pushes := func(first, second HeadCommit) *PushHistory {
		return &PushHistory{Base: sha1, Head: sha3, Status: "ahead", Commits: []HeadCommit{first, second}}
	}
	autofix := HeadCommit{SHA: sha2, Parent: sha1, Message: "Apply Bugbot Autofix suggestion", AuthorLogin: "cursor[bot]",
		Touched: []state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 20, End: 20}}}}}
	human := HeadCommit{SHA: sha3, Parent: sha2, Message: "docs: say what calc does", AuthorLogin: "alice",
		Touched: []state.ChangedFile{{Path: "README.md", Ranges: []state.LineRange{{Start: 1, End: 1}}}}}
	o := obs(sha3, 10*time.Minute, done("bugbot", sha1, 20, bug, near, elsewhere))
	o.HeadPusher = "alice"
	o.Pushes = pushes(autofix, human)
	_, got := Decide(active(sha1, "bugbot"), o, cfg)
	if !slices.Equal(got.EngineFixed, []string{"bugbot-4"}) {
		t.Fatalf("engine fixed = %v, want bugbot-4 (on the lines Autofix replaced) only", got.EngineFixed)
	}
	// The person's commit first, Autofix's made on it: line 20 of its
	// parent need not be line 20 of the finding's commit.
	human.SHA, human.Parent, autofix.SHA, autofix.Parent = sha2, sha1, sha3, sha2
	o.Pushes = pushes(human, autofix)
	if _, got = Decide(active(sha1, "bugbot"), o, cfg); len(got.EngineFixed) != 0 {
		t.Fatalf("engine fixed = %v, want none: the lines are of another commit", got.EngineFixed)
	}
}
