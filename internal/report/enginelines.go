package report

import (
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
)

// This file is the job log's account of a decision per engine (S4).

// EngineLines are the two lines S4 gives each engine in the job log, never
// collapsed: its review state (with the verdict and the note when there
// are), then its active findings by id.
func EngineLines(p loop.Plan) []string {
	lines := make([]string, 0, 2*len(p.Engines))
	for _, e := range p.Engines {
		state := fmt.Sprintf("%s: review %s", e.Engine, e.State)
		if e.Verdict != "" {
			state += " · verdict " + string(e.Verdict)
		}
		if e.Note != "" {
			state += " · " + e.Note
		}
		active := fmt.Sprintf("%s: %d active finding(s)", e.Engine, len(e.Active))
		if len(e.Active) > 0 {
			ids := make([]string, len(e.Active))
			for i, id := range e.Active {
				ids[i] = fmt.Sprint(id)
			}
			active += ": " + strings.Join(ids, ", ")
		}
		lines = append(lines, state, active)
	}
	return lines
}
