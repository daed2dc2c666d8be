package report

import "testing"

// TestWhy_ASentenceThatEndsWithTheRulesItCites: a decision's why reads as
// a sentence, the rule ids at its end — plain on a terminal, each a link
// to its entry of docs/rules.md in markdown.
func TestWhy_ASentenceThatEndsWithTheRulesItCites(t *testing.T) {
	t.Parallel()
	const rules = "https://example.test/rules.md"
	for _, tc := range []struct{ why, text, md string }{
		{"W1(d): waiting for bugbot, claude to finish reviewing the head (T4: no fix while any engine is TRIGGERED or RUNNING)",
			"Waiting for bugbot, claude to finish reviewing the head: no fix while any engine is TRIGGERED or RUNNING (W1(d), T4).",
			"Waiting for bugbot, claude to finish reviewing the head: no fix while any engine is TRIGGERED or RUNNING ([W1(d)](" + rules + "#w1), [T4](" + rules + "#t4))."},
		{"T1/T2: asking copilot to review the head; a cycle that triggers does nothing else",
			"Asking copilot to review the head; a cycle that triggers does nothing else (T1, T2).",
			"Asking copilot to review the head; a cycle that triggers does nothing else ([T1](" + rules + "#t1), [T2](" + rules + "#t2))."},
		{"W1(g): every engine is DONE with zero active findings (S3)",
			"Every engine is DONE with zero active findings (W1(g), S3).",
			"Every engine is DONE with zero active findings ([W1(g)](" + rules + "#w1), [S3](" + rules + "#s3))."},
		{"the loop for this PR ended (clean); `@review-loop start` restarts it (H8)",
			"The loop for this PR ended (clean); `@review-loop start` restarts it (H8).",
			"The loop for this PR ended (clean); \\`@\u200breview-loop start\\` restarts it ([H8](" + rules + "#h8))."},
		{"no engine selected", "No engine selected.", "No engine selected."},
		{"B3: idle since 09:15 UTC, 45m0s without progress", "Idle since 09:15 UTC, 45m0s without progress (B3).",
			"Idle since 09:15 UTC, 45m0s without progress ([B3](" + rules + "#b3))."},
	} {
		if got := WhySentence(tc.why); got != tc.text {
			t.Errorf("WhySentence(%q)\n = %q\nwant %q", tc.why, got, tc.text)
		}
		if got := WhyMarkdown(tc.why, rules, 0); got != tc.md {
			t.Errorf("WhyMarkdown(%q)\n = %q\nwant %q", tc.why, got, tc.md)
		}
	}
	if got := WhySentence("W1(d): waiting for evil\x1b[31m<b>"); got != "Waiting for evil[31m<b> (W1(d))." {
		t.Errorf("control characters survive: %q", got)
	}
	if got := WhyMarkdown("W1(d): waiting for <b>[x](y)</b>", rules, 0); got != "Waiting for &lt;b&gt;\\[x\\](y)&lt;/b&gt; ([W1(d)]("+rules+"#w1))." {
		t.Errorf("markdown is not escaped: %q", got)
	}
}

// FuzzWhy: any why renders without a panic as one line.
func FuzzWhy(f *testing.F) {
	for _, s := range []string{"W1(d): a (T4: b)", "T1/T2: x", "(S3)", "((W1: (x)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, why string) {
		for _, s := range []string{WhySentence(why), WhyMarkdown(why, "https://x.test/r.md", 300)} {
			for _, r := range s {
				if r == '\n' || r == '\r' {
					t.Fatalf("%q renders over two lines: %q", why, s)
				}
			}
		}
	})
}
