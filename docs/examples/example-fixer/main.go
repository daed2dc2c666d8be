// Command example-fixer is a runnable example of the fixer protocol
// (docs/fixer-protocol.md). It changes no file: a finding whose line is
// gone from the file is answered OUTDATED, every other one DISAGREED with
// a reply. Use it as `fixer: command` and `fixer-command: example-fixer`
// to see the replies a fixer posts, or as the skeleton of your own fixer.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// input is the findings file named by REVIEW_LOOP_FINDINGS.
type input struct {
	Findings []struct {
		ID     string `json:"id"`
		Engine string `json:"engine"`
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Title  string `json:"title"`
	} `json:"findings"`
}

type entry struct {
	ID    string `json:"id"`
	Reply string `json:"reply"`
}

// reply is the one JSON object printed as the last line of stdout.
type reply struct {
	Fixed     []string `json:"fixed"`
	Outdated  []entry  `json:"outdated"`
	Disagreed []entry  `json:"disagreed"`
	Error     *string  `json:"error"`
}

func main() {
	r := run(os.Getenv("REVIEW_LOOP_FINDINGS"))
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

func run(path string) reply {
	r := reply{Fixed: []string{}, Outdated: []entry{}, Disagreed: []entry{}}
	data, err := os.ReadFile(path)
	if err != nil {
		msg := "reading REVIEW_LOOP_FINDINGS: " + err.Error()
		r.Error = &msg
		return r
	}
	var in input
	if err := json.Unmarshal(data, &in); err != nil {
		msg := "the findings file is not JSON: " + err.Error()
		r.Error = &msg
		return r
	}
	for _, f := range in.Findings {
		// Progress goes to stderr; only the reply is the last stdout line.
		fmt.Fprintf(os.Stderr, "%s %s:%d %s\n", f.ID, f.Path, f.Line, f.Title)
		if n, ok := lines(f.Path); !ok || f.Line > n {
			r.Outdated = append(r.Outdated, entry{ID: f.ID, Reply: fmt.Sprintf("Outdated: %s no longer has line %d; no change made.", f.Path, f.Line)})
			continue
		}
		r.Disagreed = append(r.Disagreed, entry{ID: f.ID, Reply: "Not changed: this example fixer only answers; " + strings.TrimSpace(f.Title) + " is left for a person."})
	}
	return r
}

// lines counts the lines of a checkout file; false when it is absent or
// its path leaves the checkout.
func lines(p string) (int, bool) {
	clean := filepath.Clean(p)
	if p == "" || filepath.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return 0, false
	}
	data, err := os.ReadFile(clean)
	if err != nil {
		return 0, false
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for sc.Scan() {
		n++
	}
	return n, true
}
