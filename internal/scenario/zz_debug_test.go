package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/sim"
)

func TestZZDebug(t *testing.T) {
	name := os.Getenv("ZZ")
	if name == "" {
		t.Skip()
	}
	sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	var progress strings.Builder
	res, err := Run(context.Background(), sc, Options{Self: []string{self}, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(res.Report, "\n") {
		if strings.HasPrefix(l, "| bugbot |") || strings.Contains(l, "End reason") || strings.Contains(l, "Cycle ") {
			fmt.Println(l)
		}
	}
	fmt.Println("cycles:", strings.Count(progress.String(), "── cycle"), "fix cycles:", strings.Count(progress.String(), "→ fix"))
}
