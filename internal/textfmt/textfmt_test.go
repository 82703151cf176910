package textfmt

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInt(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234", 100000: "100,000", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Int(in); got != want {
			t.Errorf("Int(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 KB", 51_234_567: "51.2 MB", 1_100_000_000: "1.1 GB"} {
		if got := Size(in); got != want {
			t.Errorf("Size(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tkept\r", "tab\tkept"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b]0;title\x07after", "after"},
		{"50%\r100%", "100%"},
		{"done\r", "done"},
		{"nul\x00bell\x07", "nul^@bell^G"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"日本語", "日本語"},
		{"del\x7f", "del^?"},
		{"c1 \u0085 ctl", "c1 \uFFFD ctl"},
	}
	for _, tt := range tests {
		if got := CleanLine([]byte(tt.in)); got != tt.want {
			t.Errorf("CleanLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzCleanLine(f *testing.F) {
	f.Add([]byte("\x1b[1;2mx\r\xffy\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := CleanLine(b)
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 out: %q", s)
		}
		for _, r := range s {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("control character %U out: %q", r, s)
			}
		}
	})
}

func TestCutUTF8(t *testing.T) {
	s := []byte("aé日🙂")
	for n := 0; n <= len(s); n++ {
		got := CutUTF8(s, n)
		if len(got) > n || !utf8.Valid(got) {
			t.Errorf("CutUTF8(%q, %d) = %q", s, n, got)
		}
	}
}

// ClipStart keeps the longest end of s within n bytes that starts on a
// character, and marks the cut.
func TestClipStart(t *testing.T) {
	s := "aé日🙂"
	for n := 0; n <= len(s)+1; n++ {
		got := ClipStart(s, n, "…")
		kept := strings.TrimPrefix(got, "…")
		if len(kept) > n || !utf8.ValidString(kept) || !strings.HasSuffix(s, kept) || (got == kept) != (n >= len(s)) {
			t.Errorf("ClipStart(%q, %d) = %q", s, n, got)
		}
		if n > 0 && n < len(s) && len(kept)+utf8.UTFMax <= n {
			t.Errorf("ClipStart(%q, %d) = %q: it kept too little", s, n, got)
		}
	}
}
