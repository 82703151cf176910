package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

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
