package prepared

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// This file is the hand-over of hardened mode as one text (TB16): the
// prepare job's artifact directory packed into the step output
// `prepared`, which the workflow passes to the publish job as the job
// output of prepare (needs.prepare.outputs.prepared). No step runs in the
// prepare job after the one that ran the repository's code — no
// upload-artifact a command could have rewritten — and the publish job
// downloads nothing. The runner itself carries the text from job to job.

// MaxBundle bounds the packed text: GitHub keeps at most 1 MB of a job's
// outputs.
const MaxBundle = 1_000_000

// bundleName are the only files a bundle holds.
var bundleName = regexp.MustCompile(`^(prepared\.txt|pr-[1-9][0-9]{0,9}/(` + regexp.QuoteMeta(DecisionsFile) + `|` + regexp.QuoteMeta(PatchFile) + `))$`)

// maxBundleFile bounds one file of a bundle: a patch at its limit, with
// room for the decisions.
const maxBundleFile = 2 * (1 << 20)

// maxBundleFiles bounds a bundle's files: the note and two files for each
// PR one run may prepare (a sweep visits far fewer).
const maxBundleFiles = 1 + 2*64

// Pack packs the artifact directory (prepared.txt and each pr-N's
// decisions and patch) into one text: a gzipped tar, base64. A directory
// that would not fit MaxBundle is refused with the size it has.
func Pack(artifactDir string) (string, error) {
	var names []string
	err := filepath.WalkDir(artifactDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(artifactDir, p)
		rel = filepath.ToSlash(rel)
		if d.Type().IsRegular() && bundleName.MatchString(rel) {
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("packing the prepared cycle: %w", err)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range names {
		b, err := readRegular(filepath.Join(artifactDir, filepath.FromSlash(n)))
		if err != nil {
			return "", fmt.Errorf("packing the prepared cycle: %w", err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return "", err
		}
		if _, err := tw.Write(b); err != nil {
			return "", err
		}
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		return "", err
	}
	out := base64.StdEncoding.EncodeToString(buf.Bytes())
	if len(out) > MaxBundle {
		return "", fmt.Errorf("the prepared cycle packs to %d characters, over the %d a job output holds; lower max-patch-bytes", len(out), MaxBundle)
	}
	return out, nil
}

// Unpack writes the bundle text into dir, which must not exist: only the
// files a bundle may hold, regular, each within its bound. Anything else
// — another name, a link, a directory entry, a path out of dir, a file
// twice — refuses the whole bundle and leaves nothing behind. Read then
// checks the files as it checks a downloaded artifact.
func Unpack(text, dir string) (err error) {
	if len(text) > MaxBundle {
		return fmt.Errorf("the prepared hand-over is %d characters, over %d", len(text), MaxBundle)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return fmt.Errorf("the prepared hand-over is not base64: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("the prepared hand-over is not gzip: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("unpacking the prepared hand-over: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	tr := tar.NewReader(zr)
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("the prepared hand-over: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !bundleName.MatchString(h.Name) || seen[h.Name] || h.Size < 0 || h.Size > maxBundleFile {
			return fmt.Errorf("refusing the prepared hand-over: it holds %q (type %c, %d bytes), which a prepared cycle never holds", h.Name, h.Typeflag, h.Size)
		}
		seen[h.Name] = true
		if len(seen) > maxBundleFiles {
			return fmt.Errorf("refusing the prepared hand-over: it holds more than %d files", maxBundleFiles)
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxBundleFile+1))
		if err != nil {
			return fmt.Errorf("the prepared hand-over: %w", err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}
