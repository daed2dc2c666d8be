package state

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds the hidden-comment codec and the JSON decoder arbitrary
// comment bodies. Decode must never panic, and whatever it accepts must
// encode again and decode to the same state.
func FuzzDecode(f *testing.F) {
	valid, err := Encode("## status", full())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(valid[:len(valid)-3])
	for _, name := range []string{"v0.json", "v0-one-engine.json", "v7.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "state", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(Marker + "\n" + string(b) + "\n-->")
		f.Add(Marker + " v1\n" + base64.StdEncoding.EncodeToString(b) + "\n-->")
	}
	for _, s := range []string{
		"", Marker, Marker + " v1\n-->", Marker + " v99999999999999999999\n-->",
		Marker + " v1\n" + base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}) + "\n-->",
		"<!-- review-loop:state v1 -->", Marker + "\n{\"version\":1,\"commits\":-5}\n-->",
		Marker + "\n{\"version\":1,\"events\":[{\"ts\":\"not a time\"}]}\n-->",
		Marker + "\n{\"version\":\"1\"}\n-->", Marker + "\n{\"version\":1e400}\n-->",
		Marker + "\n{\"version\":0,\"no_progress\":[1,2]}\n-->",
		Marker + "\n{\"version\":1}\n-->" + Marker + "\n{\"version\":7}\n-->",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		st, found, err := Decode(body)
		if err != nil {
			return
		}
		if !found {
			return
		}
		again, err := Encode("x", st)
		if err != nil {
			return // a state too large for one comment
		}
		st2, found, err := Decode(again)
		if err != nil || !found {
			t.Fatalf("re-decoding our own encoding: found %v err %v", found, err)
		}
		a, _ := json.Marshal(st)
		b, _ := json.Marshal(st2)
		if string(a) != string(b) && st.EventsDropped == st2.EventsDropped {
			t.Fatalf("round trip changed the state\n%s\n%s", a, b)
		}
	})
}
