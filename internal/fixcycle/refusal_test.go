package fixcycle

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/git"
)

func TestRule_B5_RefusalsAreToldFromErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"our guard refuses a protected branch", fmt.Errorf("committing: %w", &git.RefusedError{Rule: "B5", Reason: `branch "x" is protected`}), true},
		{"the remote answers GH006", &git.PushError{Branch: "x", Rejected: true,
			Output: "remote: error: GH006: Protected branch update failed for refs/heads/x.\n ! [remote rejected] HEAD -> x (protected branch hook declined)"}, true},
		{"an outside push is W3, not a refusal", &git.RefusedError{Rule: "W3", Reason: "someone pushed"}, false},
		{"a non-fast-forward rejection is an error", &git.PushError{Branch: "x", Rejected: true, Output: " ! [rejected] HEAD -> x (fetch first)"}, false},
		{"a network failure is an error", &git.PushError{Branch: "x", Output: "could not resolve host"}, false},
		{"no error", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, got := PushRefusal(tt.err); got != tt.want {
				t.Errorf("PushRefusal(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
