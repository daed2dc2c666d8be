package loop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/state"
)

// SelectEngines is IN2's engine set. With no engine named, it is every
// known engine the repository shows evidence of (evidence maps an engine
// to what was seen: a review on this PR or a recent one, its workflow or
// config file; "" or absent is none). Named engines are taken as named,
// seen or not. installed records, per known engine, whether it was seen:
// a selected engine never seen is asked once and, silent past its normal
// latency, handed back as not installed (see unseen).
func SelectEngines(known, named []string, evidence map[string]string) (selected []string, installed map[string]bool) {
	installed = make(map[string]bool, len(known))
	if len(named) > 0 {
		// Only the named engines are recorded: the others were not left
		// out for want of evidence, so they get no IN2 notice.
		selected = slices.Clone(named)
		for _, e := range named {
			installed[e] = evidence[e] != ""
		}
	} else {
		for _, e := range known {
			installed[e] = evidence[e] != ""
			if installed[e] {
				selected = append(selected, e)
			}
		}
	}
	slices.Sort(selected)
	return slices.Compact(selected), installed
}

// guided are the engines with a setup guide in docs/engines.
var guided = []string{"bugbot", "claude", "coderabbit", "copilot", "gemini"}

// EngineGuide is the address of an engine's setup guide, "" for an
// engine without one (a repository's own definition).
func EngineGuide(engine string) string {
	if !slices.Contains(guided, engine) {
		return ""
	}
	return "https://github.com/review-loop/review-loop/blob/main/docs/engines/" + engine + ".md"
}

// notInstalledMark starts the mark note of an engine handed back as not
// installed: it stays out on that head; a new head (a fix push) clears
// the mark, as every mark, so it is asked once more there.
const notInstalledMark = "not installed? "

// unseen: the loop selected the engine but the repository showed no
// evidence of it when the loop began, and it has not reviewed since.
func unseen(s state.State, engine string) bool {
	seen, known := s.Installed[engine]
	return known && !seen
}

// notInstalledOut: the engine was handed back as not installed earlier in
// this loop (asked once).
func notInstalledOut(es state.EngineState) bool {
	return es.Mark == state.MarkHung && strings.HasPrefix(es.MarkNote, notInstalledMark)
}

// unseenNote is the note of an unseen engine handed back after its normal
// latency (IN2), with its guide.
func unseenNote(engine string, waited fmt.Stringer) string {
	n := notInstalledMark + "never seen on this repository, and no review " + waited.String() + " after it was asked (IN2)"
	if g := EngineGuide(engine); g != "" {
		n += "; set it up: " + g
	}
	return n
}
