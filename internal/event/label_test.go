package event

import (
	"encoding/json"
	"strings"
	"testing"
)

// labeled builds a pull_request "labeled" delivery from the recorded
// opened example: GitHub sends the same pull_request object with the
// label that was added in "label" (docs: webhook events, pull_request,
// action labeled).
func labeled(t *testing.T, name string) []byte {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(readPayload(t, webhooksDir(t), "pull_request/opened.json"), &p); err != nil {
		t.Fatal(err)
	}
	p["action"] = "labeled"
	p["label"] = map[string]any{"id": 208045946, "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=", "name": name, "color": "ededed", "default": false}
	b, _ := json.Marshal(p)
	return b
}

func TestParse_theReviewLoopLabelAsksForALoop(t *testing.T) {
	t.Parallel()
	w, err := Parse("pull_request", labeled(t, "review-loop"), payloadCfg)
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindStartLabel || len(w.PRs) != 1 {
		t.Fatalf("wake %+v, want a start-label wake for one PR", w)
	}
	w, err = Parse("pull_request", labeled(t, "bug"), payloadCfg)
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindIgnore {
		t.Fatalf("another label: wake %s, want ignore", w.Kind)
	}
}

// TestParse_APullRequestTargetEventIsNamedAsSuch: a workflow started by
// pull_request_target gets the same payload as pull_request, and what
// review-loop says of it names the event it really was.
func TestParse_APullRequestTargetEventIsNamedAsSuch(t *testing.T) {
	t.Parallel()
	opened := readPayload(t, webhooksDir(t), "pull_request/opened.json")
	for _, tc := range []struct {
		name    string
		payload []byte
	}{
		{"opened", opened},
		{"labeled with another label", labeled(t, "bug")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, err := Parse("pull_request_target", tc.payload, payloadCfg)
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != KindIgnore || w.Event != "pull_request_target" {
				t.Fatalf("wake %s of %q, want an ignored pull_request_target", w.Kind, w.Event)
			}
			if !strings.HasPrefix(w.Reason, "pull_request_target ") {
				t.Errorf("reason %q does not name pull_request_target", w.Reason)
			}
		})
	}
}
