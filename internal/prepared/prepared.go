// Package prepared is the hand-over between the two jobs of hardened mode
// (rule TB1): the prepare job, which holds a read token and no secret,
// observes, decides, runs the repository's commands and the fixer, and
// writes its decisions and the cycle's patch to a directory uploaded as
// an artifact; the publish job, which holds the write tokens and runs no
// repository code, reads that directory back and trusts nothing in it it
// has not checked: the patch may touch only the claimed files, never
// .github/workflows or .git, never through or as a symlink, and stays
// within size limits.
package prepared

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/secret"
)

// Version is the artifact format's version; Read refuses any other.
const Version = 1

// The artifact's files.
const (
	DecisionsFile = "decisions.json"
	PatchFile     = "changes.patch"
)

// Decisions are what the prepare job decided for one PR.
type Decisions struct {
	// Version is the format version (Version).
	Version int `json:"version"`
	// Repo is owner/name and PR the pull request number.
	Repo string `json:"repo"`
	PR   int    `json:"pr"`
	// HeadSHA is the PR head the prepare job observed and fixed.
	HeadSHA string `json:"head_sha"`
	// Action is the plan's action (loop.Action).
	Action string `json:"action"`
	// Judges are the judge verdicts the prepare job got, per engine.
	Judges map[string]loop.JudgeResult `json:"judges,omitempty"`
	// Fix is the fix cycle's outcome; nil when the plan is not a fix.
	Fix *Fix `json:"fix,omitempty"`
	// Effects are the kinds of the plan's effects (loop.Effect), in
	// order: the publish job plans its own and refuses to go on when they
	// differ.
	Effects []string `json:"effects"`
	// Fixer is the prepare job's fixer input: the publish job, which runs
	// none, says from it which findings are left for want of a fixer.
	// Only words on the status comment, never a decision.
	Fixer string `json:"fixer,omitempty"`
	// Seconds is how long the prepare job's cycle ran, for the cost
	// ledger (C5): the publish job counts the prepare job's minutes with
	// its own. Only an account, never a decision: bounded on reading.
	Seconds int64 `json:"seconds,omitempty"`
	// Withheld, when set, says the prepare job found a secret in what it
	// was to hand over (TB14) and handed over nothing else of the cycle:
	// no judge verdicts, no fix, no patch. The publish job hands the PR
	// back naming the input and what held it.
	Withheld *Withheld `json:"withheld,omitempty"`
}

// Withheld is a hand-over the prepare job withheld because it held the
// secret of Input (TB14); What says which part held it.
type Withheld struct {
	Input string `json:"input"`
	What  string `json:"what"`
}

// The parts of a hand-over that can hold a secret, as Withheld.What
// names them: an allow-list, so the publish job repeats only these words.
const (
	WithheldJudges   = "the judge's verdicts"
	WithheldFix      = "the prepared fix"
	WithheldHandOver = "the prepared hand-over"
)

// Reason is the refusal as the PR's hand-back says it.
func (w *Withheld) Reason() string {
	return secret.Reason(w.Input, w.What+" of the prepare job")
}

// maxJobSeconds is the longest a GitHub-hosted job runs (6 hours).
const maxJobSeconds = 6 * 60 * 60

// PrepareTime is how long the prepare job's cycle ran, as it said,
// bounded to what a job can run: the figure the ledger counts (C5).
func (d *Decisions) PrepareTime() time.Duration {
	return time.Duration(min(max(d.Seconds, 0), maxJobSeconds)) * time.Second
}

// Fix is a prepared fix cycle.
type Fix struct {
	// Results are the per-finding outcomes, in triage order.
	Results []fix.Result `json:"results"`
	// Changed are the files the patch changes (the claimed files).
	Changed []string `json:"changed"`
	// Commit says there is something to commit.
	Commit bool `json:"commit"`
	// Err is the fix cycle's error, "" when it succeeded.
	Err string `json:"error,omitempty"`
	// Reverted are the changes the prepare job left out of the patch and
	// why (TB9); the publish job only reports them.
	Reverted []fix.Revert `json:"reverted,omitempty"`
	// Withheld names the input whose secret the prepare job found in the
	// fix's output (TB14): nothing of the fix is handed over, and the
	// publish job hands the PR back naming that input.
	Withheld string `json:"withheld,omitempty"`
}

// Limits bound what the publish job accepts.
type Limits struct {
	// MaxBytes bounds the patch and the decisions file.
	MaxBytes int
	// MaxFiles bounds the files one patch may change.
	MaxFiles int
}

// DefaultLimits are the limits the publish job applies.
var DefaultLimits = Limits{MaxBytes: 1 << 20, MaxFiles: 100}

// Write writes the decisions and the patch into dir, creating it. An
// artifact that would hold one of secrets in any form is not written
// (TB14): the error names the input, never the value.
func Write(dir string, d Decisions, patch []byte, secrets *secret.Set) error {
	d.Version = Version
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the decisions: %w", err)
	}
	if in := cmp.Or(secrets.Find(b), secrets.Find(patch)); in != "" {
		return &secret.Error{Input: in, Write: "the prepared artifact"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the artifact directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, DecisionsFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the decisions: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, PatchFile), patch, 0o644); err != nil {
		return fmt.Errorf("writing the patch: %w", err)
	}
	return nil
}

// WriteOrWithhold writes the hand-over (Write); when it holds a secret
// (TB14) it writes in its place a hand-over that says only that, naming
// the input and the part that held it (Withheld), and returns that.
func WriteOrWithhold(dir string, d Decisions, patch []byte, secrets *secret.Set) (*Withheld, error) {
	err := Write(dir, d, patch, secrets)
	var se *secret.Error
	if !errors.As(err, &se) {
		return nil, err
	}
	w := &Withheld{Input: se.Input, What: WithheldHandOver}
	if b, _ := json.Marshal(d.Judges); secrets.Find(b) != "" {
		w.What = WithheldJudges
	} else if b, _ := json.Marshal(d.Fix); secrets.Find(b) != "" || secrets.Find(patch) != "" {
		w.What = WithheldFix
	}
	marker := Decisions{Repo: d.Repo, PR: d.PR, HeadSHA: d.HeadSHA, Action: d.Action, Effects: d.Effects,
		Fixer: d.Fixer, Seconds: d.Seconds, Withheld: w}
	if err := Write(dir, marker, nil, secrets); err != nil {
		return nil, err
	}
	return w, nil
}

// Read reads and checks an artifact directory: both files regular and
// within the size limit, the decisions well-formed, and the patch valid
// for the files they claim (ValidatePatch).
func Read(dir string) (Decisions, []byte, error) {
	p := filepath.Join(dir, DecisionsFile)
	if _, err := readRegular(p); err != nil {
		return Decisions{}, nil, fmt.Errorf("reading the prepared decisions: %w", err)
	}
	d, err := decode(p)
	if err != nil {
		return Decisions{}, nil, err
	}
	if err := d.check(); err != nil {
		return Decisions{}, nil, fmt.Errorf("prepared decisions: %w", err)
	}
	patch, err := readRegular(filepath.Join(dir, PatchFile))
	if err != nil {
		return Decisions{}, nil, fmt.Errorf("reading the prepared patch: %w", err)
	}
	var claimed []string
	if d.Fix != nil {
		claimed = d.Fix.Changed
	} else if len(bytes.TrimSpace(patch)) > 0 {
		return Decisions{}, nil, errors.New("prepared patch: the decisions hold no fix but the patch is not empty")
	}
	if d.Fix != nil && d.Fix.Commit {
		if _, err := ValidatePatch(patch, claimed, DefaultLimits); err != nil {
			return Decisions{}, nil, fmt.Errorf("prepared patch: %w", err)
		}
	} else if len(bytes.TrimSpace(patch)) > 0 {
		return Decisions{}, nil, errors.New("prepared patch: nothing is to commit but the patch is not empty")
	}
	return d, patch, nil
}

// readRegular reads a regular file (never through a symlink) of at most
// DefaultLimits.MaxBytes.
func readRegular(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(p))
	}
	if fi.Size() > int64(DefaultLimits.MaxBytes) {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", filepath.Base(p), fi.Size(), DefaultLimits.MaxBytes)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(DefaultLimits.MaxBytes)+1))
}

func decode(p string) (Decisions, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return Decisions{}, fmt.Errorf("reading the prepared decisions: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Decisions
	if err := dec.Decode(&d); err != nil {
		return Decisions{}, fmt.Errorf("decoding the prepared decisions: %w", err)
	}
	return d, nil
}

// maxEffects bounds the effects of one prepared plan.
const maxEffects = 32

var (
	hexSHA   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	repoName = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	// inputName is an input's or a secret variable's name as a withheld
	// hand-over names it.
	inputName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
)

func (d Decisions) check() error {
	var errs []error
	if d.Version != Version {
		errs = append(errs, fmt.Errorf("format version %d, want %d", d.Version, Version))
	}
	if !repoName.MatchString(d.Repo) {
		errs = append(errs, fmt.Errorf("repo %q is not owner/name", d.Repo))
	}
	if d.PR <= 0 {
		errs = append(errs, fmt.Errorf("pr %d is not a pull request number", d.PR))
	}
	if !hexSHA.MatchString(d.HeadSHA) {
		errs = append(errs, fmt.Errorf("head %q is not a commit SHA", d.HeadSHA))
	}
	switch loop.Action(d.Action) {
	case loop.ActionTrigger, loop.ActionWait, loop.ActionFix, loop.ActionHandBack, loop.ActionNone:
	default:
		errs = append(errs, fmt.Errorf("unknown action %q", d.Action))
	}
	if len(d.Effects) > maxEffects {
		errs = append(errs, fmt.Errorf("%d effects, over the limit of %d", len(d.Effects), maxEffects))
	}
	for _, e := range d.Effects {
		if !slices.Contains(loop.EffectKinds, loop.EffectKind(e)) {
			errs = append(errs, fmt.Errorf("unknown effect %q", e))
		}
	}
	if w := d.Withheld; w != nil {
		if !inputName.MatchString(w.Input) || !slices.Contains([]string{WithheldJudges, WithheldFix, WithheldHandOver}, w.What) {
			errs = append(errs, fmt.Errorf("a withheld hand-over names %q and %q", report.Plain(w.Input, MaxText), report.Plain(w.What, MaxText)))
		}
		if d.Fix != nil || len(d.Judges) > 0 {
			errs = append(errs, errors.New("a withheld hand-over hands over a fix or judge verdicts"))
		}
	}
	if d.Fix != nil {
		if loop.Action(d.Action) != loop.ActionFix {
			errs = append(errs, fmt.Errorf("a fix is prepared for a %q plan", d.Action))
		}
		for _, r := range d.Fix.Results {
			switch r.Outcome {
			case fix.OutcomeFixed, fix.OutcomeOutdated, fix.OutcomeDisagreed, fix.OutcomeReverted, fix.OutcomeFailed:
			default:
				errs = append(errs, fmt.Errorf("finding %q: unknown outcome %q", r.ID, r.Outcome))
			}
			if r.ID == "" {
				errs = append(errs, errors.New("a result names no finding"))
			}
		}
		if len(d.Fix.Changed) > DefaultLimits.MaxFiles {
			errs = append(errs, fmt.Errorf("%d changed files, over the limit of %d", len(d.Fix.Changed), DefaultLimits.MaxFiles))
		}
		for _, p := range d.Fix.Changed {
			if err := CheckPath(p); err != nil {
				errs = append(errs, err)
			}
		}
		if w := d.Fix.Withheld; w != "" && (!inputName.MatchString(w) || d.Fix.Commit || len(d.Fix.Changed) > 0) {
			errs = append(errs, fmt.Errorf("a withheld fix names %q and hands over changes", report.Plain(w, MaxText)))
		}
	} else if loop.Action(d.Action) == loop.ActionFix {
		errs = append(errs, errors.New("a fix plan with no fix prepared"))
	}
	return errors.Join(errs...)
}

// CheckPath refuses a path the publish job must never write: empty,
// absolute, escaping the checkout, in a .git directory, or under
// .github/workflows (compared case-insensitively, as on macOS and
// Windows file systems).
func CheckPath(p string) error {
	if p == "" || strings.ContainsAny(p, "\x00\n\r\\") {
		return fmt.Errorf("path %q is not a plain repository path", p)
	}
	if strings.HasPrefix(p, "/") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("path %q is outside the checkout", p)
	}
	parts := strings.Split(p, "/")
	for _, c := range parts {
		if strings.EqualFold(c, ".git") {
			return fmt.Errorf("path %q is in a .git directory", p)
		}
	}
	if l := strings.ToLower(p); strings.HasPrefix(l, ".github/workflows/") || l == ".github/workflows" {
		return fmt.Errorf("path %q is under .github/workflows: a fix never changes workflows", p)
	}
	return nil
}

// ValidatePatch checks a `git diff` patch line by line and returns the
// files it changes. Only in-place edits, additions and deletions of
// regular files (modes 100644 and 100755) that claimed lists are
// accepted: no renames, copies, mode changes, symlinks, submodules or
// binary patches, no quoted paths, no text outside a file's diff, and
// nothing over lim.
func ValidatePatch(patch []byte, claimed []string, lim Limits) ([]string, error) {
	if len(patch) > lim.MaxBytes {
		return nil, fmt.Errorf("the patch is %d bytes, over the limit of %d", len(patch), lim.MaxBytes)
	}
	var files []string
	cur := ""                // the file whose diff is being read
	oldLeft, newLeft := 0, 0 // lines left in the current hunk
	lines := strings.SplitAfter(string(patch), "\n")
	for i, raw := range lines {
		if raw == "" {
			continue
		}
		line := strings.TrimSuffix(raw, "\n")
		n := i + 1
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, " ") && oldLeft > 0 && newLeft > 0:
				oldLeft--
				newLeft--
			case strings.HasPrefix(line, "-") && oldLeft > 0:
				oldLeft--
			case strings.HasPrefix(line, "+") && newLeft > 0:
				newLeft--
			case strings.HasPrefix(line, `\ `):
			default:
				return nil, fmt.Errorf("line %d: unexpected text in a hunk of %s", n, cur)
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, `\ `) && cur != "":
			// "\ No newline at end of file" after a hunk's last line.
		case strings.HasPrefix(line, "diff --git "):
			p, err := diffPath(strings.TrimPrefix(line, "diff --git "))
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if err := CheckPath(p); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if !slices.Contains(claimed, p) {
				return nil, fmt.Errorf("line %d: %s is not claimed by the prepared decisions", n, p)
			}
			if slices.Contains(files, p) {
				return nil, fmt.Errorf("line %d: %s appears twice", n, p)
			}
			files = append(files, p)
			if len(files) > lim.MaxFiles {
				return nil, fmt.Errorf("the patch changes more than %d files, over the limit", lim.MaxFiles)
			}
			cur = p
		case cur == "":
			return nil, fmt.Errorf("line %d: text outside a file's diff", n)
		case strings.HasPrefix(line, "@@ "):
			o, nw, err := hunkCounts(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			oldLeft, newLeft = o, nw
		case strings.HasPrefix(line, "--- "):
			if v := strings.TrimPrefix(line, "--- "); v != "/dev/null" && v != "a/"+cur {
				return nil, fmt.Errorf("line %d: the header names %q, not %s", n, v, cur)
			}
		case strings.HasPrefix(line, "+++ "):
			if v := strings.TrimPrefix(line, "+++ "); v != "/dev/null" && v != "b/"+cur {
				return nil, fmt.Errorf("line %d: the header names %q, not %s", n, v, cur)
			}
		case strings.HasPrefix(line, "new file mode "), strings.HasPrefix(line, "deleted file mode "):
			f := strings.Fields(line)
			if err := checkMode(f[len(f)-1]); err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", n, cur, err)
			}
		case strings.HasPrefix(line, "index "):
			f := strings.Fields(line)
			if len(f) == 3 {
				if err := checkMode(f[2]); err != nil {
					return nil, fmt.Errorf("line %d: %s: %w", n, cur, err)
				}
			}
		case strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "):
			return nil, fmt.Errorf("line %d: %s: a mode change is refused", n, cur)
		case strings.HasPrefix(line, "rename "), strings.HasPrefix(line, "copy "), strings.HasPrefix(line, "similarity index "), strings.HasPrefix(line, "dissimilarity index "):
			return nil, fmt.Errorf("line %d: %s: a rename or copy is refused", n, cur)
		case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files "):
			return nil, fmt.Errorf("line %d: %s: a binary patch is refused", n, cur)
		default:
			return nil, fmt.Errorf("line %d: unexpected line %q in the diff of %s", n, line, cur)
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		return nil, fmt.Errorf("the last hunk of %s is cut short", cur)
	}
	if len(files) == 0 && len(claimed) > 0 {
		return nil, errors.New("the patch holds no change for the claimed files")
	}
	return files, nil
}

// diffPath reads "a/P b/P" and returns P; renames and quoted paths are
// refused.
func diffPath(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		return "", errors.New("a quoted path is refused")
	}
	if !strings.HasPrefix(s, "a/") || len(s)%2 != 1 {
		return "", fmt.Errorf("the diff header %q does not name one file", s)
	}
	half := (len(s) - 1) / 2
	a, b := s[:half], s[half+1:]
	if s[half] != ' ' || !strings.HasPrefix(b, "b/") || a[2:] != b[2:] {
		return "", fmt.Errorf("the diff header %q does not name one file: a rename is refused", s)
	}
	return a[2:], nil
}

func checkMode(m string) error {
	switch m {
	case "100644", "100755":
		return nil
	case "120000":
		return errors.New("a symlink is refused")
	case "160000":
		return errors.New("a submodule is refused")
	}
	return fmt.Errorf("file mode %q is refused", m)
}

// hunkCounts reads "@@ -a,b +c,d @@" and returns b and d (1 when absent).
func hunkCounts(line string) (int, int, error) {
	f := strings.Fields(line)
	if len(f) < 4 || f[3] != "@@" && !strings.HasPrefix(f[3], "@@") {
		return 0, 0, fmt.Errorf("malformed hunk header %q", line)
	}
	count := func(s, sign string) (int, error) {
		if !strings.HasPrefix(s, sign) {
			return 0, fmt.Errorf("malformed hunk header %q", line)
		}
		_, c, found := strings.Cut(s[1:], ",")
		if !found {
			return 1, nil
		}
		v, err := strconv.Atoi(c)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("malformed hunk header %q", line)
		}
		return v, nil
	}
	o, err := count(f[1], "-")
	if err != nil {
		return 0, 0, err
	}
	nw, err := count(f[2], "+")
	return o, nw, err
}

// CheckTree refuses, in the checkout at root, any of files that is a
// symlink or lies under one: the publish job never writes through a link.
// A file that does not exist (a deletion) is fine.
func CheckTree(root string, files []string) error {
	for _, p := range files {
		if err := CheckPath(p); err != nil {
			return err
		}
		cur := root
		for _, c := range strings.Split(p, "/") {
			cur = filepath.Join(cur, c)
			fi, err := os.Lstat(cur)
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if err != nil {
				return fmt.Errorf("checking %s: %w", p, err)
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				return fmt.Errorf("%s is or lies under a symlink; the publish job never writes through one", p)
			}
		}
	}
	return nil
}
