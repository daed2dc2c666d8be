package prepared

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bundleOf packs tar entries by hand, as a compromised prepare job could.
func bundleOf(t testing.TB, entries ...tar.Header) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		body := strings.Repeat("x", int(h.Size))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TB16: the prepared cycle travels as one text and comes back as the same
// files, which Read then checks as it checks an artifact.
func TestRule_TB16_TheHandOverRoundTrips(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	if err := Mark(src, "octo/app", 9); err != nil {
		t.Fatal(err)
	}
	d := Decisions{Repo: "octo/app", PR: 7, HeadSHA: strings.Repeat("a", 40), Action: "fix", Fix: &Fix{Changed: []string{"a.go"}, Commit: true}}
	patch := []byte("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n")
	if err := Write(Dir(src, 7), d, patch, nil); err != nil {
		t.Fatal(err)
	}
	// A file a prepared cycle never holds is left out.
	if err := os.WriteFile(filepath.Join(src, "extra.sh"), []byte("evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	text, err := Pack(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "in")
	if err := Unpack(text, dst); err != nil {
		t.Fatal(err)
	}
	got, gotPatch, err := Load(Dir(dst, 7), "octo/app", 7)
	if err != nil || got == nil {
		t.Fatalf("Load: %v, %v", got, err)
	}
	if got.HeadSHA != d.HeadSHA || !bytes.Equal(gotPatch, patch) {
		t.Errorf("round trip: %+v %q", got, gotPatch)
	}
	if _, err := os.Stat(filepath.Join(dst, "extra.sh")); err == nil {
		t.Error("the bundle carried a file a prepared cycle never holds")
	}
}

// TB16: a hand-over that holds anything but a prepared cycle's files —
// another name, a link, a path out of the directory, a file twice, an
// oversized file — is refused whole and leaves nothing behind.
func TestRule_TB16_AForgedHandOverIsRefused(t *testing.T) {
	t.Parallel()
	reg := func(name string, size int64) tar.Header {
		return tar.Header{Name: name, Size: size, Mode: 0o644, Typeflag: tar.TypeReg}
	}
	for name, text := range map[string]string{
		"another name":   bundleOf(t, reg("pr-1/run.sh", 3)),
		"a path out":     bundleOf(t, reg("../pr-1/patch", 3)),
		"a symlink":      bundleOf(t, tar.Header{Name: "pr-1/" + PatchFile, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}),
		"a file twice":   bundleOf(t, reg("prepared.txt", 1), reg("prepared.txt", 1)),
		"too large":      bundleOf(t, reg("pr-1/"+PatchFile, maxBundleFile+1)),
		"not base64":     "%%%",
		"not gzip":       base64.StdEncoding.EncodeToString([]byte("plain")),
		"over the bound": strings.Repeat("A", MaxBundle+4),
	} {
		dst := filepath.Join(t.TempDir(), "in")
		if err := Unpack(text, dst); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, err := os.Stat(dst); err == nil {
			t.Errorf("%s: left %s behind", name, dst)
		}
	}
}

// FuzzUnpack: no hand-over makes Unpack write outside its directory or
// panic.
func FuzzUnpack(f *testing.F) {
	f.Add(bundleOf(f, tar.Header{Name: "prepared.txt", Size: 2, Mode: 0o644, Typeflag: tar.TypeReg}))
	f.Add(bundleOf(f, tar.Header{Name: "../x", Size: 1, Mode: 0o644, Typeflag: tar.TypeReg}))
	f.Add("H4sIAAAAAAAA/w==")
	f.Fuzz(func(t *testing.T, text string) {
		root := t.TempDir()
		dst := filepath.Join(root, "in")
		_ = Unpack(text, dst)
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.Name() != "in" {
				t.Fatalf("Unpack wrote %s outside its directory", e.Name())
			}
		}
	})
}
