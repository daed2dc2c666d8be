// Package reap makes sure nothing of a repository command outlives it: no
// process it starts (rule TB8) and no change to the runner's file-command
// files (TB11, RunCommand).
//
// review-loop becomes a child subreaper (Enable, Linux): a process that
// leaves its parent — a background job, a double fork, a `setsid` daemon —
// is re-parented to review-loop instead of init, where review-loop can
// see it. Every child review-loop runs is started through Run (its own
// git) or RunCommand (the repository's commands), which register it while
// it runs; after each command RunCommand kills and reaps every descendant
// that is not inside a registered, still running child. Clear does the
// same on demand — git calls it before every fetch and push — and reports
// a process that could not be killed (one that gained root through sudo,
// say): the caller then refuses to push.
//
// On other systems there is no subreaper: Enable reports it, Run still
// kills the process group of each child when it ends, and Clear cannot see
// a process that left its group.
package reap

import (
	"fmt"
	"os/exec"
	"sync"
)

var (
	mu      sync.Mutex
	enabled bool
	running = map[int]bool{} // pids of registered children still running
)

// Enabled reports whether Enable succeeded in this process.
func Enabled() bool {
	mu.Lock()
	defer mu.Unlock()
	return enabled
}

// Enable makes this process a child subreaper and turns on the sweeps
// after every child. Only the review-loop binary calls it: a test binary
// shares its process with unrelated helpers (a fake server's CGI
// children) that a sweep would kill.
func Enable() error {
	mu.Lock()
	defer mu.Unlock()
	if err := becomeSubreaper(); err != nil {
		return err
	}
	enabled = true
	return nil
}

// Run starts cmd, registered as a running child so no sweep touches it or
// its descendants, and waits for it. It is how review-loop runs its own
// git; RunCommand runs the repository's commands and sweeps after each.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return Wait(cmd)
}

// Start starts cmd and registers it; Wait must follow.
func Start(cmd *exec.Cmd) error {
	mu.Lock()
	defer mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	running[cmd.Process.Pid] = true
	return nil
}

// Wait waits for a cmd started with Start, kills what is left of the
// process group it led, and unregisters it.
func Wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	killGroup(cmd)
	mu.Lock()
	delete(running, cmd.Process.Pid)
	mu.Unlock()
	return err
}

// SurvivorError names the descendants a sweep could not end.
type SurvivorError struct {
	Pids []int
}

func (e *SurvivorError) Error() string {
	return fmt.Sprintf("processes left behind by a command could not be ended (pids %v); a command may have gained another user's rights (TB8)", e.Pids)
}

// Clear kills and reaps every descendant of this process that is not a
// registered running child or inside one. It returns nil when none is left
// and a *SurvivorError otherwise. Without Enable it does nothing.
func Clear() error {
	mu.Lock()
	defer mu.Unlock()
	if !enabled {
		return nil
	}
	return sweep(running)
}

// Strays lists the descendants a sweep would kill now (none without
// Enable); a push asserts it is empty.
func Strays() ([]int, error) {
	mu.Lock()
	defer mu.Unlock()
	if !enabled {
		return nil, nil
	}
	return strays(running)
}
