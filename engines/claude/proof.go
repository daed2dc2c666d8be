package claude

import (
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/engines"
)

// Kinds of Claude post (S8, S9).
const (
	// KindActionFinished is claude-code-action's tracking comment once the
	// run finished: "**Claude finished @user's task …**".
	KindActionFinished = "action-finished"
	// KindActionWorking is the tracking comment while the run works.
	KindActionWorking = "action-working"
	// KindActionError is the tracking comment of a failed run.
	KindActionError = "action-error"
	// KindPluginSummary is the code-review plugin's summary comment
	// ("## Code review", "No issues found. …" or the findings list).
	KindPluginSummary = "plugin-summary"
	// KindPluginInline is an inline comment the code-review plugin posted
	// during the run: with findings the plugin posts only these.
	KindPluginInline = "plugin-inline"
	// KindManagedCheck is the managed Code Review check run's result,
	// "Code review found N potential issues" (N is stated, S6).
	KindManagedCheck = "managed-check"
)

var proofKinds = []engines.ProofKind{
	{Kind: KindActionFinished, Surface: engines.SurfaceComment, Sample: "claude/02-action-pr-review-comments-wshobson-agents-pr618.md"},
	{Kind: KindPluginSummary, Surface: engines.SurfaceComment, Sample: "claude/04-code-review-plugin-output-template.md"},
	{Kind: KindPluginInline, Surface: engines.SurfaceInline, Sample: "claude/04-code-review-plugin-output-template.md"},
	{Kind: KindManagedCheck, Surface: engines.SurfaceCheck, Sample: "claude/05-managed-code-review-check-run-text.md"},
}

// ProofKinds implements engines.Prover: the action's finished tracking
// comment, the plugin's summary comment or inline comments posted by the
// run, and the managed check's result. Claude's verdict is still the
// judge's (J1); these only prove a review was finished.
func (*Claude) ProofKinds() []engines.ProofKind { return proofKinds }

var (
	// Claude's words live in its definition, engines/defs/claude.yaml (S12).
	pluginSummaryRE = engines.BuiltinText(Name, KindPluginSummary)
	managedFoundRE  = engines.BuiltinText(Name, KindManagedCheck)
)

// Classify implements engines.Prover.
func (*Claude) Classify(s engines.Surface, text string) engines.Reading {
	r := engines.Unknown()
	switch s {
	case engines.SurfaceComment, engines.SurfaceReview:
		switch c := ParseComment(text); {
		case c.State == StateErrored:
			r.Kind = KindActionError
		case c.State == StateWorking:
			r.Kind = KindActionWorking
		case c.State == StateFinished:
			r.Kind = KindActionFinished
		case pluginSummaryRE.MatchString(text):
			r.Kind = KindPluginSummary
		}
	case engines.SurfaceInline:
		if strings.TrimSpace(text) != "" {
			r.Kind = KindPluginInline
		}
	case engines.SurfaceCheck:
		if n, ok := managedStated(text); ok {
			r.Kind, r.Stated = KindManagedCheck, n
		}
	}
	r.Proof = engines.Allowed(proofKinds, s, r.Kind)
	return r
}

// managedStated reads the count the managed check states (S6): "Code
// review found N potential issues" or "confirmed N", or its severity line.
func managedStated(text string) (int, bool) {
	n, ok := -1, false
	for _, m := range managedFoundRE.FindAllStringSubmatch(text, -1) {
		for _, g := range []string{m[1], m[3]} {
			if k, err := strconv.Atoi(g); err == nil && k > n {
				n, ok = k, true
			}
		}
	}
	if sev, found := ParseSeverityLine(text); found && sev.Total() > n {
		n, ok = sev.Total(), true
	}
	return n, ok
}
