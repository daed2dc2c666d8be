package bugbot

import (
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines/internal/samples"
)

// TestRule_ST4_MarkersNotPositionsAndExtraFieldsTolerated: the real
// inline comment of sample 01, with its sections moved around, text put
// before it and new trailing fields after it, parses to the same finding.
func TestRule_ST4_MarkersNotPositionsAndExtraFieldsTolerated(t *testing.T) {
	body := samples.Blocks(samples.Get(t, samples.Load(t, "bugbot"), "01-").Text)[0]
	want := ParseFinding(body)
	if want.Key == "" || want.Title == "" || want.Body == "" || len(want.Locations) == 0 {
		t.Fatalf("precondition: the sample parses fully: %+v", want)
	}
	cut := func(start, end string) string {
		i := strings.Index(body, start)
		j := strings.Index(body[max(i, 0):], end)
		if i < 0 || j < 0 {
			t.Fatalf("sample lacks %q…%q", start, end)
		}
		return body[i : i+j+len(end)]
	}
	title := cut("### ", "numerically")
	severity := "**High Severity**"
	desc := cut("<!-- DESCRIPTION START -->", "<!-- DESCRIPTION END -->")
	id := cut("<!-- BUGBOT_BUG_ID:", "-->")
	locs := cut("<!-- LOCATIONS START", "LOCATIONS END -->")
	variants := map[string]string{
		"sections reordered":           strings.Join([]string{title, id, locs, desc, severity}, "\n\n"),
		"extra trailing fields":        body + "\n\n<!-- BUGBOT_CONFIDENCE: 0.92 -->\n<!-- BUGBOT_RULE: sort-order -->\n\nSome newer footer text.\n",
		"text before the markers":      "<!-- cursor-review v3 -->\n" + body,
		"extra lines in the locations": strings.Replace(body, "LOCATIONS END -->", "\nLOCATIONS END -->", 1),
	}
	for name, v := range variants {
		got := ParseFinding(v)
		if got.Title != want.Title || got.Severity != want.Severity || got.Key != want.Key || got.Body != want.Body || !slices.Equal(got.Locations, want.Locations) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}
