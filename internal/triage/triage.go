package triage

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/review-loop/review-loop/internal/loop"
)

// Tier is a triage tier (rules TR1–TR3).
type Tier int

// The tiers.
const (
	Tier1 Tier = 1 // auto-fix
	Tier2 Tier = 2 // fix after a maintainer's approval
	Tier3 Tier = 3 // escalate, never fixed
)

// Outcome is where a finding stands in the cycle's triage table (TR5).
type Outcome string

// Outcomes of the triage table.
const (
	OutcomePending   Outcome = "pending"
	OutcomeFixed     Outcome = "fixed"
	OutcomeReverted  Outcome = "reverted"
	OutcomeEscalated Outcome = "escalated"
	OutcomeSkipped   Outcome = "skipped"
	OutcomeOutdated  Outcome = "outdated"
	OutcomeDisagreed Outcome = "disagreed"
	// OutcomeApprovedPending is a Tier 2 row awaiting a maintainer's
	// approval; it is the loop's awaiting-approval outcome, so the next
	// cycle re-queues the row once it is approved (TR2, E1).
	OutcomeApprovedPending Outcome = loop.OutcomeAwaitingApproval
)

// CopilotVerdict is the Copilot-only classification of a comment (TR6).
type CopilotVerdict string

// Copilot-only verdicts.
const (
	VerdictFix      CopilotVerdict = "FIX"
	VerdictOutdated CopilotVerdict = "OUTDATED"
	VerdictDisagree CopilotVerdict = "DISAGREE"
)

// FixerVerdict is what a fixer said about a finding in an earlier step:
// only a fixer can make a comment DISAGREE (TR6).
type FixerVerdict struct {
	Verdict CopilotVerdict
	Reply   string
}

// Inputs is everything Classify needs besides the findings.
type Inputs struct {
	Catalogue *Catalogue
	// TestCommand is true when a test-command is configured; without one
	// nothing is Tier 1 (TR1).
	TestCommand bool
	// Approvals maps a finding id to the fix direction of its
	// `@review-loop approve <id>` command (empty: approved, no direction).
	Approvals map[string]string
	// Skips holds finding ids a maintainer asked to skip.
	Skips map[string]bool
	// CopilotOnly turns on the FIX / OUTDATED / DISAGREE classification.
	CopilotOnly bool
	// Verdicts are fixer verdicts by finding id (OUTDATED or DISAGREE).
	Verdicts map[string]FixerVerdict
	// SharedHelpers are path globs of shared helpers (Tier 2 even when
	// codified); nil uses DefaultSharedHelpers.
	SharedHelpers []string
}

// DefaultSharedHelpers are directory names whose files count as shared
// helpers when Inputs.SharedHelpers is nil.
var DefaultSharedHelpers = []string{"**/util/**", "**/utils/**", "**/helpers/**", "**/helper/**", "**/common/**", "**/shared/**"}

// Row is one line of the triage table (TR5).
type Row struct {
	FindingID     string
	Engine        string
	CommentID     int64
	Tier          Tier
	Justification string
	Outcome       Outcome
	// Reason says why the finding got its tier, for the report.
	Reason    string
	PatternID string
	Category  string
	// Approved is true for a Tier 2 finding a maintainer approved;
	// Direction is the fix direction that came with the approval.
	Approved  bool
	Direction string
	// Verdict and Reply are set in Copilot-only mode (TR6): OUTDATED and
	// DISAGREE carry a grounded reply and no code change.
	Verdict CopilotVerdict
	Reply   string
}

// Table is the per-cycle triage table, one row per finding, in input order.
type Table struct {
	Rows []Row
}

// Fixable returns the ids to fix this cycle, in order: Tier 1 and approved
// Tier 2 rows that are still pending.
func (t Table) Fixable() []string {
	var ids []string
	for _, r := range t.Rows {
		if r.Outcome == OutcomePending && (r.Tier == Tier1 || r.Tier == Tier2 && r.Approved) {
			ids = append(ids, r.FindingID)
		}
	}
	return ids
}

// Row returns the row of a finding id.
func (t Table) Row(id string) (Row, bool) {
	i := slices.IndexFunc(t.Rows, func(r Row) bool { return r.FindingID == id })
	if i < 0 {
		return Row{}, false
	}
	return t.Rows[i], true
}

// Classify puts every finding into a tier with a justification and an
// initial outcome (rules TR1–TR6).
func Classify(findings []loop.Finding, in Inputs) Table {
	cat := in.Catalogue
	if cat == nil {
		cat = Builtin()
	}
	helpers := in.SharedHelpers
	if helpers == nil {
		helpers = DefaultSharedHelpers
	}
	t := Table{Rows: make([]Row, 0, len(findings))}
	for _, f := range findings {
		t.Rows = append(t.Rows, classify(f, cat, helpers, in))
	}
	return t
}

func classify(f loop.Finding, cat *Catalogue, helpers []string, in Inputs) Row {
	// The catalogue is matched and the keyword bucket read once per
	// finding: the category, the tier and the justification share them.
	folded := &foldedText{f: &f}
	pat, suggestion, b := cat.match(&f, folded), hasSuggestion(f.Body), &lazyBucket{f: &f}
	r := Row{FindingID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Category: category(&f, pat, b)}
	if pat != nil {
		r.PatternID = pat.ID
	}
	direction, approved := in.Approvals[f.ID]

	files := Files(f)
	switch {
	case f.Withdrawn:
		return escalate(r, "withdrawn by its engine")
	case len(files) > 1:
		return escalate(r, fmt.Sprintf("cross-file: touches %d files", len(files)))
	case slices.ContainsFunc(files, isWorkflow):
		return escalate(r, "touches .github/workflows/ (the token cannot push it)")
	case isArchitectural(f, folded):
		return escalate(r, "architectural: needs a design decision")
	}

	tier1Eligible := false
	switch {
	case pat != nil && pat.Tier1:
		r.Justification = pat.Justify(f)
		tier1Eligible = true
	case suggestion && len(files) == 1:
		r.PatternID = "suggestion-block"
		if t := sentenceTitle(f.Title); t != "" {
			r.Justification = fmt.Sprintf("The %s suggestion corrects a concrete defect on the lines it targets: %s.", f.Engine, t)
		}
		tier1Eligible = true
	case pat != nil:
		r.Justification = pat.Justify(f)
	default:
		r.Justification = fallbackJustification(f, b)
	}
	if r.Justification == "" {
		return escalate(r, "no justification that it is a real bug (TR4)")
	}

	shared := slices.ContainsFunc(files, func(p string) bool { return matchAny(helpers, p) })
	switch {
	case tier1Eligible && !in.TestCommand:
		r.Tier, r.Reason = Tier2, "codified, but no test-command to run a targeted test (TR1)"
	case tier1Eligible && shared:
		r.Tier, r.Reason = Tier2, "touches a shared helper"
	case tier1Eligible && len(files) == 1:
		r.Tier, r.Reason = Tier1, "codified pattern "+r.PatternID+" on one file with a targeted test"
	case tier1Eligible:
		r.Tier, r.Reason = Tier2, "codified, but names no file"
	default:
		r.Tier, r.Reason = Tier2, "actionable but not codified"
	}

	r.Outcome = OutcomePending
	if r.Tier == Tier2 {
		r.Approved, r.Direction = approved, strings.TrimSpace(direction)
		if !approved {
			r.Outcome = OutcomeApprovedPending
		}
	}
	if in.Skips[f.ID] {
		r.Outcome, r.Reason = OutcomeSkipped, "skipped by a maintainer"
	}
	if f.Outdated {
		r.Outcome, r.Reason = OutcomeOutdated, "the thread is outdated"
	}
	if in.CopilotOnly {
		r = copilotVerdict(r, f, in.Verdicts[f.ID])
	}
	return r
}

func escalate(r Row, why string) Row {
	r.Tier, r.Outcome, r.Reason, r.Justification = Tier3, OutcomeEscalated, why, ""
	return r
}

// copilotVerdict applies TR6: OUTDATED when the thread is outdated or a
// fixer found the suggestion no longer applies, DISAGREE only from a
// fixer's verdict, FIX otherwise.
func copilotVerdict(r Row, f loop.Finding, v FixerVerdict) Row {
	switch {
	case f.Outdated:
		r.Verdict, r.Outcome = VerdictOutdated, OutcomeOutdated
		r.Reply = outdatedReply(f)
	case v.Verdict == VerdictOutdated:
		r.Verdict, r.Outcome, r.Reply = VerdictOutdated, OutcomeOutdated, v.Reply
		if r.Reply == "" {
			r.Reply = outdatedReply(f)
		}
	case v.Verdict == VerdictDisagree && strings.TrimSpace(v.Reply) != "":
		r.Verdict, r.Outcome, r.Reply = VerdictDisagree, OutcomeDisagreed, strings.TrimSpace(v.Reply)
	default:
		r.Verdict = VerdictFix
	}
	return r
}

func outdatedReply(f loop.Finding) string {
	at := ""
	if f.OriginalCommit != "" {
		c := f.OriginalCommit
		if len(c) > 7 {
			c = c[:7]
		}
		at = " at " + c
	}
	line := f.OriginalLine
	if line == 0 {
		line = f.Line
	}
	return fmt.Sprintf("Outdated: %s line %d%s has changed since this comment was written, so it no longer applies; no change made.", f.Path, line, at)
}

// Files returns the distinct files a finding touches: its path and every
// location's file (locations may carry a `#Lx-Ly` suffix).
func Files(f loop.Finding) []string {
	var out []string
	add := func(p string) {
		p, _, _ = strings.Cut(p, "#")
		p = strings.TrimPrefix(path.Clean(strings.TrimSpace(p)), "./")
		if p != "" && p != "." && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(f.Path)
	for _, l := range f.Locations {
		add(l)
	}
	return out
}

func isWorkflow(p string) bool { return strings.HasPrefix(p, ".github/workflows/") }

var architecturalRe = regexp.MustCompile(`(?i)\b(architectur(e|al)|redesign|re-architect|design (issue|flaw|problem)|layering|separation of concerns|should be (split|moved) into)\b`)

var architecturalNeedles = needlesOf(architecturalRe.String())

func isArchitectural(f loop.Finding, folded *foldedText) bool {
	return strings.EqualFold(f.Category, "architecture") ||
		architecturalNeedles.mayMatch(folded.foldedTitle()) && architecturalRe.MatchString(f.Title)
}

var suggestionRe = regexp.MustCompile("(?m)^ {0,3}(```+|~~~+)\\s*suggestion\\s*$")

// hasSuggestion runs suggestionRe only on a body that holds its word.
func hasSuggestion(body string) bool {
	return strings.Contains(body, "suggestion") && suggestionRe.MatchString(body)
}

// fallbackJustification gives an uncodified finding a justification when
// the engine rates it high or critical, or it falls in a bug bucket.
func fallbackJustification(f loop.Finding, b *lazyBucket) string {
	title := sentenceTitle(f.Title)
	if title == "" {
		return ""
	}
	if f.Severity == loop.SeverityHigh || f.Severity == loop.SeverityCritical {
		return fmt.Sprintf("%s rates this %s-severity defect: %s.", f.Engine, f.Severity, title)
	}
	if b := b.get(); b != "" && b != "cosmetic-prose" {
		return fmt.Sprintf("The finding describes a %s defect: %s.", strings.ReplaceAll(b, "-", " "), title)
	}
	return ""
}

// matchAny matches p against globs where ** spans directories.
func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}
