//go:build unix

package fix

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in its own process group so a timeout
// kills the whole tree (a fixer script's own children included).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
