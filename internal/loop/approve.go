package loop

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/internal/state"
)

// UnknownFindingError is an approval naming no finding the loop knows
// (TR2): nothing is recorded and the maintainer is told the valid ids.
type UnknownFindingError struct {
	Ref string
	// Valid are the ids that can be approved: findings awaiting approval
	// first, else every finding the loop knows.
	Valid []string
}

func (e *UnknownFindingError) Error() string {
	// The id as typed is shown in a code span, so it can mention no one
	// and format nothing when the message is posted on the PR.
	ref := strings.Map(func(r rune) rune {
		if r == '`' || r < ' ' {
			return -1
		}
		return r
	}, e.Ref)
	if len(ref) > 80 {
		ref = ref[:80] + "…"
	}
	if len(e.Valid) == 0 {
		return fmt.Sprintf("approve: `%s` names no finding, and none awaits approval", ref)
	}
	return fmt.Sprintf("approve: `%s` names no finding; valid ids: %s", ref, strings.Join(e.Valid, ", "))
}

// ResolveFindingRef turns what a maintainer typed after `approve` into a
// finding id (TR2): a finding id of the triage table or of the findings
// the cycle sees, or the comment id the status comment lists under
// "findings", which is normalised to its finding's id. Anything else is an
// *UnknownFindingError listing the valid ids.
func ResolveFindingRef(st state.State, known []Finding, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	cid, _ := strconv.ParseInt(ref, 10, 64)
	for _, r := range st.Triage {
		if r.FindingID == ref || (cid != 0 && r.CommentID == cid) {
			return r.FindingID, nil
		}
	}
	for _, f := range known {
		if f.ID == ref || (cid != 0 && f.CommentID == cid) {
			return f.ID, nil
		}
	}
	return "", &UnknownFindingError{Ref: ref, Valid: approvableIDs(st, known)}
}

// approvableIDs lists the Tier 2 rows awaiting approval, or when there is
// none every finding id the loop knows, sorted.
func approvableIDs(st state.State, known []Finding) []string {
	var awaiting, all []string
	for _, r := range st.Triage {
		if awaitingApproval(r.Outcome) {
			awaiting = append(awaiting, r.FindingID)
		}
		all = append(all, r.FindingID)
	}
	if len(awaiting) > 0 {
		slices.Sort(awaiting)
		return slices.Compact(awaiting)
	}
	for _, f := range known {
		all = append(all, f.ID)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// legacyApprovedPending is the outcome triage stored for a Tier 2 row
// awaiting approval before the two names were one; state saved then still
// carries it.
const legacyApprovedPending = "approved-pending"

// awaitingApproval reports whether a triage outcome is a Tier 2 row
// waiting for a maintainer's approval.
func awaitingApproval(outcome string) bool {
	return outcome == OutcomeAwaitingApproval || outcome == legacyApprovedPending
}
