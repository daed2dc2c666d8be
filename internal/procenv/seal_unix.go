//go:build unix

package procenv

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Seal drops every secret from this process's environment before any child
// runs. A process started with secrets in its environment re-executes
// itself (same pid, new image) with a clean environment and the secrets in
// an inherited pipe; the new image reads them back and returns. Seal only
// returns with an error when the secrets could not be dropped: the caller
// must then stop, never run a command.
func Seal() (*Sealed, error) {
	if fd, ok := os.LookupEnv(FDEnv); ok {
		s, err := receive(fd, os.Getenv)
		if err != nil {
			return nil, err
		}
		protect()
		return s, nil
	}
	secret, clean := split(os.Environ())
	if len(secret) == 0 {
		protect()
		return &Sealed{getenv: os.Getenv}, nil
	}
	data := encode(secret)
	if len(data) > maxSecrets {
		return nil, fmt.Errorf("dropping secrets from the environment: %d bytes of secrets exceed %d", len(data), maxSecrets)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("dropping secrets from the environment: %w", err)
	}
	// The pipe buffer holds the secrets until the new image reads them.
	if _, err := w.Write(data); err != nil {
		return nil, fmt.Errorf("dropping secrets from the environment: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("dropping secrets from the environment: %w", err)
	}
	fd := r.Fd()
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, 0); errno != 0 {
		return nil, fmt.Errorf("dropping secrets from the environment: keeping the pipe open across exec: %w", errno)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("dropping secrets from the environment: finding this binary: %w", err)
	}
	env := append(clean, FDEnv+"="+strconv.FormatUint(uint64(fd), 10))
	err = syscall.Exec(exe, os.Args, env)
	return nil, fmt.Errorf("dropping secrets from the environment: re-executing %s: %w", exe, err)
}
