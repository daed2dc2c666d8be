package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME_TheCommandLineSectionListsEveryCommandAndFlag: the README's
// "Command line" section names each command and each of its flags as
// the help does, and the exit code it documents for a flag error is
// ExitUsage.
func TestREADME_TheCommandLineSectionListsEveryCommandAndFlag(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Command line\n")
	if !ok {
		t.Fatal("README.md has no \"## Command line\" section")
	}
	section, exits, _ := strings.Cut(section, "\n## Exit codes\n")
	for _, c := range commands() {
		if !strings.Contains(section, "`review-loop "+c.spec.name) {
			t.Errorf("the Command line section does not list `review-loop %s`", c.spec.name)
		}
		c.spec.flagSet().VisitAll(func(f *flag.Flag) {
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-"
			}
			if !strings.Contains(section, dash+f.Name) {
				t.Errorf("the Command line section does not name %s's flag %s%s", c.spec.name, dash, f.Name)
			}
		})
	}
	if !strings.Contains(exits, "`3`\nunknown command or flag") && !strings.Contains(exits, "`3` unknown command or flag") {
		t.Errorf("the Exit codes section does not give 3 for an unknown flag:\n%s", exits)
	}
}
