package config

import (
	"math"
	"reflect"
	"testing"

	"github.com/review-loop/review-loop/engines/builtin"
)

func TestRule_CI1_ciWorkflowsInput(t *testing.T) {
	t.Parallel()
	got, err := ciWorkflowFiles([]string{"ci.yml", ".github/workflows/test.yaml", "ci.yml"})
	if err != nil || !reflect.DeepEqual(got, []string{"ci.yml", "test.yaml"}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"ci", "dir/ci.yml", ".yml", "ci.json"} {
		if _, err := ciWorkflowFiles([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRule_CL1_pricesFromTheRepositoryConfig(t *testing.T) {
	t.Parallel()
	p, err := parsePrices([]byte("prices:\n  bugbot: 0.50\n  coderabbit: 0.0\n  actions_minute: 0.008\n"))
	if err != nil || p.Review["bugbot"] != 0.5 || p.ActionsMinute != 0.008 {
		t.Errorf("prices %+v, %v", p, err)
	}
	if _, ok := p.Review["coderabbit"]; !ok {
		t.Error("a zero price must count as configured")
	}
	for _, bad := range []string{"prices:\n  bugbot: -1\n", "prices:\n  bugbot: .nan\n", "prices:\n  bugbot: cheap\n", "prices: [1]\n"} {
		if _, err := parsePrices([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	reg, _ := builtin.Registry(builtin.Options{})
	p2, _ := parsePrices([]byte("prices:\n  bugbott: 1\n"))
	if err := CheckPriceEngines(p2, reg); err == nil {
		t.Error("an unknown engine's price was accepted")
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte("prices:\n  bugbot: 0.50\n  coderabbit: 0.0\n  actions_minute: 0.008\n"))
	f.Add([]byte("prices: {bugbot: 0.50, copilot: 1}\n"))
	f.Add([]byte("engines:\n  - name: x\nprices:\n"))
	f.Add([]byte("prices: 3\n"))
	f.Add([]byte("prices: {bugbot: .nan, copilot: .inf}\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := parsePrices(raw)
		if err != nil {
			return
		}
		if p.ActionsMinute < 0 {
			t.Errorf("negative minute price %v accepted", p.ActionsMinute)
		}
		for k, v := range p.Review {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || k == "actions_minute" {
				t.Errorf("price %s = %v accepted", k, v)
			}
		}
	})
}
