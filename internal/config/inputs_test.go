package config

import (
	"os"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/actionyml"
)

// TestLoadConfig_readsEveryInputOfActionYML checks the contract between
// action.yml and Load: every declared input is read, and Load
// reads no input action.yml does not declare. (actionyml's own tests check
// that each input is mapped to its INPUT_ variable.)
func TestLoadConfig_readsEveryInputOfActionYML(t *testing.T) {
	t.Parallel()
	wd, _ := os.Getwd()
	inputs, err := actionyml.RepoInputs(wd)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, in := range inputs {
		declared = append(declared, in.Name)
	}
	read := map[string]bool{}
	getenv := func(k string) string {
		read[k] = true
		return baseEnv()[k]
	}
	if _, err := Load(getenv); err != nil {
		t.Fatal(err)
	}
	for _, name := range declared {
		if !read[actionyml.EnvName(name)] {
			t.Errorf("action.yml declares input %q but Load never reads %s", name, actionyml.EnvName(name))
		}
	}
	for _, name := range InputNames() {
		if !slices.Contains(declared, name) {
			t.Errorf("Load reads input %q, which action.yml does not declare", name)
		}
	}
}
