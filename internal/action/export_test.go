package action

import (
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// This file lends the internal tests' world (a fake GitHub with one
// repository, one PR and a checkout of it) to the external tests of
// package action_test, which drive the command line over it.

// World is the test world of newWorld.
type World = world

// NewWorld is newWorld.
func NewWorld(t testing.TB, files map[string]string) *World { return newWorld(t, files) }

// Fake is the world's fake GitHub.
func (w *world) Fake() *ghfake.Fake { return w.fake }

// Cycle delivers one event to Run.
func (w *world) Cycle(eventName string, payload any, inputs map[string]string) (Result, error) {
	w.t.Helper()
	return w.cycle(eventName, payload, inputs)
}

// DispatchPayload is a workflow_dispatch event for the PR.
func DispatchPayload(pr int) map[string]any { return dispatchPayload(pr) }

// Writes are the requests of f that wrote.
func Writes(f *ghfake.Fake) []ghfake.Request { return writes(f) }

// ActionToken is the world's GITHUB_TOKEN.
const ActionToken = actionToken

// TamperArtifact is tamperArtifact.
func TamperArtifact(t testing.TB, artifact string, edit func(d map[string]any, patch string) string) {
	t.Helper()
	tamperArtifact(t, artifact, edit)
}

// SeedStoppedLoop gives the PR the state comment of a loop that was
// stopped.
func (w *world) SeedStoppedLoop() { w.ourState(stoppedState(), "stopped") }
