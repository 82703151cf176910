package mcpproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// decodeString decodes a quoted JSON string with stringReader, reading
// through a window of size bytes.
func decodeString(t testing.TB, quoted []byte, size int) ([]byte, error) {
	t.Helper()
	return io.ReadAll(newStringReaderSize(bytes.NewReader(quoted), 0, int64(len(quoted)), size))
}

func TestStringReader(t *testing.T) {
	for _, s := range []string{
		``, `plain`, `a\nb\tc\"d\\e\/f\bg\fh\ri`, `\u00e9\u4e16\uD83D\uDE00 done`,
		`lone \uD83D high`, `lone \uDE00 low`, `\uD83D\uD83D\uDE00`, "caf\xc3\xa9 \xff\xfe bad",
		"cut rune " + string(bytes.Repeat([]byte("é"), 40)), `\\\\\\\\`,
	} {
		quoted := []byte(`"` + s + `"`)
		var want string
		if err := json.Unmarshal(quoted, &want); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		for _, size := range []int{16, 17, 64 << 10} {
			got, err := decodeString(t, quoted, size)
			if err != nil || string(got) != want {
				t.Errorf("%q (window %d): got %q, %v; want %q", s, size, got, err, want)
			}
		}
	}
}

func TestStringReaderMalformed(t *testing.T) {
	for _, s := range []string{`"\x"`, `"\u12"`, `"abc\"`} {
		if _, err := decodeString(t, []byte(s), 16); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
}

func FuzzStringReader(f *testing.F) {
	f.Add("a\\nb", 16)
	f.Add(`\uD83D\uDE00\u00e9`, 17)
	f.Add("caf\xc3\xa9\xff", 19)
	f.Fuzz(func(t *testing.T, s string, size int) {
		quoted := []byte(`"` + s + `"`)
		var want string
		if json.Unmarshal(quoted, &want) != nil {
			return
		}
		size = 16 + (size&0xff+256)%256
		got, err := decodeString(t, quoted, size)
		if err != nil || string(got) != want {
			t.Errorf("%q (window %d): got %q, %v; want %q", s, size, got, err, want)
		}
	})
}

// TestStringReaderBounded: decoding a long string in reads of 256 KiB, as
// the store reads, holds about one read, not the string.
func TestStringReaderBounded(t *testing.T) {
	quoted := []byte(`"` + strings.Repeat(`a line of text\n`, 300000) + `"`)
	d := newStringReader(bytes.NewReader(quoted), 0, int64(len(quoted)))
	p := make([]byte, 256<<10)
	n := 0
	for {
		k, err := d.Read(p)
		n += k
		if cap(d.buf) > 1<<20 {
			t.Fatalf("after %d bytes the decoder holds %d", n, cap(d.buf))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if n != 300000*len("a line of text\n") {
		t.Errorf("decoded %d bytes", n)
	}
}
