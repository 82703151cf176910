package store

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Copy writes the whole of obj to w, one chunk at a time, and returns the
// number of bytes written. The object verifies every chunk it reads against
// its chunk digest, and Copy first checks that those digests hash to the
// digest of the whole, so what reaches w is exactly what was stored; an
// error part way leaves w with a prefix of it, which the caller must
// discard. Memory use is one chunk whatever the size.
func Copy(ctx context.Context, obj Object, w io.Writer) (int64, error) {
	info := obj.Info()
	size := obj.Size()
	if err := checkList(info); err != nil {
		return 0, brokenErr(info.Ref, err.Error())
	}
	buf := make([]byte, min(ChunkSize, size))
	var off int64
	for off < size {
		if err := ctx.Err(); err != nil {
			return off, fmt.Errorf("store: copying %s: %w", info.Ref, err)
		}
		want := min(ChunkSize, size-off)
		n, err := obj.ReadAt(buf[:want], off)
		if int64(n) < want {
			if err == nil || errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: ref %s: content ends at byte %d, its record says %d: the stored copy is damaged; run the tool again",
					ErrBroken, info.Ref, off+int64(n), size)
			}
			return off, err
		}
		m, err := w.Write(buf[:n])
		off += int64(m)
		if err != nil {
			return off, fmt.Errorf("store: copying %s: %w", info.Ref, err)
		}
		if m < n {
			return off, fmt.Errorf("store: copying %s: %w", info.Ref, io.ErrShortWrite)
		}
	}
	return off, nil
}
