//go:build unix

package reap

import (
	"os/exec"
	"syscall"
)

// killGroup kills what is left of the process group a child led (one
// started with Setpgid).
func killGroup(cmd *exec.Cmd) {
	if a := cmd.SysProcAttr; a != nil && a.Setpgid && a.Pgid == 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
