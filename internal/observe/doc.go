// Package observe is what a cycle reads, from GitHub and from the
// checkout, before it decides: the saved state among the PR's comments
// and the proof of who wrote it (SC3, SC4); the engines a repository
// shows (IN2), their views of the PR and the workflow runs they watch;
// the people at work on the PR (HY1); the API budgets (B7) and the live
// loops the sweep visits (SW1); what the convergence rules weigh (the
// commits pushed since the last look, the fix commit's lines, the diff's
// size, fixers at work, generated files: CV1-CV6); each finding's code
// context for the won't-fix memory (WF1); the shared helpers a fix must
// not touch (TR2, TR3); and the repository's config file.
//
// Each read is a plain function over explicit inputs (a client, the PR,
// the observation, the state, a checkout) that returns data; what it has
// to report comes back as values (warnings, notices) or goes to the
// logger it is given, and the caller writes it. Nothing here decides
// what the loop does: that is internal/loop.
package observe
