package redisstore

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) {
	// The faults the tests cause (a server stopped) would fill the output
	// with go-redis's reports of failed dials.
	redis.SetLogger(quietLogger{})
	code := m.Run()
	if shared != nil {
		shared.Stop()
		os.RemoveAll(sharedDir)
	}
	if sharedCl != nil {
		sharedCl.Stop()
		os.RemoveAll(sharedClDir)
	}
	os.Exit(code)
}

// mkdirTemp makes a directory for the shared server, which outlives the
// test that starts it (TestMain removes it).
func mkdirTemp(t *testing.T) string {
	dir, err := os.MkdirTemp("", "crumb-redis-*")
	if err != nil {
		t.Fatal(err)
	}
	sharedDir = dir
	return dir
}

// sharedDir holds the files of the shared server.
var sharedDir string

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
