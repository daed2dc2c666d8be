package report

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
)

// freshness is the line that says which run wrote the comment, when, and
// since when each pending engine has been waited for (a time, not a
// duration, so an idle wake has nothing to update: C2); empty when the
// input carries none of them (renders without a clock stay as they were).
func freshness(in Input, s Summary) string {
	var parts []string
	if in.RunURL != "" {
		parts = append(parts, fmt.Sprintf("[run %s](%s)", path.Base(in.RunURL), in.RunURL))
	}
	if !in.Now.IsZero() {
		parts = append(parts, "updated "+in.Now.UTC().Format("2006-01-02 15:04 UTC"))
		for _, e := range s.Engines {
			if e.Verdict != "" || (e.State != loop.Triggered && e.State != loop.Running) {
				continue
			}
			since := in.State.EngineStates[e.Name].WaitSince
			if since.IsZero() || since.After(in.Now) {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s waiting since %s", e.Name, since.UTC().Format("15:04 UTC")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " · ") + "\n"
}

// ruleIDRe matches a rule id of docs/rules.md (W1, ST5, TR2…) as a word.
var ruleIDRe = regexp.MustCompile(`\b(IN|SC|ST|TB|TR|DD|WF|HY|MG|CL|CI|SW|CV|EQ|LW|B|E|H|J|R|S|T|W)([0-9]{1,2})\b`)

// linkRules links every rule id in an already escaped line to its entry
// on the rules page; without a rules URL the line is returned unchanged.
func linkRules(line, rulesURL string) string {
	if rulesURL == "" {
		return line
	}
	return ruleIDRe.ReplaceAllStringFunc(line, func(id string) string {
		return fmt.Sprintf("[%s](%s#%s)", id, rulesURL, strings.ToLower(id))
	})
}
