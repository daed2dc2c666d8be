package loop

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/review-loop/review-loop/internal/state"
)

// busyFindings are n findings of three engines as a busy PR carries them:
// one file per 15 findings, clustered on the lines engines flag together,
// titles of several words, specific and generic categories, a third with
// a suggestion block, and one in five a duplicate another engine posted
// of an earlier one (DD1 merges those).
func busyFindings(n int) []Finding {
	r := rand.New(rand.NewPCG(uint64(n), 23))
	engines := []string{"bugbot", "claude", "copilot"}
	words := strings.Fields("nil map read panics when the cache is empty unchecked error from close leaks file handle " +
		"off by one loop skips last element race on counter without lock wrong order of arguments to compare " +
		"missing timeout on http client shadowed variable hides the result")
	files := max(1, n/15)
	fs := make([]Finding, 0, n)
	for i := range n {
		id := int64(1000 + i)
		e := engines[i%len(engines)]
		if i > 0 && r.IntN(5) == 0 {
			d := fs[r.IntN(len(fs))]
			d.ID, d.CommentID, d.ThreadID = fmt.Sprintf("%s-%d", e, id), id, fmt.Sprintf("T%d", id)
			d.Engine = e
			d.Title += "."
			fs = append(fs, d)
			continue
		}
		line := 1 + r.IntN(20)
		title := make([]string, 4+r.IntN(5))
		for k := range title {
			title[k] = words[r.IntN(len(words))]
		}
		fd := Finding{ID: fmt.Sprintf("%s-%d", e, id), Engine: e, CommentID: id, ThreadID: fmt.Sprintf("T%d", id),
			Path: fmt.Sprintf("pkg%d/file%d.go", i%files, i%files), Line: line, Title: strings.Join(title, " "),
			Body: "**" + strings.Join(title, " ") + "**\n\nThe value is read before it is checked; see the caller."}
		if r.IntN(3) == 0 {
			fd.StartLine = max(1, line-r.IntN(5))
		}
		if r.IntN(2) == 0 {
			fd.Category = fmt.Sprintf("defect-%d", r.IntN(30))
		} else {
			fd.Category = "bug"
		}
		if r.IntN(3) == 0 {
			fd.Body += fmt.Sprintf("\n\n```suggestion\n\tif v == nil {\n\t\treturn %d, ErrEmpty\n\t}\n```\n", r.IntN(1000))
		}
		fs = append(fs, fd)
	}
	return fs
}

// busyDecision is a cycle that triages n fresh findings of three engines,
// with half as many already triaged.
func busyDecision(n int) (state.State, Observation) {
	engines := []string{"bugbot", "claude", "copilot"}
	st := active(sha1, engines...)
	byEngine := map[string][]Finding{}
	for i, fd := range busyFindings(n + n/2) {
		if i%3 == 2 && i < n {
			st.Triage = append(st.Triage, state.TriageRow{FindingID: fd.ID, Engine: fd.Engine, CommentID: fd.CommentID, Tier: 3, Outcome: OutcomeEscalated})
		}
		byEngine[fd.Engine] = append(byEngine[fd.Engine], fd)
	}
	var views []EngineView
	for i, e := range engines {
		views = append(views, done(e, sha1, int64(100+i), byEngine[e]...))
	}
	return st, obs(sha1, 0, views...)
}
