package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file turns a decision's why (loop.Plan.Why, written for the record
// as "W1(d): waiting for bugbot (T4: no fix while …)") into a sentence a
// reader who has not learnt the rule ids can follow: the words first, the
// rules it cites at its end — plain ids on a terminal, links to
// docs/rules.md in markdown.

// ruleRef is one rule id as a why cites it: W1, W1(d), ST5, CV2.
const ruleRef = `(?:IN|SC|ST|TB|TR|DD|WF|HY|MG|CL|CI|SW|CV|EQ|LW|B|C|E|H|J|R|S|T|W)[0-9]{1,2}(?:\([a-z]\))?`

var (
	// whyLead is the ids a why opens with: "W1(d): ", "T1/T2: ".
	whyLead = regexp.MustCompile(`^(` + ruleRef + `(?:/` + ruleRef + `)*): `)
	// whyAside is a parenthesis that cites a rule: "(S3)", "(T4: no fix …)".
	whyAside = regexp.MustCompile(`\s*\((` + ruleRef + `(?:/` + ruleRef + `)*)(?:: ([^()]*))?\)`)
	// ruleRefRe is one id, for the links.
	ruleRefRe = regexp.MustCompile(`^([A-Z]{1,2}[0-9]{1,2})(\([a-z]\))?$`)
)

// WhySentence is why as a sentence that ends with the rules it cites, for
// a terminal: "Waiting for bugbot to finish reviewing the head: no fix
// while any engine is TRIGGERED or RUNNING (W1(d), T4)." A why that cites
// no rule is only made a sentence. Untrusted parts (engine names) are
// made plain (Plain).
func WhySentence(why string) string {
	text, ids := splitWhy(Plain(why, 0))
	if len(ids) == 0 {
		return text
	}
	return strings.TrimSuffix(text, ".") + " (" + strings.Join(ids, ", ") + ")."
}

// WhyMarkdown is WhySentence for markdown: the text escaped (Escape, at
// most max runes), each rule id a link to its entry of the rules page.
func WhyMarkdown(why, rulesURL string, max int) string {
	text, ids := splitWhy(Plain(why, max))
	text = Escape(text, 0)
	if len(ids) == 0 {
		return text
	}
	links := make([]string, 0, len(ids))
	for _, id := range ids {
		links = append(links, ruleLink(id, rulesURL))
	}
	return strings.TrimSuffix(text, ".") + " (" + strings.Join(links, ", ") + ")."
}

// ruleLink is [W1(d)](rules#w1): the anchor is the rule's heading, W1,
// whatever branch of it the why names.
func ruleLink(id, rulesURL string) string {
	m := ruleRefRe.FindStringSubmatch(id)
	if m == nil || rulesURL == "" {
		return Escape(id, 0)
	}
	return fmt.Sprintf("[%s](%s#%s)", id, rulesURL, strings.ToLower(m[1]))
}

// splitWhy separates the words of a why from the rule ids it cites, in
// the order cited: the lead ids, then each aside's, whose words stay
// after a colon.
func splitWhy(why string) (string, []string) {
	why = strings.TrimSpace(why)
	var ids []string
	add := func(list string) {
		for _, id := range strings.Split(list, "/") {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if m := whyLead.FindStringSubmatch(why); m != nil {
		add(m[1])
		why = why[len(m[0]):]
	}
	why = whyAside.ReplaceAllStringFunc(why, func(aside string) string {
		m := whyAside.FindStringSubmatch(aside)
		add(m[1])
		if strings.TrimSpace(m[2]) == "" {
			return ""
		}
		return ": " + strings.TrimSpace(m[2])
	})
	return sentence(why), ids
}

// sentence starts s with a capital and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}
