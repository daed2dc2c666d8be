package procenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
)

// Sealed is the environment of a process that has dropped its secrets:
// Getenv serves the secrets from memory and everything else from the
// process environment.
type Sealed struct {
	secrets map[string]string
	getenv  func(string) string
}

// Getenv returns a variable's value, secrets included.
func (s *Sealed) Getenv(key string) string {
	if v, ok := s.secrets[key]; ok {
		return v
	}
	return s.getenv(key)
}

// Secrets returns a copy of the secret variables held in memory, by name.
func (s *Sealed) Secrets() map[string]string { return maps.Clone(s.secrets) }

// Len is the number of secrets held in memory.
func (s *Sealed) Len() int { return len(s.secrets) }

// encode writes NUL-terminated KEY=VALUE pairs (an environment value
// cannot hold a NUL).
func encode(kvs []string) []byte {
	var b bytes.Buffer
	for _, kv := range kvs {
		b.WriteString(kv)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func decode(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if len(kv) == 0 {
			continue
		}
		k, v, ok := strings.Cut(string(kv), "=")
		if !ok || k == "" {
			return nil, errors.New("malformed secret entry")
		}
		out[k] = v
	}
	return out, nil
}

// split separates env into secret and clean variables.
func split(env []string) (secret, clean []string) {
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if Secret(k) {
			secret = append(secret, kv)
		} else if k != FDEnv {
			clean = append(clean, kv)
		}
	}
	return secret, clean
}

// receive reads the secrets a sealed parent image left on the file
// descriptor named in FDEnv, then closes it and removes the variable.
func receive(fdText string, getenv func(string) string) (*Sealed, error) {
	os.Unsetenv(FDEnv)
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q is not a file descriptor", FDEnv, fdText)
	}
	f := os.NewFile(uintptr(fd), "review-loop-secrets")
	if f == nil {
		return nil, fmt.Errorf("%s=%d is not open", FDEnv, fd)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecrets+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the secrets pipe: %w", err)
	}
	secrets, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("reading the secrets pipe: %w", err)
	}
	return &Sealed{secrets: secrets, getenv: getenv}, nil
}
