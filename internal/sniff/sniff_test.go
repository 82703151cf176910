package sniff

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func TestIsBinary(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("hello hello hello"))
	w.Close()
	elf, _ := os.ReadFile("/bin/true")
	png, _ := os.ReadFile("/usr/local/go/src/image/png/testdata/pngsuite/basn6a08.png")
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"ascii", []byte("hello\nworld\n"), false},
		{"utf-8", []byte("héllo 日本 🙂\n"), false},
		{"utf-8 cut at the end", []byte("héllo 日本 🙂")[:17], false},
		{"ansi", []byte("\x1b[31mred\x1b[0m\n"), false},
		{"json", []byte(`{"a": [1, 2, "x"]}`), false},
		{"one latin-1 accent in a long line", append(bytes.Repeat([]byte("word "), 40), 0xe9), false},
		{"postscript, a text language", []byte("%!PS-Adobe-3.0\n%%Title: x\n"), false},
		{"a pdf whose head is all text", []byte("%PDF-1.4\n1 0 obj\n"), true},
		{"a backspace, which format detection calls binary", []byte("hello\bworld\n"), true},
		{"form feed and escape", []byte("page\f\x1b[1mbold\x1b[0m\n"), false},
		{"nul", []byte("abc\x00def"), true},
		{"gzip", gz.Bytes(), true},
		{"elf", elf, true},
		{"png", png, true},
		{"random high bytes", bytes.Repeat([]byte{0xff, 0xfe, 0x80, 0x81}, 100), true},
	}
	for _, tt := range tests {
		if tt.in == nil && tt.name != "empty" {
			continue
		}
		if got := IsBinary(tt.in); got != tt.want {
			t.Errorf("%s: IsBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	png, err := os.ReadFile("/usr/local/go/src/image/png/testdata/pngsuite/basn6a08.png")
	if err != nil {
		t.Skip(err)
	}
	if got := Describe(png); got != "image/png, 32x32" {
		t.Errorf("Describe(png) = %q", got)
	}
}

// The shortcut for plain text decides as format detection would on every
// text output of the corpus.
func TestPlainTextShortcutAgrees(t *testing.T) {
	outs, _ := filepath.Glob("../../testdata/corpus/*/output")
	if len(outs) == 0 {
		t.Fatal("no corpus outputs")
	}
	plain := 0
	for _, p := range outs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		head := b[:min(len(b), Len)]
		if !plainText(head) {
			continue
		}
		plain++
		if detectBinary(head) {
			t.Errorf("%s: plainly text, but format detection calls it binary", p)
		}
	}
	if plain < len(outs)/2 {
		t.Errorf("only %d of %d outputs are plainly text", plain, len(outs))
	}
	for _, s := range []string{"\f", "\x1b", "\t\r\n", "a\fb\n", "\x1b[31mred\x1b[0m", "日本語\t🙂\r\n", "x", "{\"a\": 1}", "<html>", "%!PS"} {
		if !plainText([]byte(s)) {
			t.Errorf("%q is not plainly text", s)
		} else if detectBinary([]byte(s)) && s != "%!PS" {
			t.Errorf("%q: plainly text, but format detection calls it binary", s)
		}
	}
}
