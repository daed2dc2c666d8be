package engines

import (
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
)

// Registry holds the engines known to one run. It is built at start-up and
// passed down; there is no global registry.
type Registry struct {
	byName map[string]Engine
}

// NewRegistry builds a registry from engines; a later engine with the same
// name replaces an earlier one, so a repository definition can override a
// built-in one.
func NewRegistry(engines ...Engine) *Registry {
	r := &Registry{byName: make(map[string]Engine, len(engines))}
	for _, e := range engines {
		r.byName[strings.ToLower(e.Name())] = e
	}
	return r
}

// Lookup returns the engine of that name (case-insensitive).
func (r *Registry) Lookup(name string) (Engine, bool) {
	e, ok := r.byName[strings.ToLower(strings.TrimSpace(name))]
	return e, ok
}

// Names returns the known engine names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Default returns the default engine set (IN2): every known engine that is
// installed. An engine that reports itself not installed drops out with a
// notice saying why and how to select it explicitly. obs may be nil.
func (r *Registry) Default(obs *github.Observation, env Env) (names, notices []string) {
	for _, n := range r.Names() {
		e := r.byName[n]
		if in, ok := e.(Installer); ok {
			if installed, reason := in.Installed(obs, env); !installed {
				notices = append(notices, fmt.Sprintf("engine %s is not installed (%s): left out of the default set; name it in `engines` to attempt it anyway", n, reason))
				continue
			}
		}
		names = append(names, n)
	}
	return names, notices
}

// ParseNames parses a comma- or space-separated engine list such as
// "bugbot,copilot". Unknown names are an input error that lists the known
// ones (IN2). Duplicates are dropped; the result is sorted.
func (r *Registry) ParseNames(list string) ([]string, error) {
	fields := strings.FieldsFunc(list, func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\t' })
	var names, unknown []string
	for _, f := range fields {
		n := strings.ToLower(f)
		if _, ok := r.byName[n]; !ok {
			unknown = append(unknown, f)
			continue
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown engine(s) %s; known engines: %s", strings.Join(unknown, ", "), strings.Join(r.Names(), ", "))
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no engine named; known engines: %s", strings.Join(r.Names(), ", "))
	}
	slices.Sort(names)
	return names, nil
}
