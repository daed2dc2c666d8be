package action

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// coderabbitBody is a CodeRabbit review body whose one finding lives only
// in its "Outside diff range comments" section, the shape of
// testdata/engines/coderabbit/08-… ("Actionable comments posted: 0").
const coderabbitBody = "**Actionable comments posted: 0**\n\n> [!CAUTION]\n> Some comments are outside the diff and can’t be posted inline due to platform limitations.\n>\n" +
	"> <details>\n> <summary>⚠️ Outside diff range comments (1)</summary><blockquote>\n>\n> <details>\n> <summary>calc/calc.go (1)</summary><blockquote>\n>\n" +
	"> `5-5`: **Add subtracts instead of adding.**\n>\n> `Add` returns `a - b`.\n>\n> ```suggestion\n> \treturn a + b\n> ```\n>\n> </blockquote></details>\n>\n> </blockquote></details>\n"

// E6: a fixed finding CodeRabbit listed only in its review body has no
// thread to resolve: the cycle that pushes its fix says so once on the PR.
func TestRule_E6_FixedBodyOnlyFindingIsRepliedOnThePR(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	head := w.fake.HeadSHA("octo", "app", 1)
	w.fake.AddUser("coderabbitai", 136622811, true)
	if _, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "coderabbitai", Body: coderabbitBody, CommitSHA: head}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.SetCheckRun("octo", "app", 1, ghfake.CheckRunOptions{HeadSHA: head, Name: "CodeRabbit", AppSlug: "coderabbitai", Status: "COMPLETED", Conclusion: "SUCCESS", Title: "Review completed"}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "coderabbit"})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if res.PRs[0].Pushed == "" {
		t.Fatalf("nothing pushed; plan %+v\n%s", res.PRs[0].Plan, w.out.String())
	}
	if got := onServer(t, w.fake, "show", res.PRs[0].Pushed+":calc/calc.go"); !strings.Contains(got, "\treturn a + b\n") {
		t.Errorf("the body item's suggestion was not applied as written:\n%s", got)
	}
	var replies []string
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if strings.Contains(c.Body, "only in its review body") {
			replies = append(replies, c.Body)
		}
	}
	if len(replies) != 1 || !strings.Contains(replies[0], "Add subtracts instead of adding.") || !strings.Contains(replies[0], "`calc/calc.go` (line 5)") || !strings.Contains(replies[0], res.PRs[0].Pushed) {
		t.Fatalf("replies %q", replies)
	}
}
