package fix

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	// Err says why nothing was recorded.
	Err error
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
	p.Path, p.Real, p.SHA256 = path, real, sum
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
	return real, nil
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
