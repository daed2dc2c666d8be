package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// This file encodes the status comment a cycle writes: the report, the
// hash of what it says that lets an idle wake write nothing (C2), the
// claim that makes one run own a cycle, and the hidden state.

// RulesURL is the rules page the status comment links rule ids to.
const RulesURL = "https://github.com/review-loop/review-loop/blob/main/docs/rules.md"

// ClaimMarker prefixes the claim token hidden in the status comment; the
// token says which run wrote the comment last.
const ClaimMarker = "<!-- review-loop:claim "

// contentMarker prefixes the hash of what the status comment says apart
// from which run wrote it and when: the state and the report rendered
// without the run's link and clock (C2).
const contentMarker = "<!-- review-loop:content "

// content is the hash contentMarker carries for in's comment.
func content(in Input) (string, error) {
	in.RunURL, in.Now = "", time.Time{}
	// The last cycle's plan says what the cycle that writes did; a cycle
	// with nothing new to say writes nothing, whatever it planned (C2).
	st := in.State.Clone()
	st.LastCycle = nil
	in.State = st
	body, err := state.Encode(StatusComment(in), st)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:12]), nil
}

// StatusBody is the status comment of in written by the run whose claim
// token is claim: the report, the hash of what it says (C2), the claim,
// and in.State hidden.
func StatusBody(in Input, claim string) (string, error) {
	sum, err := content(in)
	if err != nil {
		return "", fmt.Errorf("encoding the state: %w", err)
	}
	visible := StatusComment(in) + "\n" + contentMarker + sum + " -->\n" + ClaimMarker + claim + " -->"
	body, err := state.Encode(visible, in.State)
	if err != nil {
		return "", fmt.Errorf("encoding the state: %w", err)
	}
	return body, nil
}

// SaysAlready reports whether the status comment body already says what
// in would (C2): the same state and report, whichever run wrote it and
// when. Then an idle wake writes nothing.
func SaysAlready(body string, in Input) bool {
	sum, err := content(in)
	return err == nil && markerValue(body, contentMarker) == sum
}

// ClaimOf returns the claim token in a status comment body, or "".
func ClaimOf(body string) string { return markerValue(body, ClaimMarker) }

// markerValue returns the value of the last hidden marker in a status
// comment body, or "".
func markerValue(body, marker string) string {
	i := strings.LastIndex(body, marker)
	if i < 0 {
		return ""
	}
	token, _, _ := strings.Cut(body[i+len(marker):], " -->")
	return token
}
