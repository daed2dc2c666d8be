// Package observe is what a cycle reads from GitHub before it decides:
// the saved state among the PR's comments and the proof of who wrote it
// (SC3, SC4), the engines a repository shows (IN2) and their views of
// the PR, the workflow runs those engines watch, and the API budgets
// (B7). Each read is a plain function over explicit inputs (a client,
// the PR, the observation, the state) that returns data, plus the
// warnings and notices it has to report as values: the caller writes
// them. Nothing here decides what the loop does; that is internal/loop.
package observe
