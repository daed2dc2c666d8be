// Command genhelp writes the inputs table of `review-loop --help` from
// action.yml (run by go generate in internal/cli).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/review-loop/review-loop/internal/actionyml"
)

func main() {
	out := flag.String("o", "help_inputs.txt", "file to write")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "genhelp:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := actionyml.Root(wd)
	if err != nil {
		return err
	}
	inputs, err := actionyml.Inputs(filepath.Join(root, "action.yml"))
	if err != nil {
		return fmt.Errorf("reading action.yml: %w", err)
	}
	return os.WriteFile(out, []byte(actionyml.HelpText(inputs)), 0o644)
}
