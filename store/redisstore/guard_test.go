package redisstore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
)

// TestGuardWithRedis projects a large result through a Guard whose store is
// in Redis (it stages, projects and publishes), and a second store on the
// same namespace, as another process would open it, reads the exact bytes
// by the view's ref.
func TestGuardWithRedis(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	ns := redistest.Namespace()
	open := func() *redisstore.Store {
		s, err := redisstore.Open(ctx, srv.URL(0)+"?namespace="+ns, redisstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	g, err := crumb.New(crumb.Config{Store: open(), Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var b bytes.Buffer
	for i := 1; b.Len() < 3*store.ChunkSize; i++ {
		fmt.Fprintf(&b, "line %d of a long log\n", i)
	}
	data := b.Bytes()
	v, err := g.Project(ctx, crumb.Result{Tool: "cat", Reader: bytes.NewReader(data)})
	if err != nil {
		t.Fatal(err)
	}
	if v.Ref == "" {
		t.Fatalf("a %d-byte result passed through unstored: %.200s", len(data), v.Text)
	}
	got, err := store.ReadAll(ctx, open(), store.Ref(v.Ref))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadAll(%s) by another store = %d bytes, %v; want the %d bytes projected", v.Ref, len(got), err, len(data))
	}
	other, err := redisstore.Open(ctx, srv.URL(0)+"?namespace=other-"+ns, redisstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Stat(ctx, store.Ref(v.Ref)); err == nil {
		t.Errorf("another namespace finds %s", v.Ref)
	}
}
