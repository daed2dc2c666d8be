package loop

import (
	"fmt"
	"strings"
)

// The severity floor (EQ3): with `clean-at: low|medium|high`, findings
// whose severity is below the floor are listed for a human but are not
// active: they block neither an engine's CLEAN nor the merge gate, and
// are not fixed. The default, any, keeps every finding active. Each
// engine's own severity words are mapped to the one scale by its
// definition (engines/defs/*.yaml: a declarative engine's
// severity_markers, a Go engine's engine_severity_markers); a finding
// whose engine states no severity counts as medium.

// ParseCleanAt reads the clean-at input: any (or empty) is no floor.
func ParseCleanAt(s string) (Severity, error) {
	switch v := Severity(strings.ToLower(strings.TrimSpace(s))); v {
	case "", "any":
		return "", nil
	case SeverityLow, SeverityMedium, SeverityHigh:
		return v, nil
	}
	return "", fmt.Errorf("clean-at: %q is not one of any, low, medium, high", s)
}

// severityRank places a severity on the one scale; unknown (no severity
// stated) counts as medium.
func severityRank(s Severity) int {
	switch s {
	case SeverityLow:
		return 1
	case SeverityHigh:
		return 3
	case SeverityCritical:
		return 4
	}
	return 2
}

// BelowFloor reports whether a finding of severity s is below the floor
// (EQ3); no floor ("") keeps everything.
func BelowFloor(s, floor Severity) bool {
	return floor != "" && severityRank(s) < severityRank(floor)
}

// splitFloor separates the findings below the floor from the active ones.
func splitFloor(fs []*Finding, floor Severity) (active, below []*Finding) {
	if floor == "" {
		return fs, nil
	}
	active = fs[:0:0]
	for _, f := range fs {
		if BelowFloor(f.Severity, floor) {
			below = append(below, f)
		} else {
			active = append(active, f)
		}
	}
	return active, below
}
