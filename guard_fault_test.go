//go:build linux

package crumb_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/storefault"
	"github.com/crumb-dev/crumb/tokens"
)

// faultLog returns a log of n lines whose first and last lines name it.
func faultLog(name string, n int) (data []byte, first, last string) {
	first, last = "first line of "+name, "last line of "+name+": exit status 3"
	var b bytes.Buffer
	b.WriteString(first + "\n")
	for i := 2; i < n; i++ {
		fmt.Fprintf(&b, "%s step %d: compiling module %d of the build\n", name, i, i%97)
	}
	b.WriteString(last + "\n")
	return b.Bytes(), first, last
}

// TestGuardStoreFaults projects results through a Guard whose store is
// unavailable (a stopped Redis), full (a tmpfs with no room), read-only (a
// read-only mount) or evicting (Redis under maxmemory): a small result
// passes through unchanged; a larger one reaches the caller within its
// bounds (the budget, or the hard cap for one shown whole), with its first
// and last lines, and a view of a result not kept says so and why, as its
// receipt does.
func TestGuardStoreFaults(t *testing.T) {
	const budget = 500
	for _, f := range storefault.Faults {
		t.Run(f.Name, func(t *testing.T) {
			st := storefault.Open(t, f.Make(t))
			g := newGuard(t, crumb.Config{Store: st, Budget: budget})
			ctx := context.Background()
			small := []byte("ok: 3 tests passed\n")
			v, err := g.Project(ctx, crumb.Result{Tool: "run", Body: small})
			if err != nil || v.Text != string(small) || v.Receipt.Output != crumb.OutputExact {
				t.Fatalf("a small result: %v, %s %q; want it unchanged", err, v.Receipt.Output, v.Text)
			}
			for _, c := range []struct {
				name  string
				lines int
				most  int // tokens
			}{
				{"medium", 500, int(crumb.DefaultHardCap)}, // shown whole, within the hard cap
				{"large", 60000, budget},                   // its two ends, within the budget
			} {
				data, first, last := faultLog(f.Name+" "+c.name, c.lines)
				v, err := g.Project(ctx, crumb.Result{Tool: "run", Reader: bytes.NewReader(data)})
				if err != nil {
					t.Fatalf("%s result: Project: %v", c.name, err)
				}
				if !strings.Contains(v.Text, first) || !strings.Contains(v.Text, last) {
					t.Errorf("%s result: the view lost the first or the last line:\n%.800s", c.name, v.Text)
				}
				if n := tokens.O200k().Count(v.Text); n > c.most {
					t.Errorf("%s result: the view has %d tokens, over %d", c.name, n, c.most)
				}
				if v.Receipt.Stored {
					if !f.MayKeep {
						t.Errorf("%s result: stored in a store that is %s", c.name, f.Name)
					}
					continue
				}
				if v.Receipt.Output != crumb.OutputFallback || v.Receipt.StoreError == "" || v.Ref != "" || v.Next != nil {
					t.Errorf("%s result not kept: output %q, store error %q, ref %q, next %v; want a fallback that says why and names no read", c.name, v.Receipt.Output, v.Receipt.StoreError, v.Ref, v.Next)
				}
				if !strings.Contains(v.Text, "could not store this result ("+v.Receipt.StoreError+")") {
					t.Errorf("%s result: the view does not say why it was not kept (%s):\n%.800s", c.name, v.Receipt.StoreError, v.Text)
				}
				t.Logf("%s: %s", c.name, v.Receipt.StoreError)
			}
		})
	}
}

// TestGuardDefaultStoreUnusable makes a Guard on the default store when
// that is a directory other users may write to (which the store refuses)
// or a path that cannot be created: New succeeds, and a large result
// reaches the caller as the bounded view that says why it was not kept.
func TestGuardDefaultStoreUnusable(t *testing.T) {
	open := t.TempDir() + "/open"
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	notDir := t.TempDir() + "/file"
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, why string }{
		{"mode 0777", open, "other users may write to it"},
		{"unwritable path", notDir + "/store", "not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CRUMB_STORE", c.dir)
			g, err := crumb.New(crumb.Config{Budget: 300})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer g.Close()
			data, first, last := faultLog(c.name, 20000)
			v, err := g.Project(context.Background(), crumb.Result{Tool: "run", Body: data})
			if err != nil {
				t.Fatalf("Project: %v", err)
			}
			if v.Receipt.Stored || !strings.Contains(v.Receipt.StoreError, c.why) || !strings.Contains(v.Text, c.why) ||
				!strings.Contains(v.Text, first) || !strings.Contains(v.Text, last) {
				t.Errorf("stored %v, store error %q; want a view of both ends that says %q:\n%.600s", v.Receipt.Stored, v.Receipt.StoreError, c.why, v.Text)
			}
		})
	}
}

// oneLine returns a result that is one line of about n bytes (no newline in
// it but, when nl, a last one), made mostly of characters of two and three
// bytes, so that a cut by bytes that ignored them would split one; start
// and end are its first and its last bytes, which a view of its two ends
// shows.
func oneLine(kind string, n int, nl bool) (data []byte, start, end string) {
	var b strings.Builder
	switch kind {
	case "json":
		start, end = `{"report":"start of the report ✓","rows":[`, `],"end":"end of the report ✓ é"}`
		b.WriteString(start)
		for i := 0; b.Len() < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"name":"naïve café ✓ %d","note":"ünïcödé — ✓✓✓"}`, i, i)
		}
		b.WriteString(end)
	default:
		start, end = "START of a minified line: ", " — the END of the line ✓"
		b.WriteString(start)
		for b.Len() < n {
			b.WriteString("naïve café ✓ ünïcödé — ")
		}
		b.WriteString(end)
	}
	if nl {
		b.WriteByte('\n')
	}
	return []byte(b.String()), start, end
}

// TestGuardStoreFaultsOneLine projects a result that is one huge line — a
// one-line JSON document, a minified line of text — through a Guard whose
// store will not keep it: the view shows the start and the end of the
// line, cut by bytes between characters and marked as cut, within the
// budget, and says why it was not kept (before, it showed no content at
// all, only its header).
func TestGuardStoreFaultsOneLine(t *testing.T) {
	const budget = 500
	for _, f := range storefault.Faults {
		t.Run(f.Name, func(t *testing.T) {
			st := storefault.Open(t, f.Make(t))
			g := newGuard(t, crumb.Config{Store: st, Budget: budget})
			for _, c := range []struct {
				name, kind string
				nl         bool
			}{
				{"json", "json", false},
				{"json with a newline", "json", true},
				{"text", "text", false},
				{"text with a newline", "text", true},
			} {
				data, start, end := oneLine(c.kind, 2<<20, c.nl)
				v, err := g.Project(context.Background(), crumb.Result{Tool: "run", Reader: bytes.NewReader(data)})
				if err != nil {
					t.Fatalf("%s: Project: %v", c.name, err)
				}
				if n := tokens.O200k().Count(v.Text); n > budget {
					t.Errorf("%s: the view has %d tokens, over %d:\n%.800s", c.name, n, budget, v.Text)
				}
				if !utf8.ValidString(v.Text) {
					t.Errorf("%s: the view is not valid UTF-8: a cut split a character", c.name)
				}
				if v.Receipt.Stored {
					if !f.MayKeep {
						t.Errorf("%s: stored in a store that is %s", c.name, f.Name)
					}
					continue
				}
				if !strings.Contains(v.Text, "could not store this result ("+v.Receipt.StoreError+")") {
					t.Errorf("%s: the view does not say why it was not kept:\n%.800s", c.name, v.Text)
				}
				if !strings.Contains(v.Text, "\n"+start) || !strings.Contains(v.Text, end) {
					t.Errorf("%s: the view does not show the start %q and the end %q of the line:\n%s", c.name, start, end, v.Text)
				}
				if strings.Count(v.Text, "…") < 2 {
					t.Errorf("%s: the view does not mark where it cut the line:\n%s", c.name, v.Text)
				}
				if n := tokens.O200k().Count(v.Text); n < budget/2 {
					t.Errorf("%s: the view uses %d of its %d tokens", c.name, n, budget)
				}
				t.Logf("%s (%s):\n%s", c.name, f.Name, v.Text)
			}
		})
	}
}

// TestGuardUnstoredLongEndLine: when only the first or only the last line
// of a result the store will not keep is longer than what was kept of it,
// the view shows the whole lines kept at one end and the cut part of the
// long line at the other, and says which.
func TestGuardUnstoredLongEndLine(t *testing.T) {
	const budget = 500
	long, start, end := oneLine("text", 1<<20, false)
	short, first, last := faultLog("short lines", 20000)
	g := newGuard(t, crumb.Config{Store: storefault.Open(t, storefault.Unavailable(t)), Budget: budget})
	for _, c := range []struct {
		name  string
		data  []byte
		wants []string
		shown string
	}{
		{"a long first line", append(append(long, '\n'), short...), []string{"\n" + start, last}, "the first "},
		{"a long last line", append(append([]byte{}, short...), long...), []string{"\n" + first, end}, "lines 1-"},
	} {
		v, err := g.Project(context.Background(), crumb.Result{Tool: "run", Reader: bytes.NewReader(c.data)})
		if err != nil {
			t.Fatalf("%s: Project: %v", c.name, err)
		}
		if n := tokens.O200k().Count(v.Text); n > budget || !utf8.ValidString(v.Text) {
			t.Errorf("%s: the view has %d tokens (budget %d), valid UTF-8 %v", c.name, n, budget, utf8.ValidString(v.Text))
		}
		for _, want := range c.wants {
			if !strings.Contains(v.Text, want) {
				t.Errorf("%s: the view does not show %q:\n%s", c.name, want, v.Text)
			}
		}
		if !strings.Contains(v.Text, "shown: "+c.shown) || !strings.Contains(v.Text, "of line ") {
			t.Errorf("%s: the header does not say what is shown:\n%s", c.name, v.Text)
		}
		t.Logf("%s:\n%s", c.name, v.Text)
	}
}
