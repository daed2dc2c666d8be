package secret

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

const key = "sk-ant-api03-TB14+secret/value=9f3"

// TB14: a secret is found inside longer text in each form a writer can
// give it, at every offset, and named by its input.
func TestRule_TB14_ASecretIsFoundInEveryEncodingAtEveryOffset(t *testing.T) {
	t.Parallel()
	s := NewSet(Named{Input: "anthropic-api-key", Value: key}, Named{Input: "github-token", Value: "ghs_0123456789abcdef"})
	for pre := range 5 {
		data := []byte(strings.Repeat("x", pre) + key + "tail")
		for name, enc := range map[string]string{
			"raw":        string(data),
			"hex":        hex.EncodeToString(data),
			"HEX":        strings.ToUpper(hex.EncodeToString(data)),
			"base64":     base64.StdEncoding.EncodeToString(data),
			"base64 url": base64.URLEncoding.EncodeToString(data),
			"query":      url.QueryEscape(string(data)),
			"path":       url.PathEscape(string(data)),
			"json":       jsonString(string(data)),
		} {
			if got := s.FindString("before " + enc + " after"); got != "anthropic-api-key" {
				t.Errorf("offset %d, %s: found %q, want anthropic-api-key", pre, name, got)
			}
		}
	}
	if got := s.FindString("nothing here, not even ghs_0123456789abcde"); got != "" {
		t.Errorf("found %q in text without a secret", got)
	}
	if got := s.Find([]byte("Authorization: x-access-token:ghs_0123456789abcdef")); got != "github-token" {
		t.Errorf("found %q, want github-token", got)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A value shorter than MinRaw is not looked for: it would match ordinary
// text.
func TestRule_TB14_AShortValueIsNotLookedFor(t *testing.T) {
	t.Parallel()
	s := NewSet(Named{Input: "push-token", Value: "abc"}, Named{Input: "openai-api-key", Value: ""})
	if got := s.FindString("abc abc"); got != "" {
		t.Fatalf("found %q", got)
	}
	if in := s.Inputs(); len(in) != 0 {
		t.Fatalf("inputs %v, want none", in)
	}
}

// The refusal names the input and never the value.
func TestRule_TB14_TheRefusalNamesTheInputNotTheValue(t *testing.T) {
	t.Parallel()
	e := &Error{Input: "anthropic-api-key", Write: "a reply"}
	for _, m := range []string{e.Error(), e.Reason()} {
		if !strings.Contains(m, "`anthropic-api-key`") || strings.Contains(m, key) {
			t.Errorf("message %q", m)
		}
	}
}

func FuzzFind(f *testing.F) {
	f.Add("prefix")
	f.Fuzz(func(t *testing.T, pre string) {
		s := NewSet(Named{Input: "k", Value: key})
		data := []byte(pre + key)
		for _, enc := range []string{base64.StdEncoding.EncodeToString(data), hex.EncodeToString(data), url.QueryEscape(string(data))} {
			if s.FindString(enc) != "k" {
				t.Fatalf("not found in %q", enc)
			}
		}
	})
}

// TB14: a secret escaped for markdown ("dpl\_key", "a&amp;b", a zero-width
// space after a character) is still the secret a reader sees, in a
// comment and in the JSON body that carries it.
func TestRule_TB14_AnEscapedSecretIsStillFound(t *testing.T) {
	t.Parallel()
	s := NewSet(Named{Input: "DEPLOY_TOKEN", Value: "dpl_a&b<c>_*key*"})
	escaped := `dpl\_a&amp;b&lt;c&gt;\_\*key\*`
	if got := s.FindText("title: " + escaped); got != "DEPLOY_TOKEN" {
		t.Errorf("FindText(%q) = %q", escaped, got)
	}
	body := []byte(`{"body":"title: dpl\\_a&amp;b&lt;c&gt;\\_\\*key\\*"}`)
	if got := s.FindJSON(body); got != "DEPLOY_TOKEN" {
		t.Errorf("FindJSON(%s) = %q", body, got)
	}
	if got := s.FindJSON([]byte(`{"body":"nothing"}`)); got != "" {
		t.Errorf("found %q in a clean body", got)
	}
	esc := func(v string) string {
		return strings.NewReplacer("_", `\_`, "*", `\*`, "&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(v)
	}
	if got := s.Withhold("a "+escaped+" b", esc); strings.Contains(got, "dpl") {
		t.Errorf("Withhold left %q", got)
	}
}

// TB14: a secret cut short where a text was truncated ("…") still leaks
// its first characters: a prefix of MinLen characters or more before a
// truncation mark is a hit, in any form and after markdown escaping; a
// shorter one, or one not at a cut, is not.
func TestRule_TB14_ASecretCutShortByATruncationIsFound(t *testing.T) {
	t.Parallel()
	s := NewSet(Named{Input: "anthropic-api-key", Value: key})
	for name, text := range map[string]string{
		"raw, cut":                  "Leak " + key[:20] + "…",
		"raw, cut at MinLen":        "Leak " + key[:MinLen] + "…",
		"hex, cut":                  "x " + hex.EncodeToString([]byte(key))[:30] + "…",
		"escaped for markdown":      "title " + strings.ReplaceAll(key[:24], "+", "\\+") + "…",
		"before the status cut":     "| row " + key[:16] + "\n\n_… status truncated to fit GitHub's comment size limit_",
		"cut, then more text":       "Leak " + key[:12] + "… and more",
		"cut after spaces trimmed":  "Leak " + key[:12] + " …",
		"json string of a cut text": jsonString("Leak " + key[:12] + "…"),
	} {
		find := s.FindText
		if strings.HasPrefix(name, "json") {
			find = func(t string) string { return s.FindJSON([]byte(t)) }
		}
		if got := find(text); got != "anthropic-api-key" {
			t.Errorf("%s: found %q in %q, want anthropic-api-key", name, got, text)
		}
	}
	for name, text := range map[string]string{
		"prefix shorter than MinLen": "Leak " + key[:MinLen-1] + "…",
		"prefix not at a cut":        "Leak " + key[:20] + " and more",
		"an ellipsis alone":          "wait… what",
	} {
		if got := s.FindText(text); got != "" {
			t.Errorf("%s: found %q in %q, want none", name, got, text)
		}
	}
}

// TB14: a secret of 4 to 7 characters (too short for its encoded forms,
// which would match ordinary text) is still looked for as it is; one of
// fewer than 4 characters cannot be told from ordinary text and is not.
func TestRule_TB14_AShortSecretIsFoundAsItIs(t *testing.T) {
	t.Parallel()
	s := NewSet(Named{Input: "DEPLOY_PIN", Value: "h7Qz2"}, Named{Input: "TINY", Value: "ab1"})
	if got := s.FindString("the pin is h7Qz2 today"); got != "DEPLOY_PIN" {
		t.Errorf("found %q, want DEPLOY_PIN", got)
	}
	if got := s.FindString("hex " + hex.EncodeToString([]byte("h7Qz2"))); got != "" {
		t.Errorf("found %q in the hex of a short secret: its encoded forms are not looked for", got)
	}
	if got := s.FindString("ab1 ab1"); got != "" {
		t.Errorf("found %q: a 3-character value cannot be looked for", got)
	}
	if in := s.Inputs(); len(in) != 1 || in[0] != "DEPLOY_PIN" {
		t.Errorf("inputs %v, want [DEPLOY_PIN]", in)
	}
}

// TB14: withholding a secret from a text that must still be written
// takes out its cut-short prefixes too, escaped or not, so the text
// passes the check.
func TestRule_TB14_WithholdTakesOutACutShortSecret(t *testing.T) {
	t.Parallel()
	s := NewSet(Named{Input: "anthropic-api-key", Value: key})
	esc := func(v string) string { return strings.ReplaceAll(v, "+", "\\+") }
	for _, text := range []string{
		"| Leak " + key[:20] + "… |",
		"| Leak " + esc(key[:24]) + "… |",
		"row " + key[:16] + "\n\n_… status truncated_",
	} {
		got := s.Withhold(text, esc)
		if in := s.FindText(got); in != "" || !strings.Contains(got, "[withheld: anthropic-api-key]") {
			t.Errorf("Withhold(%q) = %q, still holds %q", text, got, in)
		}
	}
}
