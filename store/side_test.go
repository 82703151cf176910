package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
)

func TestDirSide(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	d, err := store.OpenDir(t.TempDir(), store.DirOptions{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := d.GetSide(ctx, "k"); !errors.Is(err, store.ErrMissing) {
		t.Fatalf("get of an absent key: %v, want ErrMissing", err)
	}
	if err := d.PutSide(ctx, "k", []byte("v1"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := d.PutSide(ctx, "k", []byte("v2"), time.Hour); err != nil {
		t.Fatal(err)
	}
	got, err := d.GetSide(ctx, "k")
	if err != nil || string(got) != "v2" {
		t.Fatalf("get = %q, %v; want v2", got, err)
	}
	now = now.Add(2 * time.Hour)
	if _, err := d.GetSide(ctx, "k"); !errors.Is(err, store.ErrMissing) {
		t.Fatalf("get after the ttl: %v, want ErrMissing", err)
	}
	// A collection removes the expired entry and keeps a live one.
	if err := d.PutSide(ctx, "live", []byte("v3"), time.Hour); err != nil {
		t.Fatal(err)
	}
	st, err := d.GC(ctx)
	if err != nil || st.SideExpired != 1 {
		t.Fatalf("GC = %+v, %v; want 1 side entry expired", st, err)
	}
	if got, err := d.GetSide(ctx, "live"); err != nil || string(got) != "v3" {
		t.Fatalf("the live entry after GC: %q, %v", got, err)
	}
}
