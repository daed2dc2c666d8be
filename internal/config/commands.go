package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/fix"
)

// This file checks the command inputs (test, lint, setup, fixer) at
// load: their placeholders and their argv.

// testPlaceholders are the placeholders fix.ExpandPlaceholders replaces;
// only test-command is expanded.
var testPlaceholders = []string{"{files}", "{dirs}", "{packages}"}

var placeholderRE = regexp.MustCompile(`\{[A-Za-z_-]+\}`)

// checkCommands splits every command input the way the cycle will, and
// checks its placeholders, so a command that cannot run is an input error
// before the first request rather than at the first fix cycle (C2).
func checkCommands(c Config) []error {
	var errs []error
	for _, in := range []struct{ name, value string }{
		{"setup-command", c.SetupCommand},
		{"test-command", c.TestCommand},
		{"lint-command", c.LintCommand},
		{"regression-command", c.RegressionCommand},
		{"fixer-command", c.FixerCommand},
		{"judge-command", c.JudgeCommand},
	} {
		if strings.TrimSpace(in.value) == "" {
			continue
		}
		argv, err := fix.SplitCommand(in.value)
		if err != nil {
			errs = append(errs, fmt.Errorf("input %s: %w", in.name, err))
			continue
		}
		for _, a := range argv {
			for _, p := range placeholderRE.FindAllString(a, -1) {
				switch {
				case in.name == "test-command" && slices.Contains(testPlaceholders, p):
				case slices.Contains(testPlaceholders, p):
					errs = append(errs, fmt.Errorf("input %s: %s is expanded only in test-command; here it would stay literal", in.name, p))
				default:
					hint := ""
					if s := didYouMean(p, testPlaceholders); s != "" {
						hint = "did you mean " + s + "? "
					}
					errs = append(errs, fmt.Errorf("input %s: unknown placeholder %s (%sknown in test-command: %s)", in.name, p, hint, strings.Join(testPlaceholders, ", ")))
				}
			}
		}
	}
	return errs
}
