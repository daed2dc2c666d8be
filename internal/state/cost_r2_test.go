package state

import (
	"testing"

	"github.com/review-loop/review-loop/internal/adversarial"
)

// R2: a comment is searched for review-loop's hidden state — none, one
// after 65,536 characters of adversarial markdown, or a broken one —
// with work linear in the comment.
func TestRule_R2_DecodingIsLinear(t *testing.T) {
	hidden, err := Encode("", full())
	if err != nil {
		t.Fatal(err)
	}
	for name, parse := range map[string]func(string){
		"no state":     func(s string) { _, _, _ = Decode(s) },
		"state after":  func(s string) { _, _, _ = Decode(s + "\n\n" + hidden) },
		"broken state": func(s string) { _, _, _ = Decode(hidden[:len(hidden)/2] + s) },
	} {
		adversarial.Check(t, name, parse, 8, 600)
	}
}
