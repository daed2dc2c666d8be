// Package actionyml reads the action's metadata file (action.yml) so tests
// can hold it to its contract: every input mapped to the INPUT_ variable
// go-githubactions reads, every output taken from a step. It is used by
// tests only; the action itself never reads action.yml.
package actionyml

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// Input is one entry of action.yml's inputs.
type Input struct {
	// Name is the input's key, e.g. "github-token".
	Name string
	// Description is the input's documentation.
	Description string `yaml:"description"`
	// Default is the default value; nil when action.yml gives none.
	Default *string `yaml:"default"`
	// Required is the input's required flag.
	Required bool `yaml:"required"`
}

// Output is one entry of action.yml's outputs.
type Output struct {
	// Name is the output's key, e.g. "verdict".
	Name string
	// Description is the output's documentation.
	Description string `yaml:"description"`
	// Value is the expression the output is taken from.
	Value string `yaml:"value"`
}

// Step is one step of a composite action.
type Step struct {
	// ID names the step for steps.<id> expressions.
	ID string `yaml:"id"`
	// Name is the step's display name.
	Name string `yaml:"name"`
	// If is the step's condition.
	If string `yaml:"if"`
	// Uses is the action the step runs, for a uses step.
	Uses string `yaml:"uses"`
	// Shell is the shell of a run step.
	Shell string `yaml:"shell"`
	// Run is the script of a run step.
	Run string `yaml:"run"`
	// Env is the step's environment.
	Env map[string]string `yaml:"env"`
	// With is a uses step's inputs.
	With map[string]string `yaml:"with"`
}

// Action is the parsed action.yml.
type Action struct {
	// Name, Description and Author are shown on the Marketplace.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	// Branding is the Marketplace icon and color.
	Branding struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	// Inputs and Outputs are sorted by name.
	Inputs  []Input  `yaml:"-"`
	Outputs []Output `yaml:"-"`
	// Runs says how the action runs; a composite action lists Steps.
	Runs struct {
		Using string `yaml:"using"`
		Steps []Step `yaml:"steps"`
	} `yaml:"runs"`
}

// Load parses the action metadata file at path.
func Load(path string) (*Action, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Action
	if err := yaml.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	var raw struct {
		Inputs  map[string]Input  `yaml:"inputs"`
		Outputs map[string]Output `yaml:"outputs"`
	}
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	for name, in := range raw.Inputs {
		in.Name = name
		a.Inputs = append(a.Inputs, in)
	}
	slices.SortFunc(a.Inputs, func(x, y Input) int { return strings.Compare(x.Name, y.Name) })
	for name, out := range raw.Outputs {
		out.Name = name
		a.Outputs = append(a.Outputs, out)
	}
	slices.SortFunc(a.Outputs, func(x, y Output) int { return strings.Compare(x.Name, y.Name) })
	return &a, nil
}

// Root returns the repository root: the nearest directory at or above dir
// that holds go.mod.
func Root(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		d = parent
	}
}

// Inputs returns the inputs declared in the action metadata file at path,
// sorted by name.
func Inputs(path string) ([]Input, error) {
	a, err := Load(path)
	if err != nil {
		return nil, err
	}
	return a.Inputs, nil
}

// RepoInputs returns the inputs of the repository's own action.yml, found
// from dir upward (Root).
func RepoInputs(dir string) ([]Input, error) {
	root, err := Root(dir)
	if err != nil {
		return nil, err
	}
	return Inputs(filepath.Join(root, "action.yml"))
}

// EnvName is the environment variable go-githubactions' GetInput reads for
// an input: "INPUT_" and the name upper-cased with spaces replaced by
// underscores (dashes are kept: INPUT_GITHUB-TOKEN).
func EnvName(input string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(input, " ", "_"))
}

// Step returns the step with the given id, or nil.
func (a *Action) Step(id string) *Step {
	for i := range a.Runs.Steps {
		if a.Runs.Steps[i].ID == id {
			return &a.Runs.Steps[i]
		}
	}
	return nil
}
