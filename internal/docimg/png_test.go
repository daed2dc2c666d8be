package docimg

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

func rawShot(t testing.TB, w, h, contentRows int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if y < contentRows && x == w/2 {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFinish_CropsTheBlankBottomAndStampsThePage(t *testing.T) {
	t.Parallel()
	out, err := Finish(rawShot(t, 40, 300, 100), []byte("<p>page</p>"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("the finished picture is no PNG: %v", err)
	}
	if h := img.Bounds().Dy(); h != 100+16 {
		t.Errorf("height %d, want the 100 content rows and a 16-row margin", h)
	}
	src, err := SourceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := SourceID([]byte("<p>page</p>")); src != want {
		t.Errorf("stamp %q, want %q", src, want)
	}
	if other := SourceID([]byte("<p>other</p>")); src == other {
		t.Error("two pages share a stamp")
	}
}

func TestSourceOf_RefusesAnUnstampedPicture(t *testing.T) {
	t.Parallel()
	if _, err := SourceOf(rawShot(t, 4, 4, 1)); err == nil || !strings.Contains(err.Error(), "no review-loop-source stamp") {
		t.Errorf("err = %v, want the missing stamp named", err)
	}
	if _, err := SourceOf([]byte("GIF89a")); err == nil {
		t.Error("a GIF was read as a PNG")
	}
}

func FuzzSourceOf(f *testing.F) {
	stamped, err := Finish(rawShot(f, 4, 8, 2), []byte("x"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stamped)
	f.Add(rawShot(f, 4, 4, 1))
	f.Add([]byte("\x89PNG\r\n\x1a\n\xff\xff\xff\xfftEXt"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = SourceOf(b)
	})
}
