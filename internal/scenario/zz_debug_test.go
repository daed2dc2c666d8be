package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/review-loop/review-loop/internal/sim"
	"github.com/review-loop/review-loop/internal/state"
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
	res, err := Run(context.Background(), sc, Options{Self: []string{self}})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := state.Decode(res.Report)
	fmt.Printf("%v\nfix commits %+v\ninduced %+v\nheld %+v\nautofix %+v\nenginefixed %v\n", err, st.FixCommits, st.Induced, st.Held, st.AutofixOff, st.EngineFixed)
}
