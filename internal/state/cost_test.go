package state

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// C1: encoding the state reuses its compressor: a new gzip writer
// allocates ~830 KB, and a cycle encodes the state several times.
// Averaged over 200 calls, an Encode allocates well under one writer's
// tables: ~18 KB, ~240 KB under the race detector, whose sync.Pool drops
// a quarter of what is put back (a collection may empty it too).
func TestRule_C1_EncodingTheStateReusesItsCompressor(t *testing.T) {
	st := full()
	if _, err := Encode("visible", st); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 200
	for range runs {
		if _, err := Encode("visible", st); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / runs
	t.Logf("%d bytes allocated per Encode", per)
	if per > 512<<10 {
		t.Errorf("Encode allocates %d bytes a call, want ≤ 512 KiB: a new compressor each time", per)
	}
}

// SC1: a reused compressor writes exactly what a new one writes.
func TestRule_SC1_AReusedCompressorWritesWhatANewOneWrites(t *testing.T) {
	st := full()
	st.Version = Version
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	_, _ = zw.Write(js)
	_ = zw.Close()
	want := base64.StdEncoding.EncodeToString(gz.Bytes())
	for i := range 3 {
		body, err := Encode("visible", st)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.ReplaceAll(body[strings.Index(body, Marker):], "\n", ""); !strings.Contains(got, want) {
			t.Fatalf("encoding %d differs from a new compressor's", i)
		}
	}
}
