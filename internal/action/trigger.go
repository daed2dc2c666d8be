package action

import (
	"context"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file sends the trigger effect (T1): one request per engine, the
// duplicate (T5) and the answer's meaning (T6, T8) decided in pure code
// (loop.SkipTrigger, engines.TriggerOutcome); the shell sends, and sleeps
// before the one retry.

// triggerAll fires each requested trigger (T1) and records the results.
func (c *prCycle) triggerAll(ctx context.Context, reqs []loop.TriggerRequest) {
	var results []loop.TriggerResult
	for _, req := range reqs {
		e, ok := c.registry.Lookup(req.Engine)
		if !ok {
			continue
		}
		results = append(results, c.triggerOne(ctx, e, req))
	}
	c.st = loop.RecordTriggers(c.st, results, c.Now())
	c.st = loop.LedgerTriggers(c.st, results)
}

func (c *prCycle) triggerOne(ctx context.Context, e engines.Engine, req loop.TriggerRequest) loop.TriggerResult {
	asUser := engines.TriggerAsUser(e.Capabilities(), c.trigger != nil)
	gh := engines.GitHub(c.gh)
	if asUser {
		gh = c.trigger
	}
	var last loop.Comment
	if n := len(c.obs.IssueComments); n > 0 {
		l := c.obs.IssueComments[n-1]
		last = loop.Comment{ID: l.DatabaseID, Author: l.Author.Login, Body: l.Body, CreatedAt: l.CreatedAt}
	}
	if id, skip := loop.SkipTrigger(c.st, req, last, c.obs.ViewerLogin, asUser, e.TriggerBody(), c.Now(), c.loopCfg.DuplicateWindow); skip {
		return loop.TriggerResult{Engine: req.Engine, SHA: req.SHA, Skipped: true, SignalID: id}
	}
	pr := engines.PRRef{Owner: c.owner, Repo: c.repo, Number: c.number, UserToken: asUser}
	id, err := e.Trigger(ctx, gh, pr)
	res, retry := engines.TriggerOutcome(req, id, err, c.Now(), false)
	if retry {
		c.Log.Warn("trigger failed; retrying once", "engine", req.Engine, "err", err)
		if serr := c.Sleep(ctx, c.TriggerRetryDelay); serr != nil {
			res.Err = serr.Error()
			return res
		}
		c.waited += c.TriggerRetryDelay
		id, err = e.Trigger(ctx, gh, pr)
		res, _ = engines.TriggerOutcome(req, id, err, c.Now(), true)
	}
	switch {
	case res.Quota != nil:
		c.Log.Warn("trigger refused for a quota; cooling down", "engine", req.Engine, "err", err)
	case res.Unavailable:
		c.Log.Info("trigger unavailable; relying on the engine's automatic run", "engine", req.Engine)
	case res.Err != "":
		c.gha.Warningf("review-loop: triggering %s failed twice: %v", req.Engine, err)
	}
	return res
}
