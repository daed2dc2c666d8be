package event

import (
	"encoding/json"
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
