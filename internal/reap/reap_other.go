//go:build !linux

package reap

import "errors"

// becomeSubreaper: only Linux has PR_SET_CHILD_SUBREAPER (FreeBSD's
// procctl(PROC_REAP_ACQUIRE) is not wired). Elsewhere a process that
// leaves its command's process group is not seen; run repository commands
// in hardened mode there (README, "Security model").
func becomeSubreaper() error {
	return errors.New("this system has no child subreaper: processes that leave a command's process group are not ended (TB8)")
}

func strays(map[int]bool) ([]int, error) { return nil, nil }

func sweep(map[int]bool) error { return nil }
