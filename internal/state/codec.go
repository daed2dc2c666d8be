package state

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Marker opens the hidden state block; it stands on its own line and is
// followed by " v<format>" and, on the next lines, the payload, then "-->".
const Marker = "<!-- review-loop:state"

// MaxCommentChars is the largest body GitHub accepts for a comment.
const MaxCommentChars = 65536

// maxPayloadBytes bounds the decompressed payload so that a hostile
// comment cannot make the decoder allocate without limit.
const maxPayloadBytes = 16 << 20

// truncationNote replaces the end of a visible part that had to be cut.
const truncationNote = "\n\n_… status truncated to fit GitHub's comment size limit; the job summary has the full report._\n"

// ErrTooLarge is returned by Encode when the state alone does not fit in
// one comment even with the event log emptied and no visible part.
var ErrTooLarge = errors.New("state does not fit in one comment")

// NewerVersionError is returned when the saved state was written by a newer
// review-loop (rule SC2).
type NewerVersionError struct{ Version int }

// Error implements error.
func (e *NewerVersionError) Error() string {
	return fmt.Sprintf("state version %d is newer than this review-loop understands (%d); upgrade the action", e.Version, Version)
}

// Encode renders a status comment: the visible part, then the state hidden
// in an HTML comment. The payload is base64 of gzip-compressed JSON, so
// nothing in it can close the HTML comment. When the comment would exceed
// MaxCommentChars, the oldest events are dropped first (counted in
// EventsDropped of the saved copy), then the visible part is truncated with
// a note.
func Encode(visible string, st State) (string, error) {
	st.Version = Version
	hidden, err := hiddenBlock(st)
	if err != nil {
		return "", err
	}
	if fits(visible, hidden) {
		return join(visible, hidden), nil
	}
	n := len(st.Events)
	if n > 0 {
		// Smallest number of oldest events whose removal makes it fit, by
		// binary search; an estimate from the sizes narrows the range
		// first, since every probe compresses the whole state.
		lo, hi := 1, n
		if empty, err := hiddenBlock(trimmed(st, n)); err == nil && fits(visible, empty) {
			full, none := utf8.RuneCountInString(hidden), utf8.RuneCountInString(empty)
			excess := utf8.RuneCountInString(visible) + len("\n\n") + full - MaxCommentChars
			est := int(int64(excess) * int64(n) / int64(max(full-none, 1)))
			if l := est * 4 / 5; l > lo {
				if h, err := hiddenBlock(trimmed(st, l)); err == nil && !fits(visible, h) {
					lo = l + 1
				}
			}
			if u := est*5/4 + 1; u < hi && u >= lo {
				if h, err := hiddenBlock(trimmed(st, u)); err == nil && fits(visible, h) {
					hi = u
				}
			}
		}
		best, bestHidden := -1, ""
		for lo <= hi {
			k := (lo + hi) / 2
			h, err := hiddenBlock(trimmed(st, k))
			if err != nil {
				return "", err
			}
			if fits(visible, h) {
				best, bestHidden = k, h
				hi = k - 1
			} else {
				lo = k + 1
			}
		}
		if best >= 0 {
			return join(visible, bestHidden), nil
		}
		hidden, err = hiddenBlock(trimmed(st, n))
		if err != nil {
			return "", err
		}
	}
	budget := MaxCommentChars - utf8.RuneCountInString(hidden) - len("\n\n") - utf8.RuneCountInString(truncationNote)
	if budget < 0 {
		return "", fmt.Errorf("encoding state: %w (%d characters of state)", ErrTooLarge, utf8.RuneCountInString(hidden))
	}
	return join(truncateRunes(visible, budget)+truncationNote, hidden), nil
}

func trimmed(st State, k int) State {
	st.Events = st.Events[k:]
	st.EventsDropped += k
	return st
}

func fits(visible, hidden string) bool {
	return utf8.RuneCountInString(visible)+len("\n\n")+utf8.RuneCountInString(hidden) <= MaxCommentChars
}

func join(visible, hidden string) string {
	return strings.TrimRight(visible, "\n") + "\n\n" + hidden
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// gzipWriters keeps compressors between Encode calls: a new one allocates
// close to a megabyte of tables, many times the state it compresses, and a
// cycle encodes the state several times. Reset makes a kept one write what
// a new one would.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return zw
}}

func hiddenBlock(st State) (string, error) {
	js, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encoding state: %w", err)
	}
	var gz bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&gz)
	_, _ = zw.Write(js) // writes to a bytes.Buffer cannot fail
	_ = zw.Close()
	gzipWriters.Put(zw)
	enc := base64.StdEncoding.EncodeToString(gz.Bytes())
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/76 + 64)
	b.WriteString(Marker + " v" + strconv.Itoa(Version) + "\n")
	for len(enc) > 76 {
		b.WriteString(enc[:76])
		b.WriteByte('\n')
		enc = enc[76:]
	}
	b.WriteString(enc)
	b.WriteString("\n-->")
	return b.String(), nil
}

// Decode finds the hidden state in a comment body by its marker, wherever
// it is, so that edits to the visible part do not break it. found reports
// whether a marker was present; err says why a present state could not be
// read. Older versions are migrated; newer ones are refused with a
// *NewerVersionError. The payload may be base64 of gzip'd JSON (what Encode
// writes), base64 of JSON, or raw JSON (version 0 comments). Decode never
// panics.
func Decode(commentBody string) (st State, found bool, err error) {
	payload, format, found, err := extract(commentBody)
	if !found || err != nil {
		return State{}, found, err
	}
	if format > Version {
		return State{}, true, &NewerVersionError{Version: format}
	}
	raw, err := unwrap(payload)
	if err != nil {
		return State{}, true, err
	}
	st, err = DecodeJSON(raw)
	return st, true, err
}

// extract returns the payload of the last state block in body and the
// format version on its marker line (0 when absent).
func extract(body string) (payload string, format int, found bool, err error) {
	idx := -1
	for off := 0; ; {
		i := strings.Index(body[off:], Marker)
		if i < 0 {
			break
		}
		idx = off + i
		off = idx + len(Marker)
	}
	if idx < 0 {
		return "", 0, false, nil
	}
	rest := body[idx+len(Marker):]
	nl := strings.IndexByte(rest, '\n')
	end := strings.Index(rest, "-->")
	if end < 0 {
		return "", 0, true, errors.New("decoding state: hidden block is not closed with -->")
	}
	header := rest
	if nl >= 0 && nl < end {
		header = rest[:nl]
	} else {
		header = rest[:end]
		nl = end
	}
	header = strings.TrimSpace(header)
	if header != "" {
		v, ok := strings.CutPrefix(header, "v")
		n, convErr := strconv.Atoi(v)
		if !ok || convErr != nil || n < 0 {
			return "", 0, true, fmt.Errorf("decoding state: bad format tag %q on the marker line", header)
		}
		format = n
	}
	return strings.TrimSpace(rest[nl:end]), format, true, nil
}

// unwrap turns a payload into JSON bytes.
func unwrap(payload string) ([]byte, error) {
	if strings.HasPrefix(payload, "{") {
		return []byte(payload), nil
	}
	compact := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, payload)
	data, err := base64.StdEncoding.DecodeString(compact)
	if err != nil {
		return nil, fmt.Errorf("decoding state: payload is not base64: %w", err)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decoding state: %w", err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxPayloadBytes+1))
		if err != nil {
			return nil, fmt.Errorf("decoding state: decompressing: %w", err)
		}
		if len(out) > maxPayloadBytes {
			return nil, fmt.Errorf("decoding state: payload larger than %d bytes", maxPayloadBytes)
		}
		data = out
	}
	return data, nil
}

// v0State is the unversioned schema: the same fields as version 1 except
// that no_progress was one flat map of category to count for all engines.
type v0State struct {
	State
	NoProgress map[string]int `json:"no_progress,omitempty"`
}

// DecodeJSON reads a state from its JSON form, migrating older versions
// (SC2) and validating the result against the schema's invariants.
func DecodeJSON(data []byte) (State, error) {
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return State{}, fmt.Errorf("decoding state: %w", err)
	}
	var st State
	switch {
	case probe.Version > Version:
		return State{}, &NewerVersionError{Version: probe.Version}
	case probe.Version < 0:
		return State{}, fmt.Errorf("decoding state: version: is %d, want 0 to %d", probe.Version, Version)
	case probe.Version == 0:
		var old v0State
		if err := json.Unmarshal(data, &old); err != nil {
			return State{}, fmt.Errorf("decoding version 0 state: %w", err)
		}
		st = MigrateV0(old.State, old.NoProgress)
	default:
		if err := json.Unmarshal(data, &st); err != nil {
			return State{}, fmt.Errorf("decoding state: %w", err)
		}
	}
	if err := st.Validate(nil); err != nil {
		return State{}, fmt.Errorf("decoding state: %w", err)
	}
	return st, nil
}

// MigrateV0 turns a version 0 state into the current version. Version 0
// kept one flat no-progress map of category to count across all engines.
// When the old state names exactly one engine, the counts are that
// engine's, which is exact. Otherwise they cannot be attributed, so they go
// under LegacyEngine ("*"), which the loop counts toward every engine: the
// detector keeps the engine-agnostic behaviour the loop had when those
// counts were made, and new counts are per engine.
func MigrateV0(old State, flat map[string]int) State {
	st := old
	st.Version = Version
	st.NoProgress = nil
	if len(flat) > 0 {
		owner := LegacyEngine
		if len(old.Engines) == 1 {
			owner = old.Engines[0]
		}
		st.NoProgress = map[string]map[string]int{owner: {}}
		for k, v := range flat {
			st.NoProgress[owner][k] = v
		}
	}
	return st
}

// WriteEventLog writes events as JSON lines, one event per line (H6).
func WriteEventLog(w io.Writer, events []Event) error {
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("writing event log: %w", err)
		}
	}
	return nil
}

// ReadEventLog reads a JSON-lines event log written by WriteEventLog.
// Blank lines are skipped.
func ReadEventLog(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return out, fmt.Errorf("reading event log: line %d: %w", line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading event log: %w", err)
	}
	return out, nil
}
