//go:build unix

package push

import "syscall"

// noFollow opens a file without following a symbolic link at its last
// component, and without blocking on a FIFO.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
