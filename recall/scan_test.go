package recall

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

// scanAll runs a scanner over all of obj and returns the matching lines.
func scanAll(t *testing.T, obj store.Object, re *regexp.Regexp, fast bool) []int64 {
	t.Helper()
	doc := NewDoc(obj)
	var src io.ReaderAt = obj
	if fast {
		ahead := newReadAhead(obj, obj.Size(), store.ChunkSize)
		defer ahead.close()
		src = ahead
	}
	sc := newScanner(doc, obj, src, re, 0, 1)
	if fast {
		sc.prefilter()
	} else {
		sc.chunkNL = nil // count lines as a result without a line index
	}
	var got []int64
	for {
		m, ok, err := sc.next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return got
		}
		got = append(got, m.line)
	}
}

// The scan with its literal prefilter and its parallel read-ahead finds the
// lines a line-by-line match finds, across chunk boundaries and past lines
// longer than a block.
func TestScanFindsWhatEachLineMatches(t *testing.T) {
	var b bytes.Buffer
	for i := 1; b.Len() < 3<<20+300_000; i++ {
		switch {
		case i == 3000:
			b.WriteString(strings.Repeat("long line ", 150_000) + "needle-in-long\n")
		case i%997 == 0:
			fmt.Fprintf(&b, "%d rare-needle ERROR status=500\n", i)
		case i%13 == 0:
			fmt.Fprintf(&b, "%d 日本語 Word wOrD\n", i)
		case i%5 == 0:
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "2026-11-29T12:00:%02d INFO served /api/v1/items/%d status=200 bytes=%d\n", i%60, i, i*37)
		}
	}
	b.WriteString("last line without newline rare-needle")
	data := b.Bytes()
	st := testStore(t)
	ref := put(t, st, data)
	obj, err := st.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	lines := strings.Split(string(data), "\n")
	for _, pat := range []string{`rare-needle`, `needle-in-long`, `(?i)word`, `bytes=\d+7$`, `^$`, `rare|long`,
		`(rare)-needle+ ERROR`, `served /api/v1/items/123\d`, `crumb-bench-no-such-line-[0-9]{12}`,
		`e`, `0 `, `items/99`, `日本`, `without newline rare-needle`, `crumb-bench-no-such-line`} {
		re, err := Compile(GrepSpec{Pattern: pat})
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for i, l := range lines {
			if i == len(lines)-1 && l == "" {
				break
			}
			if re.MatchString(l) {
				want = append(want, int64(i+1))
			}
		}
		if got := scanAll(t, obj, re, true); !equalLines(got, want) {
			t.Errorf("%q: the fast scan finds %d lines %v, each line alone %d %v", pat, len(got), head(got), len(want), head(want))
		}
		if got := scanAll(t, obj, re, false); !equalLines(got, want) {
			t.Errorf("%q: the plain scan finds %d lines %v, each line alone %d %v", pat, len(got), head(got), len(want), head(want))
		}
	}
}

func equalLines(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func head(s []int64) []int64 { return s[:min(len(s), 5)] }

func TestRequiredLiteral(t *testing.T) {
	for _, tt := range []struct{ pat, want string }{
		{`rare-needle`, "rare-needle"},
		{`crumb-bench-no-such-line-[0-9]{12}`, "crumb-bench-no-such-line-"},
		{`(?i)error`, ""},
		{`foo|bar`, ""},
		{`a(bcd)+e`, "bcd"},
		{`x\d+longer-part`, "longer-part"},
		{`ab?c`, ""},
		{`(?:status=)?500`, "500"},
		{`\x{FFFD}abc`, ""}, // U+FFFD matches invalid bytes too
	} {
		re := regexp.MustCompile("(?m)" + tt.pat)
		if got := string(requiredLiteral(re)); got != tt.want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", tt.pat, got, tt.want)
		}
	}
}

func TestFinder(t *testing.T) {
	for _, tt := range []struct{ text, lit string }{
		{"", "a"}, {"a", "a"}, {"xxa", "a"}, {"abcabd", "abd"}, {"zzz-q", "z-q"}, {"qqqq", "qqqqq"},
		{"eeee eeeq", "eeq"}, {"The status=500 status=200 ", "status=200 "}, {"日本語 日本", "本語"},
	} {
		want := strings.Index(tt.text, tt.lit)
		if got := newFinder([]byte(tt.lit)).index([]byte(tt.text)); got != want {
			t.Errorf("index of %q in %q = %d, want %d", tt.lit, tt.text, got, want)
		}
	}
}

func TestWholeLiteral(t *testing.T) {
	for _, tt := range []struct {
		pat  string
		want bool
	}{{`needle`, true}, {`a\.b`, true}, {`(?i)needle`, false}, {`^needle`, false}, {`needle$`, false}, {`a.b`, false}, {`\x{FFFD}`, false}, {"a\nb", false}} {
		re, err := Compile(GrepSpec{Pattern: tt.pat})
		if err != nil {
			t.Fatal(err)
		}
		if _, got := wholeLiteral(re); got != tt.want {
			t.Errorf("wholeLiteral(%q) = %v, want %v", tt.pat, got, tt.want)
		}
	}
}
