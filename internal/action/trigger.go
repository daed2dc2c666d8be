package action

import (
	"context"
	"errors"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file carries out the trigger effect (T1, T5, T6, T8): one request
// per engine, skipping a duplicate, retrying once, cooling down on a quota.

// triggerAll fires each requested trigger (T1), skipping our identical
// recent one (T5) and retrying a failure once after a delay (T6).
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
	c.ledgerTriggers(results)
}

func (c *prCycle) triggerOne(ctx context.Context, e engines.Engine, req loop.TriggerRequest) loop.TriggerResult {
	res := loop.TriggerResult{Engine: req.Engine, SHA: req.SHA}
	gh, ourLogin, userToken := engines.GitHub(c.gh), c.obs.ViewerLogin, false
	caps := e.Capabilities()
	if caps.Trigger == engines.TriggerComment && !caps.AcceptsBotTrigger && c.trigger != nil {
		gh, userToken = c.trigger, true
		ourLogin = "" // the trigger identity is a user; T5 compares bodies from any of us
	}
	if body := e.TriggerBody(); body != "" && len(c.obs.IssueComments) > 0 {
		last := c.obs.IssueComments[len(c.obs.IssueComments)-1]
		author := ourLogin
		if author == "" {
			author = last.Author.Login
		}
		lc := loop.Comment{ID: last.DatabaseID, Author: last.Author.Login, Body: last.Body, CreatedAt: last.CreatedAt}
		if loop.ShouldSkipDuplicateTrigger(c.st, req, lc, author, body, c.Now(), c.loopCfg.DuplicateWindow) {
			res.Skipped, res.SignalID = true, last.DatabaseID
			return res
		}
	}
	pr := engines.PRRef{Owner: c.owner, Repo: c.repo, Number: c.number, UserToken: userToken}
	id, err := e.Trigger(ctx, gh, pr)
	if q := quotaOf(err, c.Now()); q != nil {
		// T8: a quota refusal is not retried and is no engine error; the
		// loop cools the engine down (loop.RecordTriggers).
		c.Log.Warn("trigger refused for a quota; cooling down", "engine", req.Engine, "err", err)
		res.Quota = q
		return res
	}
	if errors.Is(err, engines.ErrTriggerUnavailable) {
		// The engine reviews pushes by itself; the loop waits for that run.
		c.Log.Info("trigger unavailable; relying on the engine's automatic run", "engine", req.Engine)
		res.Unavailable = true
		return res
	}
	if err != nil {
		c.Log.Warn("trigger failed; retrying once", "engine", req.Engine, "err", err)
		if serr := c.Sleep(ctx, c.TriggerRetryDelay); serr != nil {
			res.Err = serr.Error()
			return res
		}
		c.waited += c.TriggerRetryDelay
		if id, err = e.Trigger(ctx, gh, pr); err != nil {
			if q := quotaOf(err, c.Now()); q != nil {
				res.Quota = q
				return res
			}
			res.Err = err.Error()
			c.gha.Warningf("review-loop: triggering %s failed twice: %v", req.Engine, err)
			return res
		}
	}
	res.SignalID = id
	return res
}

// quotaOf is the quota notice of a trigger refused for a usage, rate or
// quota limit (T8), nil for any other outcome.
func quotaOf(err error, now time.Time) *loop.QuotaNotice {
	var q *engines.QuotaError
	if !errors.As(err, &q) {
		return nil
	}
	return &loop.QuotaNotice{At: now, Wait: q.Wait, Text: q.Text}
}
