package report

import "strings"

// This file makes an error fit for the public status comment (SC5).

// PublicError is the text of err fit for the public status comment
// (SC5): every error in its chain that says what of it is public (a
// failed command, fix.ProcessError: its command and exit status) is
// replaced by that, its output cut out, and the text ends with where the
// full error is: the job log at runURL ("" when the run is not known),
// where the runner masks it.
func PublicError(err error, runURL string) string {
	msg := err.Error()
	var public []publicError
	walkErrors(err, func(e error) {
		if p, ok := e.(publicError); ok {
			public = append(public, p)
		}
	})
	if len(public) == 0 {
		return msg
	}
	for _, p := range public {
		msg = strings.Replace(msg, p.Error(), p.Public(), 1)
	}
	if runURL == "" {
		return msg + "; output in the job log"
	}
	return msg + "; output in the job log: " + runURL
}

// publicError is an error that says what of it may be published.
type publicError interface {
	error
	Public() string
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
