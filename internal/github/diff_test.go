package github

import (
	"strings"
	"testing"
	"testing/iotest"
)

// TestRule_CV6_CountCharsCountsCharactersNotBytes: the character count of
// a diff counts a multi-byte character once, also when a read splits it.
func TestRule_CV6_CountCharsCountsCharactersNotBytes(t *testing.T) {
	s := "+héllo, 世界 🙂\n-x\n"
	for _, r := range []struct {
		name string
		n    func() (int, error)
	}{
		{"whole", func() (int, error) { return CountChars(strings.NewReader(s)) }},
		{"byte by byte", func() (int, error) { return CountChars(iotest.OneByteReader(strings.NewReader(s))) }},
	} {
		n, err := r.n()
		if err != nil || n != len([]rune(s)) {
			t.Errorf("%s: %d, %v; want %d characters", r.name, n, err, len([]rune(s)))
		}
	}
}
