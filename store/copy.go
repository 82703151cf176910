package store

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// CopyVerifyFirst is the largest result [Copy] reads and verifies whole
// before it writes a byte, so that a damaged result up to this size leaves
// nothing in w.
const CopyVerifyFirst = 16 << 20

// Copy writes the whole of obj to w and returns the number of bytes written.
// The object verifies every chunk it reads against its chunk digest, and Copy
// first checks that those digests hash to the digest of the whole, so what
// reaches w is exactly what was stored. A result of up to [CopyVerifyFirst]
// bytes is read and verified whole before anything is written, so a damaged
// one writes nothing; a larger one is written one verified chunk at a time
// (memory stays at one chunk), and damage found part way returns an error
// that says how much of the output was written and that it is incomplete:
// the caller must discard it.
func Copy(ctx context.Context, obj Object, w io.Writer) (int64, error) {
	info := obj.Info()
	size := obj.Size()
	if err := checkList(info); err != nil {
		return 0, brokenErr(info.Ref, err.Error())
	}
	if size <= CopyVerifyFirst {
		buf := make([]byte, size)
		if err := readFull(ctx, obj, buf, 0); err != nil {
			return 0, err
		}
		return writeAll(info.Ref, w, buf)
	}
	buf := make([]byte, ChunkSize)
	var off int64
	for off < size {
		want := min(ChunkSize, size-off)
		if err := readFull(ctx, obj, buf[:want], off); err != nil {
			if off > 0 {
				err = fmt.Errorf("%w (the output is incomplete: %d of %d bytes were written before this; discard it)", err, off, size)
			}
			return off, err
		}
		n, err := writeAll(info.Ref, w, buf[:want])
		off += n
		if err != nil {
			return off, err
		}
	}
	return off, nil
}

// readFull fills p from obj at off, in chunks, checking ctx between them.
func readFull(ctx context.Context, obj Object, p []byte, off int64) error {
	ref := obj.Info().Ref
	for done := 0; done < len(p); {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("store: copying %s: %w", ref, err)
		}
		want := min(ChunkSize, len(p)-done)
		n, err := obj.ReadAt(p[done:done+want], off+int64(done))
		done += n
		if n < want {
			if err == nil || errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: ref %s: content ends at byte %d, its record says %d: the stored copy is damaged; run the tool again",
					ErrBroken, ref, off+int64(done), obj.Size())
			}
			return err
		}
	}
	return nil
}

// writeAll writes p to w.
func writeAll(ref Ref, w io.Writer, p []byte) (int64, error) {
	m, err := w.Write(p)
	if err != nil {
		return int64(m), fmt.Errorf("store: copying %s: %w", ref, err)
	}
	if m < len(p) {
		return int64(m), fmt.Errorf("store: copying %s: %w", ref, io.ErrShortWrite)
	}
	return int64(m), nil
}
