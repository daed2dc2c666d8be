package action

import (
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/fix"
)

// This file makes an error fit for the public status comment (SC5).

// publicError is the text of err fit for the public state comment (SC5):
// every command failure in it keeps its command and exit status, its
// output is cut out and replaced by the link to the job log, where the
// full error (masked by the runner) is printed.
func (c *prCycle) publicError(err error) string {
	msg := err.Error()
	var procs []*fix.ProcessError
	walkErrors(err, func(e error) {
		if pe, ok := e.(*fix.ProcessError); ok {
			procs = append(procs, pe)
		}
	})
	if len(procs) == 0 {
		return msg
	}
	for _, pe := range procs {
		msg = strings.Replace(msg, pe.Error(), pe.Public(), 1)
	}
	if link := c.jobLogURL(); link != "" {
		msg += "; output in the job log: " + link
	} else {
		msg += "; output in the job log"
	}
	return msg
}

// jobLogURL is the run's page: GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID.
func (c *prCycle) jobLogURL() string {
	if c.cfg.RunID == 0 {
		return ""
	}
	server := strings.TrimRight(c.cfg.ServerURL, "/")
	if server == "" {
		server = "https://github.com"
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", server, c.owner, c.repo, c.cfg.RunID)
}

// walkErrors calls fn on err and every error it wraps, joined ones included.
func walkErrors(err error, fn func(error)) {
	if err == nil {
		return
	}
	fn(err)
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walkErrors(e, fn)
		}
	case interface{ Unwrap() error }:
		walkErrors(u.Unwrap(), fn)
	}
}
