// Package builtin assembles the registry of every engine review-loop knows:
// the Go adapters and the declarative definitions, built-in and the
// repository's own.
package builtin

import (
	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/engines/copilot"
	"github.com/review-loop/review-loop/engines/declarative"
)

// Options configure the built-in engines.
type Options struct {
	Claude claude.Options
	// Definitions are the repository's own engine definitions
	// (declarative.ParseDefinitions of .github/review-loop.yml); one with a
	// built-in name replaces the built-in engine.
	Definitions []declarative.Definition
}

// Registry returns a registry of every known engine.
func Registry(opts Options) (*engines.Registry, error) {
	defs, err := declarative.Builtin()
	if err != nil {
		return nil, err
	}
	decl, err := declarative.Engines(append(defs, opts.Definitions...))
	if err != nil {
		return nil, err
	}
	all := append([]engines.Engine{bugbot.New(), copilot.New(), claude.New(opts.Claude)}, decl...)
	return engines.NewRegistry(all...), nil
}
