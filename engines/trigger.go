package engines

import (
	"errors"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// This file holds what a trigger decides apart from sending it: which
// identity posts it (T5) and what the engine's answer means (T6, T8).

// TriggerAsUser reports whether a trigger of an engine with caps is posted
// with the user token: a comment trigger the engine ignores from bots and
// apps (Bugbot, the Claude workflow), when a user token was given.
func TriggerAsUser(caps Capabilities, haveUserToken bool) bool {
	return caps.Trigger == TriggerComment && !caps.AcceptsBotTrigger && haveUserToken
}

// TriggerOutcome is what the answer (id, err) to the trigger req means,
// and whether to send it once more. A trigger refused for a usage, rate
// or quota limit is never retried and is no engine error: the engine
// cools down (T8, loop.RecordTriggers). An engine that cannot be
// triggered with the tokens at hand (ErrTriggerUnavailable) reviews the
// push by itself. Any other failure is retried once (T6); after the
// retry it is the engine's error (res.Err, set on either attempt).
func TriggerOutcome(req loop.TriggerRequest, id int64, err error, now time.Time, retried bool) (res loop.TriggerResult, retry bool) {
	res = loop.TriggerResult{Engine: req.Engine, SHA: req.SHA}
	var q *QuotaError
	switch {
	case err == nil:
		res.SignalID = id
	case errors.As(err, &q):
		res.Quota = &loop.QuotaNotice{At: now, Wait: q.Wait, Text: q.Text}
	case !retried && errors.Is(err, ErrTriggerUnavailable):
		res.Unavailable = true
	default:
		res.Err = err.Error()
		return res, !retried
	}
	return res, false
}
