package redisstore

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

// TestSentinel opens the store through 3 real Sentinels watching a
// primary and its replica (redis+sentinel://...&master=NAME), runs the
// conformance suite on it, then stores 200 results, kills the primary and
// waits for the Sentinels to promote the replica: every acknowledged
// result then reads back exact or missing (a write the replica had not
// yet received), never wrong or broken, and the store takes puts again.
func TestSentinel(t *testing.T) {
	redistest.Need(t)
	sn := redistest.StartSentinel(t, 3)
	open := func(t *testing.T, opts Options) *Store { return openURL(t, sn.URL(), opts) }
	t.Run("conformance", func(t *testing.T) { storetest.RunBackend(t, backend(open)) })

	ctx := context.Background()
	s := open(t, Options{})
	acked := map[store.Ref][]byte{}
	for i := range 200 {
		data := storetest.Content(uint64(50_000+i), 1+i*997%(2*store.ChunkSize))
		info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		acked[info.Ref] = data
	}
	sn.Primary.Stop()
	start := time.Now()
	if err := sn.WaitFailover(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("the Sentinels promoted the replica %v after the primary was killed", time.Since(start).Round(100*time.Millisecond))
	var exact, missing int
	for ref, data := range acked {
		var got []byte
		var err error
		// The client finds the new primary through the Sentinels; a read
		// that fails meanwhile is retried (for 30 s at the most).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			got, err = store.ReadAll(ctx, s, ref)
			if err == nil || errors.Is(err, store.ErrMissing) || errors.Is(err, store.ErrBroken) || time.Now().After(deadline) {
				break
			}
		}
		switch {
		case err == nil && bytes.Equal(got, data):
			exact++
		case err == nil:
			t.Errorf("%s read %d bytes that are not the %d stored", ref, len(got), len(data))
		case errors.Is(err, store.ErrMissing):
			missing++
		default:
			t.Errorf("%s after the failover: %v; want exact or missing", ref, err)
		}
	}
	t.Logf("after the failover, %d acknowledged results: %d exact, %d missing", len(acked), exact, missing)
	if exact == 0 {
		t.Error("no result read back exact after the failover")
	}
	data := storetest.Content(60_000, 3*store.ChunkSize/2)
	info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatalf("a put on the promoted primary: %v", err)
	}
	if got, err := store.ReadAll(ctx, s, info.Ref); err != nil || !bytes.Equal(got, data) {
		t.Errorf("reading back a put on the promoted primary: %d bytes, %v", len(got), err)
	}
}
