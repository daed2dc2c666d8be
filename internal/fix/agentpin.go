package fix

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// AgentPin is the agent CLI review-loop recorded before any repository
// command ran (TB11): its path as found on PATH, the file that path
// resolves to, and that file's SHA-256. The CLI gets the API key only
// while all three still hold.
type AgentPin struct {
	// Name is the CLI's name (claude, codex).
	Name string
	// Path is where it was found; empty when it was not on PATH.
	Path string
	// Real is Path with every symbolic link resolved.
	Real string
	// SHA256 is the hex digest of Real's content.
	SHA256 string
	// Interpreters are the files that run the CLI: the interpreter its
	// shebang names, the program an env shebang finds on PATH (the npm
	// claude and codex CLIs are `#!/usr/bin/env node` scripts, so this
	// node gets the API key), and theirs in turn. Empty for a native CLI.
	Interpreters []PinnedFile
	// Err says why nothing was recorded.
	Err error
}

// PinnedFile is one interpreter of the agent CLI as it was recorded.
type PinnedFile struct {
	// Path is where it was found: the path a shebang names, or where
	// env finds the program a shebang names on the child PATH.
	Path string
	// Real is Path with every symbolic link resolved.
	Real string
	// SHA256 is the hex digest of Real's content.
	SHA256 string
	// Runs is the file whose shebang leads to it.
	Runs string
}

// PinAgent records the agent CLI name as the child PATH in env finds it.
// want, when set, is the digest the install step recorded: a CLI whose
// content differs is refused already here.
func PinAgent(name string, env []string, want string) *AgentPin {
	p := &AgentPin{Name: name}
	path, err := lookPathIn(name, env)
	if err != nil {
		p.Err = err
		return p
	}
	real, sum, err := digestFile(path)
	if err != nil {
		p.Err = err
		return p
	}
	if want != "" && sum != want {
		p.Err = fmt.Errorf("%s resolves to %s, whose SHA-256 %s is not the %s recorded when the action installed it", path, real, sum, want)
		return p
	}
	chain, err := interpreters(real, env)
	if err != nil {
		p.Err = fmt.Errorf("recording the interpreter that runs %s: %w", real, err)
		return p
	}
	p.Path, p.Real, p.SHA256, p.Interpreters = path, real, sum, chain
	return p
}

// Verify refuses a CLI that is not, byte for byte and at the same place,
// the one recorded: a command that replaced the binary on PATH, or put
// another one before it, does not get the API key.
func (p *AgentPin) Verify(env []string) (string, error) {
	refuse := func(why string) (string, error) {
		return "", fmt.Errorf("refusing to run %s with the API key (TB11): %s", p.Name, why)
	}
	if p.Err != nil {
		return refuse("no trusted CLI was recorded before the repository's commands ran: " + p.Err.Error())
	}
	path, err := lookPathIn(p.Name, env)
	if err != nil {
		return refuse(err.Error())
	}
	if path != p.Path {
		return refuse(fmt.Sprintf("%s is now found at %s, not at %s where it was recorded; a command may have put another one on PATH", p.Name, path, p.Path))
	}
	real, sum, err := digestFile(path)
	if err != nil {
		return refuse(err.Error())
	}
	if real != p.Real || sum != p.SHA256 {
		return refuse(fmt.Sprintf("%s (%s) changed since it was recorded (SHA-256 %s, now %s); a command may have replaced it", path, real, p.SHA256, sum))
	}
	chain, err := interpreters(real, env)
	if err != nil {
		return refuse(fmt.Sprintf("the interpreter that runs %s: %v", real, err))
	}
	for i, was := range p.Interpreters {
		if i >= len(chain) {
			return refuse(fmt.Sprintf("%s no longer runs under %s, recorded before the repository's commands ran", was.Runs, was.Path))
		}
		now := chain[i]
		if now.Path != was.Path {
			return refuse(fmt.Sprintf("%s now runs under %s, not under %s where its interpreter was recorded; a command may have put another one on PATH", was.Runs, now.Path, was.Path))
		}
		if now.Real != was.Real || now.SHA256 != was.SHA256 {
			return refuse(fmt.Sprintf("the interpreter %s that runs %s changed since it was recorded (SHA-256 %s, now %s); a command may have replaced it", where(was.Path, now.Real), was.Runs, was.SHA256, now.SHA256))
		}
	}
	if len(chain) > len(p.Interpreters) {
		extra := chain[len(p.Interpreters)]
		return refuse(fmt.Sprintf("%s now runs under %s, which was not recorded; a command may have replaced an interpreter", extra.Runs, extra.Path))
	}
	return real, nil
}

// where is path, and the file it resolves to when that is another.
func where(path, real string) string {
	if real == path {
		return path
	}
	return path + " (" + real + ")"
}

// maxInterpreters bounds the interpreter chain as Linux bounds nested
// script interpreters.
const maxInterpreters = 4

// interpreters follows the shebangs from the file real: the interpreter
// each names, recorded by path and digest, and for an env shebang the
// program env finds on env's PATH (then that program's own shebang). A
// shebang review-loop cannot follow exactly as the kernel and env would
// is an error: what runs with the key must be known.
func interpreters(real string, env []string) ([]PinnedFile, error) {
	var chain []PinnedFile
	file := real
	for {
		interp, arg, ok, err := readShebang(file)
		if err != nil {
			return nil, err
		}
		if !ok {
			return chain, nil
		}
		if len(chain) >= maxInterpreters {
			return nil, fmt.Errorf("more than %d nested interpreters", maxInterpreters)
		}
		if !filepath.IsAbs(interp) {
			return nil, fmt.Errorf("the shebang of %s names %q, which is not an absolute path", file, interp)
		}
		ireal, isum, err := digestFile(interp)
		if err != nil {
			return nil, fmt.Errorf("the shebang of %s: %w", file, err)
		}
		chain = append(chain, PinnedFile{Path: interp, Real: ireal, SHA256: isum, Runs: file})
		next := ireal
		if filepath.Base(interp) == "env" {
			prog, err := envProgram(arg)
			if err != nil {
				return nil, fmt.Errorf("the shebang of %s: %w", file, err)
			}
			path, err := lookInterpreter(prog, env)
			if err != nil {
				return nil, fmt.Errorf("the shebang of %s: %w", file, err)
			}
			preal, psum, err := digestFile(path)
			if err != nil {
				return nil, fmt.Errorf("the shebang of %s: %w", file, err)
			}
			chain = append(chain, PinnedFile{Path: path, Real: preal, SHA256: psum, Runs: file})
			next = preal
		}
		file = next
	}
}

// shebangMax is how much of a file Linux reads for its shebang
// (BINPRM_BUF_SIZE).
const shebangMax = 256

// readShebang reads a `#!interpreter [argument]` first line as Linux
// does: at most the first 256 bytes, the argument being the rest of the
// line as one string.
func readShebang(file string) (interp, arg string, ok bool, err error) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", false, err
	}
	defer f.Close()
	buf := make([]byte, shebangMax)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", "", false, err
	}
	buf = buf[:n]
	if !bytes.HasPrefix(buf, []byte("#!")) {
		return "", "", false, nil
	}
	line, _, found := bytes.Cut(buf[2:], []byte("\n"))
	if !found && n == shebangMax {
		return "", "", false, fmt.Errorf("the shebang of %s is longer than the kernel reads", file)
	}
	fields := strings.TrimSpace(string(line))
	interp, arg, _ = strings.Cut(strings.ReplaceAll(fields, "\t", " "), " ")
	if interp == "" {
		return "", "", false, fmt.Errorf("the shebang of %s names no interpreter", file)
	}
	return interp, strings.TrimSpace(arg), true, nil
}

// envProgram is the program an env shebang runs: `env prog` or
// `env -S prog args…`. Anything else (options, variable assignments that
// could change PATH) is refused rather than guessed at.
func envProgram(arg string) (string, error) {
	word := arg
	if rest, ok := strings.CutPrefix(arg, "-S"); ok {
		words := strings.Fields(rest)
		if len(words) == 0 {
			return "", errors.New("env -S names no program")
		}
		word = words[0]
	}
	switch {
	case word == "":
		return "", errors.New("env names no program")
	case strings.HasPrefix(word, "-"), strings.Contains(word, "="):
		return "", fmt.Errorf("env is given %q, which review-loop does not follow; the interpreter could not be pinned", word)
	case strings.ContainsAny(word, " \t"):
		return "", fmt.Errorf("env is given %q, one program name with spaces", word)
	case strings.ContainsRune(word, '/') && !filepath.IsAbs(word):
		return "", fmt.Errorf("env is given the relative path %q", word)
	}
	return word, nil
}

// lookInterpreter finds name as env(1) does, through execvp and the PATH
// of env. A relative or empty PATH entry searched before name is found
// would make the result depend on the directory the agent runs in (the
// checkout): it is refused.
func lookInterpreter(name string, env []string) (string, error) {
	if filepath.IsAbs(name) {
		if isExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	pathVar, set := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "PATH" {
			pathVar, set = v, true
		}
	}
	if !set {
		return "", fmt.Errorf("no PATH to find %s on", name)
	}
	for _, dir := range strings.Split(pathVar, string(os.PathListSeparator)) {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("the PATH entry %q, searched for %s before any absolute one has it, is relative to the directory the agent runs in", dir, name)
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on PATH", name)
}

// digestFile resolves path's symbolic links and hashes the file.
func digestFile(path string) (real, sum string, err error) {
	real, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", err
	}
	f, err := os.Open(real)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", err
	}
	return real, hex.EncodeToString(h.Sum(nil)), nil
}
