// Package fixcycle is the work of a cycle's fix effect (E4) in the
// checkout: the triage of the plan's findings, the fix pipeline (or, in
// hardened mode's publish job, the prepare job's checked patch), the
// triage rows the state records, the notices of what the commit leaves
// out, and the checks before the one commit: the publish caps and TB9's
// claimed files. It writes nothing to GitHub and saves no state: its
// inputs are values, and its results, notices and warnings included, are
// returned for the caller to record.
package fixcycle
