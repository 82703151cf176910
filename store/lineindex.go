package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
)

// lineIndex counts newlines while a result is stored, so that readers can
// find line N of a large result without scanning it: the number of newlines
// before each chunk, and in all.
type lineIndex struct {
	newlines int64
	before   []int64
	last     byte
	any      bool
}

// startChunk records the count at the start of a new chunk.
func (x *lineIndex) startChunk() { x.before = append(x.before, x.newlines) }

// add counts the newlines of the next bytes.
func (x *lineIndex) add(p []byte) {
	if len(p) == 0 {
		return
	}
	x.newlines += int64(bytes.Count(p, []byte{'\n'}))
	x.last, x.any = p[len(p)-1], true
}

// fill sets the line facts of info.
func (x *lineIndex) fill(info *Info) {
	nl := x.newlines
	lines := nl
	if x.any && x.last != '\n' {
		lines++
	}
	info.Newlines, info.Lines = &nl, &lines
	info.ChunkNewlines = append([]int64(nil), x.before...)
	if len(info.ChunkNewlines) == 0 {
		info.ChunkNewlines = nil
	}
}

// checkLineIndex checks that a record's line index is consistent with its
// size: one count per chunk, never decreasing, none above the total. An
// index that fails would send readers to the wrong lines, so the record is
// broken.
func checkLineIndex(info Info) error {
	if info.Newlines == nil {
		return nil
	}
	nl := *info.Newlines
	if nl < 0 || nl > info.Size {
		return fmt.Errorf("counts %d newlines in %d bytes", nl, info.Size)
	}
	if int64(len(info.ChunkNewlines)) != (info.Size+ChunkSize-1)/ChunkSize {
		return fmt.Errorf("has %d chunk counts for %d chunks", len(info.ChunkNewlines), (info.Size+ChunkSize-1)/ChunkSize)
	}
	prev := int64(0)
	for i, c := range info.ChunkNewlines {
		if c < prev || c-prev > ChunkSize || c > nl || c > int64(i)*ChunkSize || (i == 0 && c != 0) {
			return fmt.Errorf("count %d of chunk %d is impossible", c, i)
		}
		prev = c
	}
	if info.Lines != nil && (*info.Lines < nl || *info.Lines > nl+1) {
		return fmt.Errorf("says %d lines for %d newlines", *info.Lines, nl)
	}
	return nil
}

// checkChunkLines checks the line index of info against chunk idx, whose
// verified content is chunk: the newlines the index gives the chunk (the
// count before the next chunk, or the total, less the count before this one)
// must be those it holds, and for the last chunk the line count must follow
// from its last byte. The index is not covered by the content digest, so a
// read checks every part of it it relies on against verified content: a
// reader that finds line N through the index reads the chunk the index sends
// it to, and a wrong count there (or in the chunk before, for a line the
// index places too late) reads as broken instead of as the wrong lines.
func checkChunkLines(info Info, idx int64, chunk []byte) error {
	if info.Newlines == nil || idx >= int64(len(info.ChunkNewlines)) {
		return nil
	}
	return checkChunkCount(info, idx, int64(bytes.Count(chunk, []byte{'\n'})), len(chunk) > 0 && chunk[len(chunk)-1] == '\n', len(chunk))
}

// checkChunkCount is checkChunkLines of a chunk of n bytes that holds got
// newlines and ends with one if endsLine.
func checkChunkCount(info Info, idx, got int64, endsLine bool, n int) error {
	if info.Newlines == nil || idx >= int64(len(info.ChunkNewlines)) {
		return nil
	}
	next := *info.Newlines
	last := idx == int64(len(info.ChunkNewlines))-1
	if !last {
		next = info.ChunkNewlines[idx+1]
	}
	want := next - info.ChunkNewlines[idx]
	if got != want {
		return fmt.Errorf("chunk %d holds %d newlines, its record's line index says %d", idx, got, want)
	}
	if last && info.Lines != nil && n > 0 {
		lines := *info.Newlines
		if !endsLine {
			lines++
		}
		if *info.Lines != lines {
			return fmt.Errorf("it holds %d lines, its record says %d", lines, *info.Lines)
		}
	}
	return nil
}

var _ Annotator = (*Dir)(nil)

// Annotate merges attrs into the Meta.Attrs of a stored result's record,
// such as the size of the view a model was shown of it. It does not count as
// a use. It returns an error wrapping ErrMissing when ref is not stored. The
// facts are written durably, but a crash right after Annotate returns may
// leave the record as it was: it may lose the facts, never the result.
func (d *Dir) Annotate(ctx context.Context, ref Ref, attrs map[string]string) error {
	ref, lk, err := d.lockRef(ctx, ref, "annotate")
	if err != nil {
		return err
	}
	defer lk.Close()
	info, err := d.lookup(ref)
	if err != nil {
		return err
	}
	if info.Attrs == nil {
		info.Attrs = map[string]string{}
	} else {
		info.Attrs = maps.Clone(info.Attrs)
	}
	maps.Copy(info.Attrs, attrs)
	// The record it replaces is durable and holds the result: a crash
	// that loses this rename loses only the new facts, so the rename need
	// not wait for the disk.
	if err := d.writeRecord(ref, info, info.Used, replaceContent); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return missingErr(ref)
		}
		return fmt.Errorf("store: annotating %s: %w", ref, err)
	}
	return nil
}
