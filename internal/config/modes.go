package config

// This file names the values of the `mode` input: how one run of the
// action is spent.

// The modes of a cycle (input mode). Hardened mode (rule TB1) splits one
// cycle into two jobs: prepare holds a read token and no secret and runs
// the repository's commands and the fixer; publish holds the write tokens,
// runs no repository code, and publishes what prepare handed over.
const (
	ModeSingle  = "single"
	ModePrepare = "prepare"
	ModePublish = "publish"
)

// ModeDoctor is the `mode` input of the workflow_dispatch run that checks
// the repository's set-up instead of running a cycle.
const ModeDoctor = "doctor"
