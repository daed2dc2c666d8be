// Package procenv keeps credentials away from the commands review-loop runs
// (rule TB1).
//
// Two mechanisms work together:
//
//   - Seal, called first in main, moves every secret variable out of the
//     process environment. The kernel shows a process's initial environment
//     in /proc/<pid>/environ to every process of the same user, so deleting a
//     variable with os.Unsetenv is not enough: Seal writes the secrets into a
//     pipe, clears close-on-exec on the pipe's read end and re-executes the
//     binary in place (execve on the same pid) with an environment that holds
//     no secret. The new image reads the pipe once at start-up, closes it and
//     serves the secrets from memory through the Getenv it returns. No
//     ancestor of a child command holds a token in its environment: the
//     composite action starts the binary with `exec`, so the shell step is
//     replaced by review-loop rather than waiting as its parent.
//   - Child builds the environment of every child process (test, lint,
//     setup, fixer and judge commands, and git) from one allow-list, so a
//     variable nobody thought of never reaches a command by default.
package procenv

import (
	"strings"
)

// FDEnv names the variable that tells the re-executed binary which file
// descriptor holds its secrets.
const FDEnv = "REVIEW_LOOP_SECRETS_FD"

// maxSecrets bounds what Seal carries through the pipe: a pipe buffers
// 64 KiB on Linux and the write happens before exec, with no reader yet.
const maxSecrets = 60 << 10

// Secret reports whether an environment variable carries a credential: a
// token, key, password or secret by its name, whatever its prefix
// (INPUT_GITHUB-TOKEN, GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN,
// INPUT_ANTHROPIC-API-KEY, ANTHROPIC_API_KEY, NPM_TOKEN...).
func Secret(key string) bool {
	k := strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "ACCESS_KEY", "CREDENTIAL"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	// A personal access token variable: FOO_PAT, PAT_FOO, PAT.
	for _, part := range strings.Split(k, "_") {
		if part == "PAT" {
			return true
		}
	}
	return false
}

// allowExact are the variables every child command receives when present.
var allowExact = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "HOSTNAME": true,
	"LANG": true, "LANGUAGE": true, "TERM": true, "TZ": true, "PWD": true,
	"TMPDIR": true, "TMP": true, "TEMP": true,
	"CI": true, "GITHUB_ACTIONS": true, "GITHUB_WORKSPACE": true, "GITHUB_REPOSITORY": true,
	"GITHUB_REPOSITORY_OWNER": true, "GITHUB_SHA": true, "GITHUB_REF": true, "GITHUB_REF_NAME": true,
	"GITHUB_HEAD_REF": true, "GITHUB_BASE_REF": true, "GITHUB_EVENT_NAME": true, "GITHUB_SERVER_URL": true,
	"GITHUB_RUN_ID": true, "GITHUB_RUN_NUMBER": true, "GITHUB_RUN_ATTEMPT": true, "GITHUB_JOB": true,
	"RUNNER_OS": true, "RUNNER_ARCH": true, "RUNNER_TOOL_CACHE": true, "RUNNER_DEBUG": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true,
	"GIT_CONFIG_NOSYSTEM": true, "GIT_TERMINAL_PROMPT": true,
	"VIRTUAL_ENV": true, "PYTHONPATH": true,
}

// allowPrefix are the families of build and toolchain variables children
// receive: Go (GOPATH, GOCACHE, GOFLAGS, GOTOOLCHAIN...), cgo, locale, XDG
// directories, common language toolchains, and review-loop's own
// non-secret variables (REVIEW_LOOP_FINDINGS, REVIEW_LOOP_JUDGE_INPUT).
var allowPrefix = []string{
	"GO", "CGO_", "LC_", "XDG_", "JAVA_HOME", "CARGO_", "RUSTUP_", "RUSTFLAGS", "NODE_OPTIONS", "NODE_ENV",
	"PIP_", "PYTHON", "GRADLE_", "MAVEN_", "DOTNET_", "REVIEW_LOOP_",
}

// Allowed reports whether a variable may reach a child command: it is on
// the allow-list and it is not a secret (Secret wins over every prefix).
func Allowed(key string) bool {
	if key == "" || Secret(key) || key == FDEnv {
		return false
	}
	if allowExact[key] {
		return true
	}
	for _, p := range allowPrefix {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// Child returns the environment of a child process built from base: only
// allow-listed variables, never a secret. It is the one filter used for
// the test, lint, setup, fixer and judge commands and for git; a caller
// appends the few variables a particular child needs (the fixer's
// REVIEW_LOOP_FINDINGS) after it. No child gets a token or an API key: a
// future fixer that needs a key must receive it explicitly from its
// caller, never from this filter.
func Child(base []string) []string {
	out := make([]string, 0, len(base))
	for _, kv := range base {
		k, _, ok := strings.Cut(kv, "=")
		if ok && Allowed(k) {
			out = append(out, kv)
		}
	}
	return out
}
