package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/judge"
)

// Helper sub-commands: the scripted fixer and judge of a scenario run as
// real child processes of the action, exactly as a user's fixer-command
// and judge-command do.
const (
	helperFixer = "__scenario-fixer"
	helperJudge = "__scenario-judge"
)

// Helper runs this program as a scenario helper when args name one and
// reports whether it did; main (and TestMain) call it first.
func Helper(args []string, stdout io.Writer) (ran bool, err error) {
	if len(args) < 1 {
		return false, nil
	}
	switch args[0] {
	case helperFixer:
		if len(args) != 2 {
			return true, errors.New("usage: " + helperFixer + " CALLBACK-URL")
		}
		return true, runFixer(args[1], stdout)
	case helperJudge:
		mode := ""
		if len(args) > 1 {
			mode = args[1]
		}
		return true, runJudge(mode, stdout)
	case helperAgent:
		return true, runAgent(args[1:], stdout)
	}
	return false, nil
}

// runFixer reads REVIEW_LOOP_FINDINGS and asks the scenario (over the
// loopback callback) to apply each finding's scripted fix in the current
// directory; it prints the fixer protocol's JSON reply as its last line.
func runFixer(callback string, stdout io.Writer) error {
	input := os.Getenv("REVIEW_LOOP_FINDINGS")
	if input == "" {
		return errors.New("REVIEW_LOOP_FINDINGS is not set")
	}
	reply, err := callScenario(callback, input, "scenario fixer")
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "scripted fixer applied the scenario's fixes")
	_, err = fmt.Fprintln(stdout, strings.TrimSpace(string(reply)))
	return err
}

// callScenario asks the scenario, over its loopback callback, to apply the
// scripted fixes of the findings in input to the current directory, and
// returns the fixer reply it answers; who names the caller in errors.
func callScenario(callback, input, who string) ([]byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]string{"Input": input, "Dir": dir})
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Post(callback, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("calling the scenario back: %w", err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", who, strings.TrimSpace(string(reply)))
	}
	return reply, nil
}

// runJudge reads REVIEW_LOOP_JUDGE_INPUT and answers a scripted verdict:
// "always-clean", or "clean-unless-findings" (BLOCKING when any inline
// finding or any verdict body that does not say "No issues found").
func runJudge(mode string, stdout io.Writer) error {
	b, err := os.ReadFile(os.Getenv(judge.InputEnv))
	if err != nil {
		return fmt.Errorf("reading the judge input: %w", err)
	}
	enc, err := scriptedVerdict(mode, b)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, string(enc))
	return err
}

// scriptedVerdict is the scripted judge's verdict on the judge material b.
func scriptedVerdict(mode string, b []byte) ([]byte, error) {
	var in struct {
		Verdicts []struct {
			Body string `json:"body"`
		} `json:"verdicts"`
		Findings []struct {
			Title string `json:"title"`
			Body  string `json:"body"`
			Path  string `json:"path"`
			Line  int    `json:"line"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("parsing the judge input: %w", err)
	}
	type item struct {
		Summary string `json:"summary"`
		Path    string `json:"path,omitempty"`
		Line    int    `json:"line,omitempty"`
	}
	out := struct {
		Verdict string `json:"verdict"`
		Items   []item `json:"items"`
		Reason  string `json:"reason"`
	}{Verdict: "CLEAN", Items: []item{}, Reason: "scripted judge: " + mode}
	if mode != "always-clean" {
		for _, f := range in.Findings {
			s := f.Title
			if s == "" {
				s = firstLine(f.Body)
			}
			out.Items = append(out.Items, item{Summary: s, Path: f.Path, Line: f.Line})
		}
		if len(out.Items) > 0 {
			out.Verdict = "BLOCKING"
		}
	}
	return json.Marshal(out)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
