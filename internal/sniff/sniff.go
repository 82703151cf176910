// Package sniff tells what content is from its bytes, whatever a call
// declared it to be and whichever carrier brought it: binary or text (and
// what a binary is, so that no raw byte of it ever reaches a view), and
// what a text is — a test runner's report, a compiler's diagnostics, a
// crash, JSON, HTML, Markdown or a listing of paths (see TextOf) — so that
// each gets the evidence rules of its own kind.
package sniff

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif"  // register GIF for image.DecodeConfig
	_ "image/jpeg" // register JPEG for image.DecodeConfig
	_ "image/png"  // register PNG for image.DecodeConfig
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
	_ "golang.org/x/image/webp" // register WebP for image.DecodeConfig
)

// Len is how many leading bytes the sniffers look at.
const Len = 8192

// MIME returns the detected media type of content that begins with head, such
// as "image/png" or "text/plain; charset=utf-8".
func MIME(head []byte) string {
	return mimetype.Detect(head).String()
}

// IsBinary reports whether content that begins with head is binary: it holds
// a NUL byte, more than a trace of invalid UTF-8, other control bytes in bulk,
// or starts with the magic number of a known binary format. Content that is
// plainly text (valid UTF-8 without a control byte that text lacks) is text
// whatever its first bytes spell, and costs no format detection.
func IsBinary(head []byte) bool {
	if len(head) > Len {
		head = head[:Len]
	}
	if len(head) == 0 || plainText(head) && !bytes.HasPrefix(head, pdfMagic) {
		return false
	}
	return detectBinary(head)
}

// pdfMagic opens a PDF, a binary container even when its first bytes are
// all text.
var pdfMagic = []byte("%PDF-")

// detectBinary is IsBinary of a head that is not plainly text.
func detectBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if !isText(mimetype.Detect(head)) {
		return true
	}
	// A multi-byte sequence cut at the end of the sample is not evidence.
	body := trimPartialRune(head)
	bad, ctl := 0, 0
	for i := 0; i < len(body); {
		c := body[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && !textControl(c) {
				ctl++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		i += size
	}
	// Tolerate a few stray bytes in a log (or Latin-1 accents); reject
	// content that is mostly not text.
	return bad*30 > len(body) || bad > 64 && bad*100 > len(body) || ctl*20 > len(body)
}

// plainText reports whether head is valid UTF-8 (but for a sequence cut at
// its end) without any control byte but newline, carriage return, tab, form
// feed and escape: text that format detection takes for text too (it takes
// a backspace for binary).
func plainText(head []byte) bool {
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b {
			return false
		}
	}
	return utf8.Valid(trimPartialRune(head))
}

// textControl reports whether the control byte c occurs in text, a few
// of them at least.
func textControl(c byte) bool {
	return c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0x1b || c == '\b'
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if !utf8.RuneStart(c) {
			continue
		}
		if c >= utf8.RuneSelf && !utf8.FullRune(b[len(b)-i:]) {
			return b[:len(b)-i]
		}
		break
	}
	return b
}

func isText(m *mimetype.MIME) bool {
	for ; m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return true
		}
	}
	return false
}

// Describe names binary content that begins with head for a view: its media
// type and, for images, their size in pixels ("image/png, 640x480").
func Describe(head []byte) string {
	m := mimetype.Detect(head)
	s := m.String()
	if strings.HasPrefix(s, "image/") {
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(head)); err == nil {
			s += fmt.Sprintf(", %dx%d", cfg.Width, cfg.Height)
		}
	}
	return s
}
