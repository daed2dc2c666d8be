package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// SystemPath is the PATH of every git child: the system's directories,
// which only root may write on a runner image. The job's PATH is not
// used: on GitHub's runners it starts with $HOME/.local/bin, which the
// job's user (and so every repository command) can write (TB13).
const SystemPath = "/usr/bin:/bin:/usr/sbin:/sbin:/usr/local/bin"

var (
	systemGitOnce sync.Once
	systemGit     string
	systemGitErr  error
)

// SystemGit is the git binary review-loop runs: the first git in
// SystemPath's directories that only root can replace (the file and its
// directory owned by root, writable by no one else), resolved once, the
// first time it is asked for. The shell calls it before any repository
// command runs; every git child of the process is that file.
func SystemGit() (string, error) {
	systemGitOnce.Do(func() { systemGit, systemGitErr = findGit(filepath.SplitList(SystemPath)) })
	return systemGit, systemGitErr
}

// findGit is the first git in dirs that only root can replace.
func findGit(dirs []string) (string, error) {
	var why []string
	for _, d := range dirs {
		p, err := filepath.EvalSymlinks(filepath.Join(d, "git"))
		if err != nil {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		if err := rootOnly(p); err != nil {
			why = append(why, err.Error())
			continue
		}
		return p, nil
	}
	msg := fmt.Sprintf("git: no git in %s that only root can replace (TB13)", strings.Join(dirs, ", "))
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return "", fmt.Errorf("%s", msg)
}
