package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
)

// TestRedisScripts runs the scripts in testdata/redis with the store in a
// real Redis: CRUMB_STORE is a redis:// URL, each script in a namespace of
// its own ($NS), and $REDIS_URL the server's URL without a namespace.
func TestRedisScripts(t *testing.T) {
	srv := redistest.Start(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/redis",
		Setup: func(env *testscript.Env) error {
			ns := redistest.Namespace()
			env.Setenv("NS", ns)
			env.Setenv("REDIS_URL", srv.URL(0))
			env.Setenv("CRUMB_STORE", srv.URL(0)+"?namespace="+ns)
			env.Setenv("CRUMB_GC", "off")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
	})
}

// TestServeRedisNamespaces opens the stores of crumb serve from a redis://
// URL twice, as two sidecars sharing one Redis would: a ref stored through
// one is read through the other in the same namespace, and is missing in
// another namespace.
func TestServeRedisNamespaces(t *testing.T) {
	srv := redistest.Start(t)
	e := &env{getenv: func(string) string { return "" }}
	openA, err := namespaceOpener(e, srv.URL(0)+"?namespace=ignored")
	if err != nil {
		t.Fatal(err)
	}
	openB, err := namespaceOpener(e, srv.URL(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := func(o server.Opener, ns string) store.Store {
		s, err := o(ns)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.(io.Closer).Close() })
		return s
	}
	a, b, other := open(openA, "team-a"), open(openB, "team-a"), open(openB, "team-b")
	info, err := a.Put(ctx, strings.NewReader("shared between sidecars\n"), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.ReadAll(ctx, b, info.Ref); err != nil || string(got) != "shared between sidecars\n" {
		t.Errorf("ReadAll through the other sidecar = %q, %v", got, err)
	}
	if _, err := other.Stat(ctx, info.Ref); !errors.Is(err, store.ErrMissing) {
		t.Errorf("Stat in another namespace: %v; want ErrMissing", err)
	}
	// A Redis that does not answer is not an error: crumb serve starts,
	// says so, and answers views of results it cannot keep.
	if o, err := namespaceOpener(e, "redis://127.0.0.1:1/0"); err != nil || o == nil {
		t.Errorf("the opener of a Redis that does not answer: %v", err)
	}
}
