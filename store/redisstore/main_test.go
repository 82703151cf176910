package redisstore

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.stop()
		os.RemoveAll(shared.dir)
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
	return dir
}
