package docimg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
)

// sourceKey is the keyword of the PNG tEXt chunk that names the page a
// screenshot was taken from.
const sourceKey = "review-loop-source"

// SourceID is the digest of a page as stamped into its screenshot.
func SourceID(page []byte) string {
	sum := sha256.Sum256(page)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Finish turns a raw screenshot into the committed picture: the blank
// margin below the page's content is cut off (the browser window is taller
// than the page), and the digest of the page it shows is stamped into a
// tEXt chunk, which the tests compare with the committed page.
func Finish(raw, page []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decoding the screenshot: %w", err)
	}
	img = trimBottom(img, 16)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding the picture: %w", err)
	}
	return stamp(buf.Bytes(), SourceID(page))
}

// trimBottom cuts the rows below the last one that differs from the
// bottom-left pixel, keeping margin rows.
func trimBottom(img image.Image, margin int) image.Image {
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Max.Y-1)
	br, bgG, bb, ba := bg.RGBA()
	last := b.Min.Y
	for y := b.Max.Y - 1; y >= b.Min.Y && last == b.Min.Y; y-- {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if r != br || g != bgG || bl != bb || a != ba {
				last = y
				break
			}
		}
	}
	bottom := min(last+1+margin, b.Max.Y)
	type subImager interface {
		SubImage(image.Rectangle) image.Image
	}
	if s, ok := img.(subImager); ok {
		return s.SubImage(image.Rect(b.Min.X, b.Min.Y, b.Max.X, bottom))
	}
	return img
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// stamp inserts a tEXt chunk right after IHDR.
func stamp(p []byte, source string) ([]byte, error) {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4
	if len(p) < ihdrEnd || !bytes.Equal(p[:8], pngSignature) || string(p[12:16]) != "IHDR" {
		return nil, errors.New("not a PNG with an IHDR chunk")
	}
	data := append([]byte(sourceKey+"\x00"), source...)
	chunk := make([]byte, 0, 12+len(data))
	chunk = binary.BigEndian.AppendUint32(chunk, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := make([]byte, 0, len(p)+len(chunk))
	out = append(out, p[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, p[ihdrEnd:]...), nil
}

// SourceOf reads the page digest stamped into a picture.
func SourceOf(p []byte) (string, error) {
	if len(p) < 8 || !bytes.Equal(p[:8], pngSignature) {
		return "", errors.New("not a PNG")
	}
	for i := 8; i+12 <= len(p); {
		n := int(binary.BigEndian.Uint32(p[i:]))
		typ := string(p[i+4 : i+8])
		if i+12+n > len(p) {
			return "", fmt.Errorf("chunk %s at byte %d runs past the end", typ, i)
		}
		data := p[i+8 : i+8+n]
		if typ == "tEXt" {
			if key, val, ok := bytes.Cut(data, []byte{0}); ok && string(key) == sourceKey {
				return string(val), nil
			}
		}
		if typ == "IEND" {
			break
		}
		i += 12 + n
	}
	return "", fmt.Errorf("no %s stamp: the picture was not made by scripts/screenshots", sourceKey)
}
