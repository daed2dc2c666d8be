package state

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// full has every field of SC1 set.
func full() State {
	return State{
		Version: Version, Status: StatusActive, EndReason: "", StartedAt: t0,
		Iteration: 3, Commits: 2, ActiveSeconds: 4242, IdleSince: t0,
		Engines:     []string{"bugbot", "claude", "copilot"},
		LastPushSHA: "aaa", PendingPushSHA: "bbb", LastObservedSHA: "aaa",
		NoProgress: map[string]map[string]int{"bugbot": {"nil": 1}},
		EngineStates: map[string]EngineState{
			"bugbot": {Review: ReviewDone, TriggeredSHA: "aaa", TriggeredAt: t0, WaitSHA: "aaa", WaitSince: t0,
				SignalID: 9, LastSeenReviewID: 2233029557, LastSeenReviewSHA: "aaa", LastSeenCommentID: 2233029558,
				FirstReviewSeen: true, Mark: MarkHung, MarkSHA: "aaa", MarkNote: "stalled", ConsecutiveErrors: 1,
				LastErrorSignalID: 8, InitialWaitDone: true, Cycles: 2, Fixed: 1, Approved: 1, Escalated: 1, Skipped: 1},
			"claude": {Review: ReviewRunning, Judge: &JudgeCache{Verdict: "NON_BLOCKING", SHA: "aaa", Material: "f00",
				Reason: "nits", Items: []Item{{ID: "c-1", Engine: "claude", Title: "naming", Path: "a.go", Line: 3, SHA: "aaa"}}}},
		},
		NonBlocking:   []Item{{ID: "c-1", Engine: "claude", Title: "naming"}},
		Triage:        []TriageRow{{FindingID: "bugbot-1", Engine: "bugbot", CommentID: 2233029558, Tier: 1, Justification: "nil map write panics", Outcome: "fixed", Key: "nil", Cycle: 1, FlaggedBy: []string{"bugbot", "copilot"}}},
		Events:        []Event{{Time: t0, Name: EventRunStart}, {Time: t0, Name: EventRetrigger, Engine: "bugbot", SHA: "aaa", Iteration: 1, Reason: "r", Detail: "d"}},
		EventsDropped: 3,
		TriagePruned:  5,
		Approvals:     []Approval{{FindingID: "copilot-2", Direction: "use a mutex", By: "alice", At: t0}},
		UnreadPushes:  &UnreadPushes{Base: "abc1234", Head: "def5678", Why: "compare failed"},
		Accepted:      []Acceptance{{Engine: "copilot", SHA: "abc1234", By: "alice", At: t0}},
		Skips:         []string{"copilot-3"},
		Totals:        Totals{Fixed: 1, Reverted: 1, Escalated: 1, Outdated: 1, Disagreed: 1},
		Notices:       []string{"dispatch-setup", "resolve-permission"},
		Installed:     map[string]bool{"claude": true},
		LargePR:       true,
		DiffChars:     &DiffChars{Base: "b", Head: "h", Chars: 3},
		LastCycle:     []string{"claim the status comment (SC1)", "trigger copilot on abc1234 (T2)"},
		WontFix: []WontFix{{Path: "a.go", Title: "Max returns the smaller value", Context: "e85eab81fac8085d", FindingID: "copilot-4",
			Engine: "copilot", CommentID: 2233029569, Reason: "intended", ReplyURL: "https://github.com/o/r/pull/1#discussion_r2233029572",
			SHA: "aaa", At: t0, Answered: []int64{2233029577}, ReraisedBy: []string{"bugbot"}}},
		Yield:       &Yield{Until: t0, Reason: "a push by @alice"},
		Paused:      []Pause{{FindingID: "bugbot-1", ThreadID: "PRRT_1", Path: "a.go", StartLine: 3, Line: 5, By: "alice", Until: t0}},
		HumanSeenID: 2233029580,
		Gate:        &Gate{SHA: "aaa", ID: 1 << 32, Status: "completed", Conclusion: "failure", Digest: "f00"},
		Owner:       &Owner{RunID: 1 << 40, Workflow: ".github/workflows/review-loop.yml", CommentID: 1 << 33},
		Ledger: &Ledger{Requested: map[string]int{"bugbot": 1}, Automatic: map[string]int{"bugbot": 1},
			AskedSHA: map[string]string{"bugbot": "aaa"}, AutoSHA: map[string]string{"bugbot": "aaa"},
			JobMinutes: 3, Cycles: 3, APIReads: 30, APIWrites: 9},
		FixCommits: []FixCommit{{SHA: "aaa", Parent: "ccc", Round: 1, At: t0, Pushed: true,
			Files: []ChangedFile{{Path: "a.go", Ranges: []LineRange{{Start: 3, End: 5}}}}, Fixed: []FixedRef{{ID: "bugbot-1", Path: "a.go", Line: 3}}}},
		Induced:     []Induced{{FindingID: "bugbot-2", Commit: "aaa", Round: 1, Fixed: []string{"bugbot-1"}, Seen: 2}},
		AutofixOff:  &AutofixOff{Reason: "@alice reverted review-loop's commit aaa", Commit: "aaa", By: "alice", At: t0},
		Held:        []Held{{FindingID: "coderabbit-5", Rule: "CV3", Why: "nitpick"}},
		EngineFixed: []string{"bugbot-7"},
		ProseRounds: 2,
		Scores: map[string]Score{"bugbot": {Raised: 9, Fixed: 3, Declined: 1, WontFix: 1, Reverted: 1, Stale: 1, Escalated: 1,
			Induced: 1, Quota: 2, ReviewSecs: []int64{60, 420}}},
	}
}

func TestRule_SC1_EveryBoundValueSurvivesTheHiddenComment(t *testing.T) {
	t.Parallel()
	want := full()
	// Every field is set, so a field added without a JSON round trip fails here.
	rv := reflect.ValueOf(want)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() && rv.Type().Field(i).Name != "EndReason" {
			t.Errorf("fixture leaves %s unset", rv.Type().Field(i).Name)
		}
	}
	body, err := Encode("## review-loop\nvisible dashboard", want)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
	}{
		{"the comment as written", body},
		{"a human edited the visible part", strings.Replace(body, "visible dashboard", "edited by a human\n\nmore text", 1)},
		{"text was added after the hidden block", body + "\n\nthanks!"},
		{"CRLF line endings", strings.ReplaceAll(body, "\n", "\r\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, found, err := Decode(tt.body)
			if err != nil || !found {
				t.Fatalf("Decode: found %v err %v", found, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip\n got %+v\nwant %+v", got, want)
			}
		})
	}
	t.Run("the marker stands on its own line and the payload cannot close the comment", func(t *testing.T) {
		t.Parallel()
		st := full()
		st.Triage[0].Justification = "--> <!-- evil --> */"
		body, err := Encode("x", st)
		if err != nil {
			t.Fatal(err)
		}
		hidden := body[strings.Index(body, Marker):]
		if strings.Count(hidden, "-->") != 1 || !strings.HasSuffix(hidden, "\n-->") || !strings.Contains(body, "\n"+Marker+" v1\n") {
			t.Errorf("hidden block %q", hidden)
		}
		got, _, err := Decode(body)
		if err != nil || got.Triage[0].Justification != st.Triage[0].Justification {
			t.Errorf("decode %v %q", err, got.Triage[0].Justification)
		}
	})
	t.Run("a comment without a marker has no state", func(t *testing.T) {
		t.Parallel()
		if _, found, err := Decode("just a comment"); found || err != nil {
			t.Errorf("found %v err %v", found, err)
		}
	})
}

func TestRule_SC2_VersionMigration(t *testing.T) {
	t.Parallel()
	read := func(t *testing.T, name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "state", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Run("a version 0 flat no-progress map moves under the legacy bucket when several engines ran", func(t *testing.T) {
		t.Parallel()
		st, err := DecodeJSON(read(t, "v0.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]int{LegacyEngine: {"null-deref": 1, "race": 2}}
		if st.Version != Version || !reflect.DeepEqual(st.NoProgress, want) || st.Commits != 2 || st.Triage[0].CommentID != 2233029558 {
			t.Errorf("migrated %+v", st)
		}
		if st.EngineStates["bugbot"].LastSeenReviewID != 2233029557 {
			t.Errorf("engine states %+v", st.EngineStates)
		}
	})
	t.Run("a version 0 state of one engine keeps its counts under that engine", func(t *testing.T) {
		t.Parallel()
		st, err := DecodeJSON(read(t, "v0-one-engine.json"))
		if err != nil || !reflect.DeepEqual(st.NoProgress, map[string]map[string]int{"copilot": {"outdated-api": 1}}) {
			t.Errorf("err %v no-progress %v", err, st.NoProgress)
		}
	})
	t.Run("a version 0 state embedded as raw JSON in the comment decodes", func(t *testing.T) {
		t.Parallel()
		body := "status\n" + Marker + "\n" + string(read(t, "v0.json")) + "\n-->"
		st, found, err := Decode(body)
		if err != nil || !found || st.Version != Version {
			t.Errorf("found %v err %v", found, err)
		}
	})
	t.Run("a newer version is refused with a clear error", func(t *testing.T) {
		t.Parallel()
		_, err := DecodeJSON(read(t, "v7.json"))
		var nv *NewerVersionError
		if !errors.As(err, &nv) || err.Error() != "state version 7 is newer than this review-loop understands (1); upgrade the action" {
			t.Errorf("err %v", err)
		}
		_, found, err := Decode(Marker + " v7\nAAAA\n-->")
		if !found || !errors.As(err, &nv) {
			t.Errorf("newer format tag: found %v err %v", found, err)
		}
	})
}

func TestDecodeRejectsBrokenState(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name string
		body string
		want string
	}{
		{"an unclosed block", Marker + " v1\nAAAA", "not closed"},
		{"a bad format tag", Marker + " vX\nAAAA\n-->", "bad format tag"},
		{"a payload that is not base64", Marker + " v1\n!!!\n-->", "not base64"},
		{"a payload that is not JSON", Marker + " v1\n" + b64("nope") + "\n-->", "decoding state"},
		{"a broken gzip stream", Marker + " v1\n" + base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 1, 2, 3}) + "\n-->", "decoding state"},
		{"a negative counter", Marker + " v1\n" + b64(`{"version":1,"commits":-1}`) + "\n-->", "commits: is negative"},
		{"an unknown review state", Marker + " v1\n" + b64(`{"version":1,"engine_states":{"bugbot":{"review":"SLEEPING"}}}`) + "\n-->", `engine_states[bugbot].review: unknown review state "SLEEPING"`},
		{"a negative version", `{"version":-1}`, "version: is -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var err error
			if strings.HasPrefix(tt.body, "{") {
				_, err = DecodeJSON([]byte(tt.body))
			} else {
				_, _, err = Decode(tt.body)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestValidateNamesTheField(t *testing.T) {
	t.Parallel()
	st := full()
	st.Version = 2
	st.Status = "paused"
	st.ActiveSeconds = -1
	st.Totals.Disagreed = -2
	st.Engines = append(st.Engines, "gemni")
	st.NoProgress["bugbot"]["nil"] = -1
	st.EngineStates["bugbot"] = EngineState{Review: "WAITING", Mark: "LOST", Fixed: -1}
	st.Events = append(st.Events, Event{Name: "lunch"})
	st.Triage[0].Tier = 4
	err := st.Validate([]string{"bugbot", "claude", "copilot"})
	for _, want := range []string{
		"version: is 2, want 1", `status: unknown status "paused"`, "active_seconds: is negative", "totals.disagreed: is negative",
		`engines: unknown engine "gemni" (known: bugbot, claude, copilot)`, "no_progress[bugbot][nil]: is negative",
		"engine_states[bugbot].review: unknown review state", "engine_states[bugbot].mark: unknown mark",
		"engine_states[bugbot].fixed: is negative", `events[2].event: unknown event "lunch"`, "triage[0].tier: is 4",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\ndoes not contain %q", err, want)
		}
	}
	if err := full().Validate([]string{"bugbot", "claude", "copilot"}); err != nil {
		t.Errorf("valid state: %v", err)
	}
}

func TestEncodeFitsTheCommentLimit(t *testing.T) {
	t.Parallel()
	many := func(n int) State {
		st := full()
		st.Events = nil
		for i := range n {
			// Distinct, poorly compressible details so the log really is large.
			st.Events = append(st.Events, Event{Time: t0.Add(time.Duration(i) * time.Second), Name: EventIterError,
				Detail: noise(i)})
		}
		return st
	}
	t.Run("a small state is written whole", func(t *testing.T) {
		t.Parallel()
		body, err := Encode("hi", many(10))
		if err != nil {
			t.Fatal(err)
		}
		got, _, _ := Decode(body)
		if len(got.Events) != 10 || got.EventsDropped != 3 {
			t.Errorf("events %d dropped %d", len(got.Events), got.EventsDropped)
		}
	})
	t.Run("a large event log is trimmed oldest first and the drop is counted", func(t *testing.T) {
		t.Parallel()
		st := many(1500)
		body, err := Encode("hi", st)
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(body); n > MaxCommentChars {
			t.Fatalf("comment is %d characters", n)
		}
		got, _, err := Decode(body)
		if err != nil {
			t.Fatal(err)
		}
		dropped := got.EventsDropped - st.EventsDropped
		if dropped <= 0 || dropped+len(got.Events) != len(st.Events) || !got.Events[len(got.Events)-1].Time.Equal(st.Events[len(st.Events)-1].Time) {
			t.Errorf("dropped %d kept %d of %d", dropped, len(got.Events), len(st.Events))
		}
		if !strings.HasPrefix(body, "hi\n") {
			t.Errorf("visible part changed")
		}
	})
	t.Run("a visible part too large is truncated with a note", func(t *testing.T) {
		t.Parallel()
		visible := strings.Repeat("é", MaxCommentChars)
		body, err := Encode(visible, many(0))
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(body); n > MaxCommentChars || !strings.Contains(body, "status truncated") || !utf8.ValidString(body) {
			t.Errorf("comment is %d characters", n)
		}
		if _, _, err := Decode(body); err != nil {
			t.Error(err)
		}
	})
	t.Run("a state that cannot fit is an error", func(t *testing.T) {
		t.Parallel()
		st := full()
		for i := range 1500 {
			st.Skips = append(st.Skips, noise(i))
		}
		if _, err := Encode("x", st); !errors.Is(err, ErrTooLarge) {
			t.Errorf("err %v", err)
		}
	})
}

func TestEventLogIsJSONLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	evs := full().Events
	if err := WriteEventLog(&buf, evs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(evs) || !json.Valid([]byte(lines[0])) || !strings.Contains(lines[1], `"event":"retrigger"`) {
		t.Fatalf("log %q", buf.String())
	}
	got, err := ReadEventLog(strings.NewReader(buf.String() + "\n\n"))
	if err != nil || !reflect.DeepEqual(got, evs) {
		t.Errorf("read %v %+v", err, got)
	}
	if _, err := ReadEventLog(strings.NewReader("{\"event\":\"run-start\"}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v", err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	t.Parallel()
	a := full()
	b := a.Clone()
	b.NoProgress["bugbot"]["nil"] = 99
	b.EngineStates["claude"].Judge.Items[0].Title = "changed"
	b.Events[0].Name = "x"
	if a.NoProgress["bugbot"]["nil"] != 1 || a.EngineStates["claude"].Judge.Items[0].Title != "naming" || a.Events[0].Name != EventRunStart {
		t.Error("clone shares memory with the original")
	}
	if err := New().Validate(nil); err != nil {
		t.Errorf("new state: %v", err)
	}
	if !a.HasNotice("dispatch-setup") || a.HasNotice("other") {
		t.Error("HasNotice")
	}
}

// noise is a deterministic, incompressible string, so that a test needs
// few entries to pass the comment limit.
func noise(i int) string {
	sum := sha512.Sum512([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
	return base64.StdEncoding.EncodeToString(sum[:])
}

// TestRule_SC2_WontFixMemoryIsAddedMigrationSafe: the won't-fix memory
// (WF1) and the merged-finding engines (DD1) were added within version 1.
// A version 1 state written before them decodes with none and validates;
// one with them keeps them through the hidden comment; a version 0 state
// migrates with none.
func TestRule_SC2_WontFixMemoryIsAddedMigrationSafe(t *testing.T) {
	t.Parallel()
	old := `{"version":1,"status":"active","iteration":1,"commits":1,"active_seconds":0,"idle_polls":0,` +
		`"triage":[{"id":"bugbot-1","engine":"bugbot","tier":1,"outcome":"fixed","cycle":1}],"totals":{"fixed":1,"reverted":0,"escalated":0,"outdated":0,"disagreed":0}}`
	st, err := DecodeJSON([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if st.WontFix != nil || st.Triage[0].FlaggedBy != nil || st.Validate(nil) != nil {
		t.Errorf("older version 1 state: wont_fix %v flagged_by %v validate %v", st.WontFix, st.Triage[0].FlaggedBy, st.Validate(nil))
	}
	want := full()
	body, err := Encode("status", want)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(body)
	if err != nil || !reflect.DeepEqual(got.WontFix, want.WontFix) || !reflect.DeepEqual(got.Triage[0].FlaggedBy, want.Triage[0].FlaggedBy) {
		t.Errorf("round trip: err %v wont_fix %+v flagged_by %v", err, got.WontFix, got.Triage[0].FlaggedBy)
	}
	c := want.Clone()
	c.WontFix[0].Answered[0] = 1
	if want.WontFix[0].Answered[0] == 1 {
		t.Error("Clone shares the won't-fix memory's answered ids")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "state", "v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v0, err := DecodeJSON(b); err != nil || v0.WontFix != nil {
		t.Errorf("version 0: err %v wont_fix %v", err, v0.WontFix)
	}
}
