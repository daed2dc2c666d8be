//go:build unix && !linux

package procenv

// protect has no portable equivalent outside Linux.
func protect() {}
