package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// LineRange is an inclusive range of line numbers.
type LineRange struct{ Start, End int }

// FileHunks are the lines one file's diff changed: New on the new side
// (the lines the commit wrote; a pure deletion marks the line it follows)
// and Old on the old side (the lines it replaced; a pure insertion marks
// the line it follows). A deleted file has no New ranges.
type FileHunks struct {
	Path string
	New  []LineRange
	Old  []LineRange
}

// DiffHunks returns the lines each file changed between two commits
// (CV1: the lines a fix commit wrote), from `git diff -U0`.
func (r *Runner) DiffHunks(ctx context.Context, from, to string) ([]FileHunks, error) {
	for _, c := range []string{from, to} {
		if c == "" || strings.HasPrefix(c, "-") {
			return nil, fmt.Errorf("git diff: invalid commit %q", c)
		}
	}
	out, err := r.Run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", from, to, "--")
	if err != nil {
		return nil, err
	}
	return ParseDiff(out)
}

// WorktreeHunks returns the lines each of files changes in the checkout
// against HEAD (CV1: the lines a fix commit is about to write), staging
// them first so that new and removed files count.
func (r *Runner) WorktreeHunks(ctx context.Context, files []string) ([]FileHunks, error) {
	if len(files) == 0 {
		return nil, nil
	}
	if _, err := r.Run(ctx, append([]string{"add", "-A", "--"}, files...)...); err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, append([]string{"diff", "--cached", "--no-color", "--no-ext-diff", "--no-renames", "-U0", "HEAD", "--"}, files...)...)
	if err != nil {
		return nil, err
	}
	return ParseDiff(out)
}

// ParseDiff reads the hunks of a unified diff of several files.
func ParseDiff(diff string) ([]FileHunks, error) {
	var out []FileHunks
	var cur *FileHunks
	oldPath := ""
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			out = append(out, FileHunks{})
			cur, oldPath = &out[len(out)-1], ""
		case cur == nil:
		case strings.HasPrefix(line, "--- "):
			oldPath = diffPath(strings.TrimPrefix(line, "--- "), "a/")
		case strings.HasPrefix(line, "+++ "):
			cur.Path = diffPath(strings.TrimPrefix(line, "+++ "), "b/")
			if cur.Path == "" {
				cur.Path = oldPath // deleted
			}
		case strings.HasPrefix(line, "@@ "):
			if err := addHunk(cur, line); err != nil {
				return nil, err
			}
		}
	}
	kept := out[:0]
	for _, f := range out {
		if f.Path != "" {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// ParsePatch reads the lines one file's patch changed, as GitHub's
// compare and commit APIs return it (files[].patch: hunks without file
// headers, with context lines). Context lines are not changed lines: each
// run of removed and added lines is one range on each side (a pure
// insertion marks the old line it follows, a pure deletion the new line
// it follows).
func ParsePatch(path, patch string) (FileHunks, error) {
	f := FileHunks{Path: path}
	o, n := 0, 0     // the next old and new line numbers
	ro, rn := -1, -1 // where the current run of changes started; -1: none
	inHunk, deleted := false, false
	flush := func() {
		if ro < 0 {
			return
		}
		f.Old = append(f.Old, changedRun(ro, o))
		if !deleted {
			f.New = append(f.New, changedRun(rn, n))
		}
		ro, rn = -1, -1
	}
	for _, line := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "@@ "):
			flush()
			h := FileHunks{}
			if err := addHunk(&h, line); err != nil {
				return f, fmt.Errorf("%s: %w", path, err)
			}
			fields := strings.Fields(line)
			osta, oc, _ := hunkRange(fields[1][1:])
			ns, nc, _ := hunkRange(fields[2][1:])
			o, n, deleted = osta, ns, ns == 0 && nc == 0
			if oc == 0 {
				o = osta + 1
			}
			if nc == 0 {
				n = ns + 1
			}
			inHunk = true
		case !inHunk || strings.HasPrefix(line, "\\"):
			// before the first hunk, or "\ No newline at end of file"
		case strings.HasPrefix(line, "-"), strings.HasPrefix(line, "+"):
			if ro < 0 {
				ro, rn = o, n
			}
			if line[0] == '-' {
				o++
			} else {
				n++
			}
		default:
			flush()
			o++
			n++
		}
	}
	flush()
	return f, nil
}

// changedRun is the range of a run of changes from line start up to (not
// including) next on one side; an empty run marks the line it follows.
func changedRun(start, next int) LineRange {
	if next > start {
		return LineRange{max(start, 1), max(next-1, 1)}
	}
	return LineRange{max(start-1, 1), max(start-1, 1)}
}

func diffPath(s, prefix string) string {
	s = strings.TrimRight(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	return strings.TrimPrefix(s, prefix)
}

// addHunk reads "@@ -a[,b] +c[,d] @@".
func addHunk(f *FileHunks, line string) error {
	fields := strings.Fields(line)
	if len(fields) < 3 || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return fmt.Errorf("bad hunk header %q", line)
	}
	osta, oc, err := hunkRange(fields[1][1:])
	if err != nil {
		return fmt.Errorf("bad hunk header %q: %w", line, err)
	}
	ns, nc, err := hunkRange(fields[2][1:])
	if err != nil {
		return fmt.Errorf("bad hunk header %q: %w", line, err)
	}
	f.Old = append(f.Old, span(osta, oc))
	if ns > 0 || nc > 0 {
		f.New = append(f.New, span(ns, nc))
	}
	return nil
}

func span(start, count int) LineRange {
	start = max(start, 1)
	if count == 0 {
		return LineRange{start, start}
	}
	return LineRange{start, start + count - 1}
}

func hunkRange(s string) (int, int, error) {
	a, b, found := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, fmt.Errorf("line %q", a)
	}
	count := 1
	if found {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, fmt.Errorf("count %q", b)
		}
	}
	return start, count, nil
}
