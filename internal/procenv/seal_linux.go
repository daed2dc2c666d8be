package procenv

import "syscall"

// protect marks the process non-dumpable: its /proc/<pid>/mem, environ and
// fd entries become root's, so a same-user child cannot read the secrets
// from its parent's memory even where ptrace is unrestricted. A child
// starts dumpable again (exec resets the flag), which it needs nothing for.
func protect() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
}
