package copilot

import (
	"testing"

	"github.com/review-loop/review-loop/internal/adversarial"
)

// R2: Copilot's readers — its review overview and its inline comments —
// do work linear in their input on 65,536 characters of adversarial
// markdown.
func TestRule_R2_CopilotReadersAreLinear(t *testing.T) {
	for name, parse := range map[string]func(string){
		"ParseOverview": func(s string) { ParseOverview(s) },
		"ParseComment":  func(s string) { ParseComment(s) },
	} {
		adversarial.Check(t, name, parse, 8, 600)
	}
}
