package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
)

// TestSide stores, replaces and expires a side entry on one server and on
// the 3+3 cluster (one key per entry, so no cross-slot command).
func TestSide(t *testing.T) {
	for _, tt := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"server", func(t *testing.T) string { return redistest.Start(t).URL(0) }},
		{"cluster", func(t *testing.T) string { return sharedCluster(t).URL() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			redistest.Need(t)
			ctx := context.Background()
			s := openURL(t, tt.url(t), Options{})
			if _, err := s.GetSide(ctx, "k"); !errors.Is(err, store.ErrMissing) {
				t.Fatalf("get of an absent key: %v, want ErrMissing", err)
			}
			for _, v := range []string{"v1", "v2"} {
				if err := s.PutSide(ctx, "k", []byte(v), time.Hour); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.GetSide(ctx, "k")
			if err != nil || string(got) != "v2" {
				t.Fatalf("get = %q, %v; want v2", got, err)
			}
			if err := s.PutSide(ctx, "short", []byte("x"), 50*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			if _, err := s.GetSide(ctx, "short"); !errors.Is(err, store.ErrMissing) {
				t.Fatalf("get after the ttl: %v, want ErrMissing", err)
			}
		})
	}
}
