package fixcycle

import (
	"errors"
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
		{"GitHub refuses the branch update (internal/push)", fmt.Errorf("pushing the fix commit: %w", &git.RefusedError{Rule: "B5", Reason: `GitHub refused to move branch "x": Protected branch update failed for refs/heads/x.`}), true},
		{"an outside push is W3, not a refusal", &git.RefusedError{Rule: "W3", Reason: "someone pushed"}, false},
		{"a non-fast-forward update is an error", fmt.Errorf("moving x: %w", errors.New("the branch moved: the update is not a fast-forward")), false},
		{"a network failure is an error", errors.New("could not resolve host"), false},
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
