package fixcycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/secret"
)

// This file is what refuses the cycle's one commit (B5): the publish
// caps and TB9 checked once more before it, and the refusals of the
// commit and the push told from their errors.

// Caps are the publish caps: max-patch-files and max-patch-bytes, and
// the secrets no commit may hold (TB14).
type Caps struct {
	MaxFiles, MaxBytes int
	Secrets            *secret.Set
}

// CheckCommit says why the outcome's commit is refused, "" when it may
// be made: over the publish caps (the patch the publish job read, or in
// a single job the checkout's diff of the files to commit), or holding a
// file no fix may claim (TB9). A refused change is restored in the
// checkout.
func (o Outcome) CheckCommit(ctx context.Context, g *git.Runner, caps Caps) (string, error) {
	why, patch, err := o.overCaps(ctx, g, caps)
	if err == nil && why == "" {
		if in := SecretIn(caps.Secrets, patch, o.Result); in != "" {
			why = secret.Reason(in, "the fix commit")
		}
	}
	if err == nil && why == "" {
		why = CommitRefusal(o.Result, o.ByID)
	}
	if err != nil || why != "" {
		_ = g.RestoreAll(ctx)
	}
	return why, err
}

func (o Outcome) overCaps(ctx context.Context, g *git.Runner, caps Caps) (string, []byte, error) {
	if n := len(o.Result.Changed); n > caps.MaxFiles {
		return fmt.Sprintf("refused (publish caps): the fix changes %d files, over max-patch-files %d; nothing was pushed — fix these findings by hand or raise the cap", n, caps.MaxFiles), nil, nil
	}
	patch := o.patch
	if !o.prepared {
		var err error
		if patch, err = Diff(ctx, g, o.Result.Changed); err != nil {
			return "", nil, err
		}
	}
	if n := len(patch); n > caps.MaxBytes {
		return fmt.Sprintf("refused (publish caps): the fix patch is %d bytes, over max-patch-bytes %d; nothing was pushed — fix these findings by hand or raise the cap", n, caps.MaxBytes), patch, nil
	}
	return "", patch, nil
}

// SecretIn returns the input whose secret the fix's output holds, "" when
// none (TB14): the patch, or any text the fixer wrote that review-loop
// would post or hand over (its replies, its reasons, the paths it reports).
func SecretIn(s *secret.Set, patch []byte, cyc fix.CycleResult) string {
	if in := s.Find(patch); in != "" {
		return in
	}
	texts, _ := json.Marshal(struct {
		Results  []fix.Result
		Reverted []fix.Revert
		Changed  []string
	}{cyc.Results, cyc.Reverted, cyc.Changed})
	return s.Find(texts)
}

// CommitRefusal is TB9 once more, at the commit, whatever produced the
// change (the fix pipeline, or the prepare job's patch the publish job
// checked): it says why a file the commit would hold is never committed,
// "" when every one may be.
func CommitRefusal(cyc fix.CycleResult, byID map[string]loop.Finding) string {
	onPath := map[string]bool{}
	for _, id := range cyc.Fixed() {
		onPath[byID[id].Path] = true
	}
	for _, p := range cyc.Changed {
		if why := fix.CommitRefusal(p, onPath[p]); why != "" {
			return fmt.Sprintf("refused (TB9): the fix commit would change %s: %s; nothing was pushed", report.Plain(p, 200), why)
		}
	}
	return ""
}

// PushRefusal reports whether err is B5 refusing the cycle's commit or
// push: our guard's refusal (the API says the branch is protected or is
// the default branch), or GitHub's refusal of the branch update (a
// protected branch, a ruleset), which internal/push reports as B5. A
// branch that moved (W3) or a failed request is no refusal: it stays an
// error.
func PushRefusal(err error) (string, bool) {
	var re *git.RefusedError
	if errors.As(err, &re) && re.Rule == "B5" {
		return re.Error(), true
	}
	return "", false
}
