package declarative

import "testing"

// C1: every cycle builds the engine registry; the embedded definitions
// are parsed once per process and their expressions compiled once, so a
// cycle's Builtin is one copy and its engines cost a few allocations
// each, not a YAML parse and a dozen regular-expression compilations.
func TestRule_C1_TheBuiltinDefinitionsAreParsedAndCompiledOnce(t *testing.T) {
	defs, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Engines(defs); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { _, _ = Builtin() }); a > 2 {
		t.Errorf("Builtin() makes %.0f allocations a call, want ≤ 2: it parses the definitions again", a)
	}
	a := testing.AllocsPerRun(10, func() { _, _ = Engines(defs) })
	t.Logf("Engines: %.0f allocations for %d definitions", a, len(defs))
	if per := a / float64(len(defs)); per > 100 {
		t.Errorf("Engines makes %.0f allocations per definition, want ≤ 100: the expressions are compiled again", per)
	}
}
