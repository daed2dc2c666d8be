package event

import (
	"testing"

	"github.com/review-loop/review-loop/internal/adversarial"
)

// R2: a command is read from 65,536 characters of adversarial markdown
// with work linear in the input, the phrase at the start, the end, or
// nowhere.
func TestRule_R2_CommandParsingIsLinear(t *testing.T) {
	for name, parse := range map[string]func(string){
		"no command":           func(s string) { ParseCommand(s, "@review-loop") },
		"a command at the end": func(s string) { ParseCommand(s+"\n\n@review-loop status", "@review-loop") },
		"a command first":      func(s string) { ParseCommand("@review-loop approve x "+s, "@review-loop") },
	} {
		adversarial.Check(t, name, parse, 8, 600)
	}
}
