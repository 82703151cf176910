package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

func TestPutRecordsALineIndex(t *testing.T) {
	d := openDir(t, store.DirOptions{NoSync: true, ManualGC: true})
	big := bytes.Repeat([]byte("0123456789abcdef\n"), store.ChunkSize/8) // two chunks and more
	tests := map[string][]byte{
		"empty":       {},
		"no newline":  []byte("abc"),
		"one line":    []byte("abc\n"),
		"blank lines": []byte("\n\n\n"),
		"big":         big,
		"big no nl":   append(append([]byte(nil), big...), "tail"...),
	}
	for name, b := range tests {
		info, err := d.Put(context.Background(), bytes.NewReader(b), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		nl := int64(bytes.Count(b, []byte{'\n'}))
		lines := nl
		if len(b) > 0 && b[len(b)-1] != '\n' {
			lines++
		}
		if info.Newlines == nil || *info.Newlines != nl || info.Lines == nil || *info.Lines != lines {
			t.Errorf("%s: newlines %v lines %v, want %d %d", name, info.Newlines, info.Lines, nl, lines)
		}
		for i, c := range info.ChunkNewlines {
			if want := int64(bytes.Count(b[:i*store.ChunkSize], []byte{'\n'})); c != want {
				t.Errorf("%s: chunk %d starts after %d newlines, want %d", name, i, c, want)
			}
		}
		if got, _ := d.Stat(context.Background(), info.Ref); got.Lines == nil || *got.Lines != lines {
			t.Errorf("%s: the index is not kept in the record", name)
		}
	}
}

func TestDamagedLineIndexIsBroken(t *testing.T) {
	d := openDir(t, store.DirOptions{NoSync: true, ManualGC: true})
	info, err := d.Put(context.Background(), strings.NewReader("a\nb\nc\n"), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var rec string
	filepath.Walk(d.Path(), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, string(info.Ref)+".json") {
			rec = p
		}
		return nil
	})
	data, _ := os.ReadFile(rec)
	var m map[string]any
	json.Unmarshal(data, &m)
	m["newlines"] = 99
	data, _ = json.Marshal(m)
	if err := os.WriteFile(rec, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open(context.Background(), info.Ref); !errors.Is(err, store.ErrBroken) {
		t.Fatalf("open with a damaged line index: %v, want ErrBroken", err)
	}
}

func TestAnnotate(t *testing.T) {
	d := openDir(t, store.DirOptions{NoSync: true, ManualGC: true})
	info, err := d.Put(context.Background(), strings.NewReader("x"), store.Meta{Tool: "t", Attrs: map[string]string{"exit_code": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Annotate(context.Background(), info.Ref, map[string]string{"view_tokens": "12"}); err != nil {
		t.Fatal(err)
	}
	got, err := d.Stat(context.Background(), info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.Attrs["exit_code"] != "1" || got.Attrs["view_tokens"] != "12" || got.Tool != "t" {
		t.Errorf("attrs after Annotate: %v", got.Attrs)
	}
	if err := d.Annotate(context.Background(), "0123456789abcdef", map[string]string{"a": "b"}); !errors.Is(err, store.ErrMissing) {
		t.Errorf("annotating a missing ref: %v", err)
	}
}

// TestAnnotateSyncs checks what a Put and an Annotate cost in fsyncs: a Put
// makes its blob, its record and both renames durable (four); an Annotate,
// which replaces a record that already holds the result, makes the new
// record's content durable but does not wait for its rename (one), and the
// record reads back whole.
func TestAnnotateSyncs(t *testing.T) {
	d := openDir(t, store.DirOptions{ManualGC: true})
	ctx := context.Background()
	before := store.Syncs(d)
	info, err := d.Put(ctx, strings.NewReader("a result\n"), store.Meta{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if n := store.Syncs(d) - before; n != 4 {
		t.Errorf("a Put made %d fsyncs, want 4 (blob, its directory, record, its directory)", n)
	}
	before = store.Syncs(d)
	if err := d.Annotate(ctx, info.Ref, map[string]string{"view_tokens": "12"}); err != nil {
		t.Fatal(err)
	}
	if n := store.Syncs(d) - before; n != 1 {
		t.Errorf("an Annotate made %d fsyncs, want 1 (the new record's content)", n)
	}
	if got, err := d.Stat(ctx, info.Ref); err != nil || got.Attrs["view_tokens"] != "12" {
		t.Errorf("after Annotate: %v, %v", got.Attrs, err)
	}
}
