// Command test-summary reads `go test -json` on standard input and prints
// what a plain `go test` run prints — each package's ok/FAIL line, the
// output of failing tests, build errors — then one line saying how many
// tests were skipped and why, grouped by reason, and the ten slowest
// tests. scripts/test pipes the test run through it, so a run that skips
// anything says so and the tests that make the suite slow are named.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
	Elapsed    float64
}

// slowest is how many of the slowest tests the summary lists.
const slowest = 10

// fileLine is the "file_test.go:12: " prefix t.Log and t.Skip put first.
var fileLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test-summary:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// summarize copies the run's essential output from r to w and appends the
// skip summary; it reports whether any test, package or build failed.
func summarize(r io.Reader, w io.Writer) (bool, error) {
	type key struct{ pkg, test string }
	buf := map[key][]string{}
	reasons := map[string]int{}
	skipped, failed := 0, false
	type timing struct {
		pkg, test string
		secs      float64
	}
	var times []timing
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not test2json (a message of go itself): pass it on.
			fmt.Fprintln(w, string(line))
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
		case "output":
			if e.Test == "" {
				if o := e.Output; o != "PASS\n" && !strings.HasPrefix(o, "=== ") {
					fmt.Fprint(w, o)
				}
				continue
			}
			if !strings.HasPrefix(e.Output, "=== ") {
				buf[k] = append(buf[k], e.Output)
			}
		case "fail":
			failed = true
			if e.Test != "" {
				fmt.Fprint(w, strings.Join(buf[k], ""))
			}
			delete(buf, k)
		case "skip":
			if e.Test != "" {
				skipped++
				reasons[skipReason(buf[k])]++
			}
			delete(buf, k)
		case "pass":
			delete(buf, k)
		}
		// Top-level tests only: a subtest's time is inside its parent's.
		if (e.Action == "pass" || e.Action == "fail") && e.Test != "" && !strings.Contains(e.Test, "/") {
			times = append(times, timing{e.Package, e.Test, e.Elapsed})
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	if skipped > 0 {
		keys := make([]string, 0, len(reasons))
		for reason := range reasons {
			keys = append(keys, reason)
		}
		sort.Slice(keys, func(i, j int) bool {
			if reasons[keys[i]] != reasons[keys[j]] {
				return reasons[keys[i]] > reasons[keys[j]]
			}
			return keys[i] < keys[j]
		})
		parts := make([]string, len(keys))
		for i, reason := range keys {
			parts[i] = fmt.Sprintf("%d× %s", reasons[reason], reason)
		}
		fmt.Fprintf(w, "skipped: %d tests (%s)\n", skipped, strings.Join(parts, "; "))
	} else {
		fmt.Fprintln(w, "skipped: none")
	}
	sort.SliceStable(times, func(i, j int) bool { return times[i].secs > times[j].secs })
	if len(times) > slowest {
		times = times[:slowest]
	}
	if len(times) > 0 {
		fmt.Fprintf(w, "slowest %d tests:\n", len(times))
		for _, t := range times {
			fmt.Fprintf(w, "  %7.2fs  %s %s\n", t.secs, t.test, strings.TrimPrefix(t.pkg, "github.com/review-loop/review-loop/"))
		}
	}
	return failed, nil
}

// skipReason is the message a skipped test logged last before its
// "--- SKIP" line, without its file:line prefix, cut to one short line.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		l := strings.TrimSpace(out[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		l = strings.TrimSpace(fileLine.ReplaceAllString(out[i], ""))
		if r := []rune(l); len(r) > 100 {
			l = string(r[:99]) + "…"
		}
		return l
	}
	return "no reason given"
}
