package bugbot

import (
	"testing"

	"github.com/review-loop/review-loop/internal/adversarial"
)

// R2: Bugbot's readers — its inline comments, its review summary, its
// check output and its usage-limit notice — do work linear in their
// input on 65,536 characters of adversarial markdown.
func TestRule_R2_BugbotReadersAreLinear(t *testing.T) {
	for name, parse := range map[string]func(string){
		"ParseFinding":    func(s string) { ParseFinding(s) },
		"ParseSummary":    func(s string) { ParseSummary(s) },
		"ParseCheck":      func(s string) { ParseCheck(s, s, s) },
		"ParseUsageLimit": func(s string) { ParseUsageLimit(s) },
	} {
		adversarial.Check(t, name, parse, 8, 600)
	}
}
