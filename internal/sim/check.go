package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

// Outcome is what a scenario runner observed at the end of a run.
type Outcome struct {
	// EndReason is the loop's end reason ("" when it never handed back).
	EndReason string
	// Verdicts are the final per-engine verdicts (CLEAN, HUNG, ...).
	Verdicts map[string]string
	// Report is the final status comment; "" reads the newest comment the
	// action posted.
	Report string
	// Steps is how many cycles ran.
	Steps int
	// Writes counts the action's write requests.
	Writes int
	// Errors are the errors cycles ended with.
	Errors []string
	// Log is every cycle's workflow-command output, in order.
	Log string
	// Outputs and Summary are what the last cycle set and wrote (H9).
	Outputs map[string]string
	Summary string
	// Gates is the merge gate's status on the head after each cycle
	// (in_progress, success, failure, neutral, or none).
	Gates []string
	// Checkouts is how many cycles cloned the PR themselves: with no
	// checkout step, only those that needed the tree.
	Checkouts int
}

// Check compares an observed outcome and the fake's final state with the
// scenario's expectation; it returns one message per mismatch.
func (w *World) Check(o Outcome) []string {
	x := w.Expect
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if o.EndReason != x.EndReason {
		add("end reason %q, want %q", o.EndReason, x.EndReason)
	}
	for _, e := range sortedKeys(x.Verdicts) {
		if got := o.Verdicts[e]; got != x.Verdicts[e] {
			add("verdict of %s %q, want %q", e, got, x.Verdicts[e])
		}
	}
	if o.Steps > w.Scenario.MaxSteps {
		add("%d cycles, the scenario allows %d", o.Steps, w.Scenario.MaxSteps)
	}
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	if x.Commits != nil {
		if n := w.loopCommits(); n != *x.Commits {
			add("%d loop commits, want %d", n, *x.Commits)
		}
	}
	if x.ResolvedThreads != nil {
		n := 0
		for _, t := range snap.Threads {
			if t.Resolved {
				n++
			}
		}
		if n != *x.ResolvedThreads {
			add("%d resolved threads, want %d", n, *x.ResolvedThreads)
		}
	}
	if x.StatusComments != nil {
		n := 0
		for _, c := range snap.Comments {
			if strings.EqualFold(c.Author, ActionsLogin) && strings.Contains(c.Body, state.Marker) {
				n++
			}
		}
		if n != *x.StatusComments {
			add("%d status comments by review-loop, want %d", n, *x.StatusComments)
		}
	}
	if len(x.ErrorSignalIDs) > 0 {
		var st state.State
		for _, c := range snap.Comments {
			if strings.EqualFold(c.Author, ActionsLogin) {
				if s, found, err := state.Decode(c.Body); found && err == nil {
					st = s
					break
				}
			}
		}
		for _, e := range x.ErrorSignalIDs {
			if es := st.EngineStates[e]; es.LastErrorSignalID == 0 {
				add("%s's last error signal has no id (state %+v)", e, es)
			}
		}
	}
	if x.Draft != nil && snap.Draft != *x.Draft {
		add("PR draft %v, want %v", snap.Draft, *x.Draft)
	}
	trig := w.Triggers()
	for _, e := range sortedKeys(x.MaxTriggersPerSHA) {
		for _, sha := range sortedKeys(trig[e]) {
			if n := trig[e][sha]; n > x.MaxTriggersPerSHA[e] {
				add("%s triggered %d times on %s, at most %d allowed", e, n, short(sha), x.MaxTriggersPerSHA[e])
			}
		}
	}
	for _, e := range sortedKeys(x.MinTriggers) {
		n := 0
		for _, c := range trig[e] {
			n += c
		}
		if n < x.MinTriggers[e] {
			add("%s triggered %d times, want at least %d", e, n, x.MinTriggers[e])
		}
	}
	bad = append(bad, w.quotaTriggers(x.QuietDuringQuota)...)
	for _, e := range w.Resumed() {
		add("%s was resumed with `@coderabbitai resume`: a paused engine is asked for one review, never resumed (ST6)", e)
	}
	for _, k := range sortedKeys(x.ActionComments) {
		n := 0
		for _, c := range snap.Comments {
			if strings.EqualFold(c.Author, ActionsLogin) && strings.Contains(c.Body, k) {
				n++
			}
		}
		if n != x.ActionComments[k] {
			add("%d action comments contain %q, want %d", n, k, x.ActionComments[k])
		}
	}
	report := o.Report
	if report == "" {
		for _, c := range snap.Comments {
			if strings.EqualFold(c.Author, ActionsLogin) && len(c.Body) >= len(report) {
				report = c.Body
			}
		}
	}
	for _, s := range x.ReportContains {
		if !strings.Contains(report, s) {
			add("report lacks %q", s)
		}
	}
	for _, s := range x.ReportExcludes {
		if strings.Contains(report, s) {
			add("report contains %q", s)
		}
	}
	for _, want := range x.CommentsContain {
		if !slices.ContainsFunc(snap.Comments, func(c ghfake.IssueComment) bool {
			return strings.EqualFold(strings.TrimSuffix(c.Author, "[bot]"), ActionsLogin) &&
				!strings.Contains(c.Body, "<!-- review-loop") && strings.Contains(c.Body, want)
		}) {
			add("no comment by the action contains %q", want)
		}
	}
	for _, want := range x.EnginePosted {
		var bodies []string
		for _, r := range snap.Reviews {
			bodies = append(bodies, r.Body)
		}
		for _, c := range snap.Comments {
			if !strings.EqualFold(strings.TrimSuffix(c.Author, "[bot]"), ActionsLogin) {
				bodies = append(bodies, c.Body)
			}
		}
		for _, c := range snap.CheckRuns {
			bodies = append(bodies, c.Summary)
		}
		if !slices.ContainsFunc(bodies, func(b string) bool { return holdsLines(b, want) }) {
			first, _, _ := strings.Cut(strings.TrimSpace(want), "\n")
			add("no engine posted the text starting %q", first)
		}
	}
	if x.YieldAfterOutsidePush > 0 {
		w.mu.Lock()
		heads := slices.Clone(w.heads)
		w.mu.Unlock()
		var last time.Time
		sawOurs := false
		for _, h := range heads {
			switch {
			case h.outside:
				last = h.at
			case !last.IsZero():
				sawOurs = true
				if gap := h.at.Sub(last); gap < time.Duration(x.YieldAfterOutsidePush) {
					add("the loop pushed %s only %s after an outside push, want at least %s", short(h.sha), gap, time.Duration(x.YieldAfterOutsidePush))
				}
			}
		}
		if !sawOurs {
			add("no push by the loop after the outside push")
		}
	}
	for _, want := range x.RepliesContain {
		found := false
		for _, t := range snap.Threads {
			for _, c := range t.Comments {
				if c.InReplyTo != 0 && strings.EqualFold(strings.TrimSuffix(c.Author, "[bot]"), ActionsLogin) && strings.Contains(c.Body, want) {
					found = true
				}
			}
		}
		if !found {
			add("no reply by the action in a review thread contains %q", want)
		}
	}
	if x.Reactions != nil {
		var got []string
		for _, r := range w.Fake.Reactions() {
			if strings.EqualFold(strings.TrimSuffix(r.By, "[bot]"), ActionsLogin) {
				got = append(got, r.Content)
			}
		}
		if !slices.Equal(got, x.Reactions) {
			add("reactions %v, want %v", got, x.Reactions)
		}
	}
	if x.MaxWrites != nil && o.Writes > *x.MaxWrites {
		add("%d write requests by the action, at most %d allowed", o.Writes, *x.MaxWrites)
	}
	if x.Checkouts != nil && o.Checkouts != *x.Checkouts {
		add("%d cycles cloned the PR, want %d", o.Checkouts, *x.Checkouts)
	}
	if x.Cycles != nil && o.Steps != *x.Cycles {
		add("%d cycles, want %d", o.Steps, *x.Cycles)
	}
	if x.NoErrors && len(o.Errors) > 0 {
		add("cycles ended in errors: %s", strings.Join(o.Errors, "; "))
	}
	for _, a := range x.Annotations {
		if !strings.Contains(o.Log, a) {
			add("no annotation contains %q", a)
		}
	}
	for _, k := range sortedKeys(x.Outputs) {
		got, ok := o.Outputs[k]
		switch want := x.Outputs[k]; {
		case !ok || got == "":
			add("output %s not set, want %q", k, want)
		case want != "*" && got != want:
			add("output %s = %q, want %q", k, got, want)
		}
	}
	for _, s := range x.Summary {
		if !strings.Contains(o.Summary, s) {
			add("job summary lacks %q", s)
		}
	}
	if x.NoDuplicateComments {
		bad = append(bad, w.duplicates()...)
	}
	bad = append(bad, w.checkGate(o)...)
	bad = append(bad, w.checkCIDispatches()...)
	return bad
}

// duplicates lists comments posted twice with the same body by the same
// author: conversation comments on one head SHA, replies in one thread.
func (w *World) duplicates() []string {
	var out []string
	w.mu.Lock()
	seen := map[said]int{}
	for _, s := range w.said {
		if w.botLogins[strings.ToLower(s.author)] && !strings.EqualFold(s.author, ActionsLogin) {
			continue // an engine's own notices
		}
		seen[s]++
	}
	w.mu.Unlock()
	var keys []said
	for k, n := range seen {
		if n > 1 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b said) int { return strings.Compare(a.author+a.sha+a.body, b.author+b.sha+b.body) })
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s posted %q %d times on %s", k.author, firstLine(k.body), seen[k], short(k.sha)))
	}
	for _, t := range w.Fake.PR(w.Owner, w.Repo, w.Number).Threads {
		replies := map[string]int{}
		for _, c := range t.Comments[min(1, len(t.Comments)):] {
			replies[c.Author+"\x00"+c.Body]++
		}
		for _, k := range sortedKeys(replies) {
			if replies[k] > 1 {
				a, body, _ := strings.Cut(k, "\x00")
				out = append(out, fmt.Sprintf("%s replied %q %d times in thread %s", a, firstLine(body), replies[k], t.NodeID))
			}
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if len(l) > 60 {
		l = l[:60] + "…"
	}
	return l
}

// quotaTriggers lists triggers of the engines that came while a quota
// notice of theirs was in its stated cooldown (1h when none), T8.
func (w *World) quotaTriggers(engines []string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, e := range engines {
		if len(w.quotas[e]) == 0 {
			out = append(out, fmt.Sprintf("%s posted no quota notice", e))
		}
		for _, q := range w.quotas[e] {
			wait := q.wait
			if wait == 0 {
				wait = time.Hour
			}
			for _, t := range w.triggerAt[e] {
				if t.After(q.at) && t.Before(q.at.Add(wait)) {
					out = append(out, fmt.Sprintf("%s triggered at %s, %s into the %s quota wait it stated at %s", e, t.Format("15:04"), t.Sub(q.at), wait, q.at.Format("15:04")))
				}
			}
		}
	}
	return out
}

// holdsLines reports whether body holds every line of want that carries
// no placeholder ({{head}}, {{from}}: the engine wrote a commit there).
func holdsLines(body, want string) bool {
	for _, l := range strings.Split(want, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "{{") && !strings.Contains(body, l) {
			return false
		}
	}
	return true
}
