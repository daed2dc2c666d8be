package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/contract"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
)

// judgeable is the Config Load reads from a minimal Actions context: the
// default bounds, a workflow_dispatch event and no payload file.
func judgeable(t *testing.T) Config {
	t.Helper()
	cfg, err := Load(env(baseEnv()))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// checkRunPayload is GitHub's published check_run completed example: a
// check run named Octocoders-linter by an app no built-in engine has.
func checkRunPayload(t *testing.T) string {
	t.Helper()
	return filepath.Join(contract.SharedDir(t), "webhooks", "check_run", "completed.json")
}

// octocoders defines the engine whose check run the example carries.
const octocoders = "engines:\n  - name: octo\n    author: {logins: [octo]}\n    check_run: Octocoders-linter\n    check_run_app: octocoders-linter\n"

// TestRule_C2_NewSetupRefusesARunThatCannotKnowItsEvent: no event name, or
// inside Actions no payload path, is an error before any request; outside
// Actions the payload is empty.
func TestRule_C2_NewSetupRefusesARunThatCannotKnowItsEvent(t *testing.T) {
	t.Parallel()
	cfg := judgeable(t)
	cfg.EventName = ""
	if _, err := NewSetup(cfg, env(nil)); !errors.Is(err, ErrNoEventName) {
		t.Errorf("no event name: %v, want ErrNoEventName", err)
	}
	cfg = judgeable(t)
	if _, err := NewSetup(cfg, env(map[string]string{"GITHUB_ACTIONS": "true"})); !errors.Is(err, ErrNoEventPath) {
		t.Errorf("no event path inside Actions: %v, want ErrNoEventPath", err)
	}
	s, err := NewSetup(cfg, env(map[string]string{"GITHUB_WORKFLOW": "review-loop"}))
	if err != nil || string(s.Payload) != "{}" || s.SelfWorkflow != "review-loop" {
		t.Errorf("outside Actions: payload %q, self %q, err %v; want {}, review-loop", s.Payload, s.SelfWorkflow, err)
	}
	cfg.EventPath = filepath.Join(t.TempDir(), "missing.json")
	if _, err := NewSetup(cfg, env(nil)); err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH") {
		t.Errorf("unreadable payload: %v, want an error naming GITHUB_EVENT_PATH", err)
	}
}

// TestRule_C2_JudgeChecksTheBoundsAndNamesTheEnginesOnlyTheFileCanDefine:
// a bound the loop refuses is an input error; an engine name no built-in
// engine has is kept for the config file to define, trimmed.
func TestRule_C2_JudgeChecksTheBoundsAndNamesTheEnginesOnlyTheFileCanDefine(t *testing.T) {
	t.Parallel()
	cfg := judgeable(t)
	cfg.MaxCommits = -1
	if _, err := NewSetup(cfg, env(nil)); err == nil || !strings.HasPrefix(err.Error(), "inputs: ") {
		t.Errorf("negative max-commits: %v, want an inputs error", err)
	}
	cfg = judgeable(t)
	cfg.Engines = []string{"bugbot", " octo ", ""}
	cfg.PathsIgnore = []string{"gen/**"}
	s, err := NewSetup(cfg, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.NotBuiltin, []string{"octo"}) {
		t.Errorf("NotBuiltin = %q, want [octo]", s.NotBuiltin)
	}
	if s.Loop.MaxCommits != cfg.MaxCommits || !slices.Equal(s.Loop.PathsIgnore, []string{"gen/**"}) {
		t.Errorf("loop config %+v, want the inputs' bounds and paths", s.Loop)
	}
	if _, ok := s.Registry.Lookup("bugbot"); !ok {
		t.Error("the judged registry has no built-in bugbot")
	}
	if got := s.RepoUnreadable(errors.New("boom")).Error(); !strings.Contains(got, "octo is no built-in engine") || !strings.HasSuffix(got, ": boom") {
		t.Errorf("RepoUnreadable = %q", got)
	}
	s.NotBuiltin = nil
	if got := s.RepoUnreadable(errors.New("boom")).Error(); got != "boom" {
		t.Errorf("RepoUnreadable without such names = %q, want the error itself", got)
	}
}

// TestRule_C2_AnEventOfAnEngineOnlyTheFileDefinesIsJudgedAgain: with the
// built-in engines a check run of an unknown app does not wake the loop;
// watched wide (before the config file is read) it may; with the config
// file's definition it does. WithRepo leaves the setup it was called on
// as it was.
func TestRule_C2_AnEventOfAnEngineOnlyTheFileDefinesIsJudgedAgain(t *testing.T) {
	t.Parallel()
	cfg := judgeable(t)
	cfg.EventName, cfg.EventPath = "check_run", checkRunPayload(t)
	cfg.Engines = []string{"octo"}
	s, err := NewSetup(cfg, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if w, err := s.Wake(false); err != nil || w.Kind != event.KindIgnore {
		t.Errorf("built-in engines only: %v %v, want ignored", w.Kind, err)
	}
	if w, err := s.Wake(true); err != nil || w.Kind == event.KindIgnore {
		t.Errorf("every check run watched: %v (%s) %v, want a wake", w.Kind, w.Reason, err)
	}
	if _, err := s.WithRepo(Repo{}); err == nil || !strings.Contains(err.Error(), "input engines: ") {
		t.Errorf("engine octo without its definition: %v, want an input engines error", err)
	}
	rc, err := ParseRepo([]byte(octocoders+"paths_ignore: [vendor/**]\n"), cfg.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	withFile, err := s.WithRepo(rc)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := withFile.Wake(false); err != nil || w.Kind == event.KindIgnore {
		t.Errorf("with the file's engine: %v (%s) %v, want a wake", w.Kind, w.Reason, err)
	}
	if _, ok := withFile.Registry.Lookup("octo"); !ok {
		t.Error("the registry after WithRepo has no octo")
	}
	if _, ok := s.Registry.Lookup("octo"); ok || s.Repo.Definitions != nil {
		t.Error("WithRepo changed the setup it was called on")
	}
	// CV6: the input's globs, then the file's; adopting again starts over.
	if !slices.Equal(withFile.Loop.PathsIgnore, []string{"vendor/**"}) {
		t.Errorf("paths ignored %q, want [vendor/**]", withFile.Loop.PathsIgnore)
	}
	again, err := withFile.WithRepo(rc)
	if err != nil || !slices.Equal(again.Loop.PathsIgnore, []string{"vendor/**"}) {
		t.Errorf("adopting the file twice: %q %v, want [vendor/**] once", again.Loop.PathsIgnore, err)
	}
}

// TestRule_C2_PricesOfAnUnknownEngineNameTheFile: a price for an engine
// the registry does not have is an error naming the config file.
func TestRule_C2_PricesOfAnUnknownEngineNameTheFile(t *testing.T) {
	t.Parallel()
	s, err := NewSetup(judgeable(t), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := ParseRepo([]byte("prices:\n  nosuch: 1\n"), ".github/review-loop.yml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WithRepo(rc); err == nil || !strings.HasPrefix(err.Error(), ".github/review-loop.yml: ") {
		t.Errorf("price of an unknown engine: %v, want an error naming the file", err)
	}
}

// TestRule_C2_EventConfigWatchesEveryEngineSignal: the watched check
// runs and apps are the registry's engines' (never github-actions, whose
// check runs are every workflow job's), with the inputs' phrase, the
// associations, the `pr` input and the running workflow.
func TestRule_C2_EventConfigWatchesEveryEngineSignal(t *testing.T) {
	t.Parallel()
	cfg := judgeable(t)
	cfg.PR, cfg.AllowedAssociations = 7, []string{"OWNER"}
	s, err := NewSetup(cfg, env(map[string]string{"GITHUB_WORKFLOW": "loop"}))
	if err != nil {
		t.Fatal(err)
	}
	ec := s.EventConfig(false)
	if !slices.Contains(ec.WatchedCheckRuns, "Cursor Bugbot") || !slices.Contains(ec.WatchedApps, "cursor") {
		t.Errorf("watched %q / %q, want Bugbot's check run and app", ec.WatchedCheckRuns, ec.WatchedApps)
	}
	if slices.Contains(ec.WatchedApps, "github-actions") {
		t.Errorf("watched apps %q include github-actions", ec.WatchedApps)
	}
	if !slices.Contains(ec.WatchedWorkflows, "Claude Code Review") {
		t.Errorf("watched workflows %q, want Claude's", ec.WatchedWorkflows)
	}
	if ec.PR != "7" || ec.SelfWorkflow != "loop" || ec.TriggerPhrase != "@review-loop" || !slices.Equal(ec.AllowedAssociations, []string{"OWNER"}) || ec.WatchAll {
		t.Errorf("event config %+v", ec)
	}
	if !s.EventConfig(true).WatchAll {
		t.Error("EventConfig(true) does not watch all")
	}
}

// TestRule_C2_ConfigIsReadWithTheObservationOnlyWhenNothingNeedsItFirst:
// with no checkout and a file in the repository the config comes with the
// first observation, unless an engine name needs its definitions first.
func TestRule_C2_ConfigIsReadWithTheObservationOnlyWhenNothingNeedsItFirst(t *testing.T) {
	t.Parallel()
	abs := filepath.Join(t.TempDir(), "review-loop.yml")
	for _, tc := range []struct {
		file       string
		notBuiltin []string
		treeless   bool
		want       bool
	}{
		{".github/review-loop.yml", nil, true, true},
		{".github/review-loop.yml", nil, false, false},
		{".github/review-loop.yml", []string{"octo"}, true, false},
		{"", nil, true, false},
		{abs, nil, true, false},
	} {
		s := Setup{Config: Config{ConfigFile: tc.file}, NotBuiltin: tc.notBuiltin}
		if got := s.DefersRepo(tc.treeless); got != tc.want {
			t.Errorf("file %q, not built in %q, treeless %v: defers %v, want %v", tc.file, tc.notBuiltin, tc.treeless, got, tc.want)
		}
	}
}

// TestClientOptions: a client gets its token and the run's endpoints on
// top of the given options, and the config file in the repository the
// observation reads; an absolute config file is the runner's, never the
// repository's.
func TestClientOptions(t *testing.T) {
	t.Parallel()
	cfg := Config{APIURL: "http://api", GraphQLURL: "http://gql", ConfigFile: "./conf//loop.yml"}
	o := cfg.ClientOptions(github.Options{MaxRetries: -1, ConfigFile: "kept.yml"}, "tok")
	if o.Token != "tok" || o.APIURL != "http://api" || o.GraphQLURL != "http://gql" || o.MaxRetries != -1 || o.ConfigFile != "conf/loop.yml" {
		t.Errorf("options %+v", o)
	}
	cfg.ConfigFile = filepath.Join(t.TempDir(), "loop.yml")
	if o := cfg.ClientOptions(github.Options{ConfigFile: "kept.yml"}, "tok"); o.ConfigFile != "kept.yml" {
		t.Errorf("absolute config file: observation reads %q, want the base's", o.ConfigFile)
	}
}

// TestWorkflowFile: the running workflow's file from GITHUB_WORKFLOW_REF.
func TestWorkflowFile(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]string{
		"o/r/.github/workflows/review-loop.yml@refs/heads/main": "review-loop.yml",
		"o/r/.github/workflows/sub/x.yaml@refs/pull/1/merge":    "sub/x.yaml",
		"": "", "o/r/other/x.yml@main": "",
	} {
		if got := (Config{WorkflowRef: ref}).WorkflowFile(); got != want {
			t.Errorf("%q: %q, want %q", ref, got, want)
		}
	}
}
