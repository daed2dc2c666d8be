package claude

import (
	"testing"

	"github.com/review-loop/review-loop/internal/adversarial"
)

// R2: Claude's comment reader does work linear in its input on 65,536
// characters of adversarial markdown.
func TestRule_R2_ClaudeReaderIsLinear(t *testing.T) {
	adversarial.Check(t, "ParseComment", func(s string) { ParseComment(s) }, 8, 600)
}
