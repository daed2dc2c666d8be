package actionyml

import (
	"strings"
)

// HelpText renders the inputs as the plain-text table `review-loop --help`
// shows: each input with its default and its description, wrapped.
func HelpText(inputs []Input) string {
	var b strings.Builder
	for _, in := range inputs {
		b.WriteString("  " + in.Name)
		if in.Default != nil && *in.Default != "" {
			b.WriteString(" (default: " + oneLine(*in.Default) + ")")
		}
		if in.Required {
			b.WriteString(" (required)")
		}
		b.WriteString("\n")
		for _, l := range wrap(oneLine(in.Description), 72) {
			b.WriteString("      " + l + "\n")
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func wrap(s string, width int) []string {
	var lines []string
	var cur string
	for _, w := range strings.Fields(s) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
