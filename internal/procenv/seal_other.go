//go:build !unix

package procenv

import (
	"os"
	"strings"
)

// Seal on a system without execve in place keeps the secrets in memory
// and removes them from the environment children inherit; the process's
// own initial environment cannot be rewritten there.
func Seal() (*Sealed, error) {
	secret, _ := split(os.Environ())
	s := &Sealed{secrets: map[string]string{}, getenv: os.Getenv}
	for _, kv := range secret {
		k, v, _ := strings.Cut(kv, "=")
		s.secrets[k] = v
		os.Unsetenv(k)
	}
	return s, nil
}
