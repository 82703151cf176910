package crumb

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// headTail keeps everything up to its size, then the head and the tail.
func TestHeadTail(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, max := range []int64{16, 1000, 64 << 10} {
		for _, size := range []int{0, 1, int(max / 2), int(max/2) + 1, int(max) - 1, int(max), int(max) + 1, 3*int(max) + 7} {
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(r.IntN(256))
			}
			h := newHeadTail(max)
			// Write in uneven pieces, as reads arrive.
			for rest := data; len(rest) > 0; {
				k := min(len(rest), 1+r.IntN(int(max)))
				h.Write(rest[:k])
				rest = rest[k:]
			}
			got := h.bytes()
			if int64(size) <= max {
				if !h.complete() || !bytes.Equal(got, data) {
					t.Fatalf("max %d size %d: kept %d bytes, want all", max, size, len(got))
				}
				continue
			}
			half := int(max / 2)
			if h.complete() || !bytes.HasPrefix(got, data[:half]) || !bytes.HasSuffix(got, data[size-(int(max)-half):]) {
				t.Fatalf("max %d size %d: head or tail lost", max, size)
			}
		}
	}
}
