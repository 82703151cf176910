package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/store"
)

// FuzzRecord writes arbitrary bytes as the record of a stored result of two
// chunks: every read must then fail or return exactly what was stored, and a line read
// through the record's line index must fail or return the right line.
func FuzzRecord(f *testing.F) {
	var b bytes.Buffer
	for i := 1; b.Len() < store.ChunkSize+100; i++ {
		b.WriteString("line ")
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString("\n")
	}
	data := b.Bytes()
	d, err := store.OpenDir(f.TempDir(), store.DirOptions{ManualGC: true, NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	info, err := d.Put(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(store.RecordPath(d, info.Ref))
	if err != nil {
		f.Fatal(err)
	}
	// Lines about the start of the second chunk, and the last one.
	nl := info.ChunkNewlines[1]
	probe := []int64{1, 2, nl - 1, nl, nl + 1, nl + 2, nl + 8, *info.Lines}
	f.Add(good)
	// The report's case: one count of the line index lowered.
	lowered := fmt.Sprintf(`"chunk_newlines":[0,%d]`, info.ChunkNewlines[1]-5)
	f.Add(bytes.Replace(good, []byte(fmt.Sprintf(`"chunk_newlines":[0,%d]`, info.ChunkNewlines[1])), []byte(lowered), 1))
	f.Add(bytes.Replace(good, []byte(`"chunk_newlines":[0,`), []byte(`"chunk_newlines":[0,-`), 1))
	f.Add(bytes.Replace(good, []byte(`"size":`), []byte(`"size":1`), 1))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`][`))
	f.Fuzz(func(t *testing.T, rec []byte) {
		if err := os.WriteFile(store.RecordPath(d, info.Ref), rec, 0o600); err != nil {
			t.Fatal(err)
		}
		obj, err := d.Open(ctx, info.Ref)
		if err != nil {
			return
		}
		defer obj.Close()
		in := obj.Info()
		doc := lines.New(obj, obj.Size(), in.Newlines, in.ChunkNewlines, store.ChunkSize)
		for _, n := range probe {
			off, err := doc.LineStart(n)
			if err != nil {
				continue
			}
			l, err := doc.ReadLine(off, 100)
			if err != nil {
				continue
			}
			if want := wantLine(data, n); string(l.Text) != want {
				var m map[string]json.RawMessage
				json.Unmarshal(rec, &m)
				t.Fatalf("line %d reads %q, want %q (record %s)", n, l.Text, want, m["chunk_newlines"])
			}
		}
		var buf bytes.Buffer
		if _, err := store.Copy(ctx, obj, &buf); err == nil && !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("Copy wrote %d bytes that are not what was stored", buf.Len())
		} else if err != nil && !errors.Is(err, store.ErrBroken) {
			t.Fatalf("Copy: %v; want ErrBroken", err)
		}
	})
}

// wantLine returns line n (1-based) of data without its newline, or "" past
// the end.
func wantLine(data []byte, n int64) string {
	for i := int64(1); len(data) > 0; i++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if i == n {
			return string(line)
		}
		data = rest
	}
	return ""
}
