//go:build unix

package git

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// rootOnly refuses a file that anyone but root could replace: the file or
// its directory owned by another user, or writable by group or others.
func rootOnly(p string) error {
	for _, q := range []string{p, filepath.Dir(p)} {
		fi, err := os.Stat(q)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is not root's alone (mode %v)", q, fi.Mode().Perm())
		}
	}
	return nil
}
