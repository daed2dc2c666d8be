package state

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Gate is review-loop's own check run (the merge gate, MG1) on one head
// SHA: its id, so a later cycle on the same head updates it rather than
// creating another, and what it last showed, so a cycle writes only when
// that changes. A new head gets a new check run.
type Gate struct {
	SHA string `json:"sha"`
	ID  int64  `json:"id"`
	// Status is in_progress or completed; Conclusion is set when completed.
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	// Digest is a hash of the summary last written, so a changed engine
	// table is written even when the status is the same.
	Digest string `json:"digest,omitempty"`
}

// Ledger is the loop's cost ledger (CL1): what the loop caused, summed
// across its cycles.
type Ledger struct {
	// Requested counts, per engine, the reviews the loop asked for (its
	// triggers that were sent).
	Requested map[string]int `json:"requested,omitempty"`
	// Automatic counts, per engine, the reviews an engine ran by itself on
	// a commit the loop pushed (engines that review every push).
	Automatic map[string]int `json:"automatic,omitempty"`
	// AskedSHA and AutoSHA are, per engine, the last head SHA counted as
	// requested and as automatic: each head is counted once.
	AskedSHA map[string]string `json:"asked_sha,omitempty"`
	AutoSHA  map[string]string `json:"auto_sha,omitempty"`
	// JobMinutes are the Actions minutes of the loop's cycles, each job's
	// wall time rounded up to a whole minute as GitHub bills a job.
	JobMinutes int `json:"job_minutes,omitempty"`
	// Jobs counts the Actions jobs whose minutes are in JobMinutes: one
	// per single-job cycle, two (prepare and publish) per hardened cycle
	// that publishes (C5).
	Jobs int `json:"jobs,omitempty"`
	// Cycles counts the cycles whose minutes are in JobMinutes.
	Cycles int `json:"cycles,omitempty"`
	// IdleJobs counts the jobs in Jobs (and their minutes in JobMinutes)
	// of wakes that wrote nothing (C2), read back as runs of the loop's own
	// workflow (C5).
	IdleJobs int `json:"idle_jobs,omitempty"`
	// RunsAfter is the newest run of the loop's own workflow the ledger
	// has settled (counted, or known to have written it itself), and
	// RunsSince that run's creation time: the next read asks for the runs
	// since then. Wrote are the newer runs that wrote the ledger
	// themselves, counted by their own write. IdleUncounted says why idle
	// wakes could not be read ("" when they were).
	RunsAfter     int64     `json:"runs_after,omitempty"`
	RunsSince     time.Time `json:"runs_since,omitzero"`
	Wrote         []int64   `json:"wrote,omitempty"`
	IdleUncounted string    `json:"idle_uncounted,omitempty"`
	// APIReads and APIWrites count the loop's GitHub API requests.
	APIReads  int64 `json:"api_reads,omitempty"`
	APIWrites int64 `json:"api_writes,omitempty"`
}

func (l *Ledger) clone() *Ledger {
	if l == nil {
		return nil
	}
	c := *l
	c.Requested = maps.Clone(l.Requested)
	c.Automatic = maps.Clone(l.Automatic)
	c.AskedSHA = maps.Clone(l.AskedSHA)
	c.AutoSHA = maps.Clone(l.AutoSHA)
	c.Wrote = slices.Clone(l.Wrote)
	return &c
}

func (l *Ledger) validate() []error {
	if l == nil {
		return nil
	}
	var errs []error
	for name, m := range map[string]map[string]int{"requested": l.Requested, "automatic": l.Automatic} {
		for _, e := range slices.Sorted(maps.Keys(m)) {
			if m[e] < 0 {
				errs = append(errs, fmt.Errorf("state: ledger.%s[%s]: is negative (%d)", name, e, m[e]))
			}
		}
	}
	for _, c := range []counter{{"job_minutes", int64(l.JobMinutes)}, {"jobs", int64(l.Jobs)}, {"idle_jobs", int64(l.IdleJobs)}, {"runs_after", l.RunsAfter}, {"cycles", int64(l.Cycles)}, {"api_reads", l.APIReads}, {"api_writes", l.APIWrites}} {
		if c.v < 0 {
			errs = append(errs, fmt.Errorf("state: ledger.%s: is negative (%d)", c.name, c.v))
		}
	}
	slices.SortFunc(errs, func(a, b error) int {
		if a.Error() < b.Error() {
			return -1
		}
		return 1
	})
	return errs
}
