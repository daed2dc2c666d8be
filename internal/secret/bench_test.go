package secret

import (
	"strings"
	"testing"
)

// BenchmarkFindTextCutMarks is the check of a status comment's worth of
// cut marks against eight secrets: one look-up per mark.
func BenchmarkFindTextCutMarks(b *testing.B) {
	var ns []Named
	for i := range 8 {
		ns = append(ns, Named{Input: "in", Value: string(rune('a'+i)) + "k-ant-api03-" + strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 3)})
	}
	s := NewSet(ns...)
	body := strings.Repeat("…", 21000)
	for range b.N {
		s.FindText(body)
	}
}
