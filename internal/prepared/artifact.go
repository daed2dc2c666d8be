package prepared

import (
	"fmt"
	"os"
	"path/filepath"
)

// This file lays out the artifact directory the prepare job hands to the
// publish job: one directory per PR, and a note of the run.

// Dir is where a PR's artifact lives inside the artifact directory.
func Dir(artifactDir string, number int) string {
	return filepath.Join(artifactDir, fmt.Sprintf("pr-%d", number))
}

// Mark creates the artifact directory with a note of the run, so that a
// run that prepares no PR still leaves an artifact to hand over.
func Mark(artifactDir, repository string, runID int64) error {
	if err := os.MkdirAll(artifactDir, 0o755); err != nil {
		return fmt.Errorf("creating the artifact directory: %w", err)
	}
	note := fmt.Sprintf("prepared by review-loop for %s, run %d\n", repository, runID)
	if err := os.WriteFile(filepath.Join(artifactDir, "prepared.txt"), []byte(note), 0o644); err != nil {
		return fmt.Errorf("writing the artifact directory: %w", err)
	}
	return nil
}
