package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Copy writes the whole of obj to w, one chunk at a time, and returns the
// number of bytes written. The object verifies every chunk it reads, and Copy
// also checks the digest of the whole against obj.Info().Digest. Bytes reach
// w before that last check, so a caller that gets an error must discard what
// was written. Memory use is one chunk whatever the size.
func Copy(ctx context.Context, obj Object, w io.Writer) (int64, error) {
	info := obj.Info()
	size := obj.Size()
	buf := make([]byte, min(ChunkSize, size))
	h := sha256.New()
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
		h.Write(buf[:n])
		m, err := w.Write(buf[:n])
		off += int64(m)
		if err != nil {
			return off, fmt.Errorf("store: copying %s: %w", info.Ref, err)
		}
		if m < n {
			return off, fmt.Errorf("store: copying %s: %w", info.Ref, io.ErrShortWrite)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != info.Digest {
		return off, fmt.Errorf("%w: ref %s: content digest %.16s... does not match its record: the stored copy is damaged; run the tool again",
			ErrBroken, info.Ref, got)
	}
	return off, nil
}
