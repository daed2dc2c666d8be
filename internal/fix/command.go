package fix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
)

// FindingsEnv names the environment variable holding the path of the
// fixer's input file.
const FindingsEnv = "REVIEW_LOOP_FINDINGS"

// FixerInput is the JSON file the fixer command reads: the only way
// review text reaches it.
type FixerInput struct {
	Findings []FixerFinding `json:"findings"`
	// ContextFiles are checkout-relative paths matched by context-files (IN4).
	ContextFiles []string `json:"context_files"`
	// Directions are approved fix directions by finding id.
	Directions map[string]string `json:"directions"`
	// Reply says what the fixer must print as its last line.
	Reply string `json:"reply_format"`
}

// FixerFinding is one finding as the fixer sees it.
type FixerFinding struct {
	ID        string   `json:"id"`
	Engine    string   `json:"engine"`
	CommentID int64    `json:"comment_id"`
	Path      string   `json:"path"`
	Line      int      `json:"line,omitempty"`
	StartLine int      `json:"start_line,omitempty"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Severity  string   `json:"severity,omitempty"`
	Locations []string `json:"locations,omitempty"`
	Direction string   `json:"direction,omitempty"`
}

// FixerReply is the one JSON object the fixer prints as its last line.
type FixerReply struct {
	Fixed     []string     `json:"fixed"`
	Outdated  []ReplyEntry `json:"outdated"`
	Disagreed []ReplyEntry `json:"disagreed"`
	Error     *string      `json:"error"`
}

// ReplyEntry is a finding the fixer did not change, with the reply to post.
type ReplyEntry struct {
	ID    string `json:"id"`
	Reply string `json:"reply"`
}

const replyFormat = `last stdout line: {"fixed":[ids],"outdated":[{"id":..,"reply":..}],"disagreed":[{"id":..,"reply":..}],"error":null}`

// ParseFixerReply reads the last non-empty line of the fixer's stdout.
func ParseFixerReply(stdout []byte) (FixerReply, error) {
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return FixerReply{}, errors.New("the fixer printed no JSON reply")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(last), &raw); err != nil {
		return FixerReply{}, fmt.Errorf("the fixer's last line is not a JSON object: %w", err)
	}
	if _, ok := raw["fixed"]; !ok {
		return FixerReply{}, errors.New(`the fixer's reply has no "fixed" list`)
	}
	var r FixerReply
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return FixerReply{}, fmt.Errorf("the fixer's reply is malformed: %w", err)
	}
	return r, nil
}

// command is the fixer-command provider: one run with every finding, then
// a check that it only edited the files of the findings it claims, then a
// targeted test per fixed finding.
func (c *cycle) command(ctx context.Context, findings []loop.Finding) error {
	cfg := c.p.cfg
	if len(cfg.FixerCommand) == 0 {
		return errors.New("fix provider command: no fixer command configured")
	}
	return c.runFixer(ctx, findings, func(ctx context.Context, _, _ string, env []string) (FixerReply, error) {
		stdout, err := runProcess(ctx, "fixer", cfg.Dir, cfg.FixerCommand, env, cfg.FixerTimeout)
		if err != nil {
			return FixerReply{}, fmt.Errorf("fixer failed; the cycle's edits are reverted: %w", err)
		}
		reply, err := ParseFixerReply(stdout)
		if err != nil {
			return FixerReply{}, fmt.Errorf("fixer reply: %w; the cycle's edits are reverted", err)
		}
		return reply, nil
	})
}

// fixerRun runs one fixer on the findings file at inputPath (in dir tmp)
// with env and returns its reply.
type fixerRun func(ctx context.Context, tmp, inputPath string, env []string) (FixerReply, error)

// runFixer writes the findings file, runs the fixer and folds its reply
// per finding: the same contract for the fixer command and the agents.
func (c *cycle) runFixer(ctx context.Context, findings []loop.Finding, run fixerRun) error {
	cfg := c.p.cfg
	ctxFiles, err := ResolveContextFiles(cfg.Dir, cfg.ContextFiles)
	if err != nil {
		return err
	}
	in := FixerInput{ContextFiles: ctxFiles, Directions: map[string]string{}, Reply: replyFormat}
	byID := map[string]loop.Finding{}
	for _, f := range findings {
		byID[f.ID] = f
		d := strings.TrimSpace(c.directions[f.ID])
		if d != "" {
			in.Directions[f.ID] = d
		}
		in.Findings = append(in.Findings, FixerFinding{ID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Path: f.Path, Line: f.Line, StartLine: f.StartLine,
			Title: f.Title, Body: f.Body, Severity: string(f.Severity), Locations: f.Locations, Direction: d})
	}
	tmp, err := os.MkdirTemp("", "review-loop-fixer-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	inputPath := filepath.Join(tmp, "findings.json")
	data, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(inputPath, data, 0o600); err != nil {
		return err
	}
	env := append(slices.Clone(cfg.Env), FindingsEnv+"="+inputPath)
	reply, err := run(ctx, tmp, inputPath, env)
	if err != nil {
		return err
	}
	if reply.Error != nil {
		return fmt.Errorf("the fixer reported an error: %s; the cycle's edits are reverted", *reply.Error)
	}
	seen := map[string]bool{}
	for _, id := range slices.Concat(reply.Fixed, ids(reply.Outdated), ids(reply.Disagreed)) {
		if _, ok := byID[id]; !ok {
			return fmt.Errorf("the fixer reported on unknown finding %q; the cycle's edits are reverted", id)
		}
		if seen[id] {
			return fmt.Errorf("the fixer reported finding %q twice; the cycle's edits are reverted", id)
		}
		seen[id] = true
	}
	changed, err := cfg.Git.ChangedFiles(ctx)
	if err != nil {
		return err
	}
	allowed := map[string]bool{}
	for _, id := range reply.Fixed {
		for _, p := range files(byID[id]) {
			allowed[p] = true
		}
	}
	var outside []string
	for _, p := range changed {
		if !allowed[p] {
			outside = append(outside, p)
		}
	}
	if len(outside) > 0 {
		return fmt.Errorf("the fixer edited files outside the findings it claims fixed: %s; the cycle's edits are reverted", strings.Join(outside, ", "))
	}
	for _, p := range changed {
		if info, err := os.Lstat(filepath.Join(cfg.Dir, filepath.FromSlash(p))); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("the fixer made %s a symlink; review-loop never commits one (TB5); the cycle's edits are reverted", p)
		}
	}

	// The fixer's content of every file it changed, before any command
	// runs: the commit holds this and nothing a command wrote (TB9).
	for _, p := range changed {
		if err := c.keep(p); err != nil {
			return err
		}
	}

	results := map[string]Result{}
	for _, e := range reply.Outdated {
		results[e.ID] = Result{ID: e.ID, Outcome: OutcomeOutdated, Reason: "the fixer found it no longer applies", Reply: replyOr(e.Reply, "Outdated: the code this comment targets has changed; no change made.")}
	}
	for _, e := range reply.Disagreed {
		if strings.TrimSpace(e.Reply) == "" {
			return fmt.Errorf("the fixer disagreed with %q without a reply; the cycle's edits are reverted", e.ID)
		}
		results[e.ID] = Result{ID: e.ID, Outcome: OutcomeDisagreed, Reason: "the fixer disagrees", Reply: strings.TrimSpace(e.Reply)}
	}
	reverted := map[string]bool{}
	for _, f := range findings {
		if !slices.Contains(reply.Fixed, f.ID) {
			continue
		}
		touched := intersect(files(f), changed)
		if len(touched) == 0 {
			results[f.ID] = Result{ID: f.ID, Outcome: OutcomeFailed, Reason: "the fixer claimed it fixed but changed none of its files"}
			continue
		}
		if slices.ContainsFunc(touched, func(p string) bool { return reverted[p] }) {
			results[f.ID] = Result{ID: f.ID, Outcome: OutcomeReverted, Reason: "shares a file with a reverted finding", Files: touched}
			continue
		}
		var refused []string
		for _, p := range touched {
			if why := refusalFor(p, f.Path); why != "" {
				refused = append(refused, p+": "+why)
				c.res.Reverted = append(c.res.Reverted, Revert{Path: p, Why: why})
			}
		}
		if len(refused) > 0 {
			if err := cfg.Git.RestoreFiles(ctx, touched); err != nil {
				return fmt.Errorf("%s: reverting: %w", f.ID, err)
			}
			for _, p := range touched {
				reverted[p] = true
			}
			results[f.ID] = Result{ID: f.ID, Outcome: OutcomeReverted, Reason: "not committed: " + strings.Join(refused, "; "), Files: touched}
			continue
		}
		if terr := c.test(ctx, f.ID, touched); terr != nil {
			var se *setupError
			if errors.As(terr, &se) {
				return se.error
			}
			if err := cfg.Git.RestoreFiles(ctx, touched); err != nil {
				return fmt.Errorf("%s: reverting: %w", f.ID, err)
			}
			for _, p := range touched {
				reverted[p] = true
			}
			results[f.ID] = Result{ID: f.ID, Outcome: OutcomeReverted, Reason: testFailure(terr), Files: touched}
			continue
		}
		results[f.ID] = Result{ID: f.ID, Outcome: OutcomeFixed, Reason: "fixed by the fixer command", Files: touched}
	}
	// A finding kept earlier whose file a later revert restored is no
	// longer fixed.
	for id, r := range results {
		if r.Outcome == OutcomeFixed && slices.ContainsFunc(r.Files, func(p string) bool { return reverted[p] }) {
			r.Outcome, r.Reason = OutcomeReverted, "shares a file with a reverted finding"
			results[id] = r
		}
	}
	for _, f := range findings {
		r, ok := results[f.ID]
		if !ok {
			r = Result{ID: f.ID, Outcome: OutcomeFailed, Reason: "the fixer did not report on it"}
		}
		c.add(r)
	}
	return nil
}

func ids(es []ReplyEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func replyOr(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
