package engines_test

import (
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/adversarial"
)

// R2: the shared readers of engine comments do work linear in their
// input on 65,536 characters of adversarial markdown.
func TestRule_R2_EngineCommentReadersAreLinear(t *testing.T) {
	for name, parse := range map[string]func(string){
		"Suggestions":       func(s string) { engines.Suggestions(s) },
		"Title":             func(s string) { engines.Title(s) },
		"FirstLine":         func(s string) { engines.FirstLine(s) },
		"StripHTMLComments": func(s string) { engines.StripHTMLComments(s) },
	} {
		adversarial.Check(t, name, parse, 8, 600)
	}
}
