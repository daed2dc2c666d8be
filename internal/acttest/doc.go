// Package acttest tests action.yml end to end, the way users meet
// review-loop: it serves the fake GitHub (internal/ghfake) on loopback, runs
// the example workflow users copy from the README through nektos/act in host
// mode, and then reads the fake's state to see what the action did.
//
// The package holds tests only. They need an act binary and skip without
// one: set REVIEW_LOOP_ACT to the binary's path, or to 1 with act on PATH.
// REVIEW_LOOP_ACT=required (act on PATH) turns a missing act into a failure,
// as CI does.
package acttest
