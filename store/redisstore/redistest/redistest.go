// Package redistest starts real redis-server processes on loopback ports
// for tests of code that uses Redis (the Redis store, the HTTP sidecar).
// Without redis-server a test fails when $CI is set and is skipped, with a
// visible message, elsewhere.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a real redis-server on a loopback port, with its files in a
// temporary directory.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	args []string
	cmd  *exec.Cmd
}

// Need returns the path of the server binary: $CRUMB_REDIS_SERVER (for
// example valkey-server), else redis-server. Without one the test fails in
// CI (CI is set) and is skipped, visibly, elsewhere.
func Need(t testing.TB) string {
	t.Helper()
	name := os.Getenv("CRUMB_REDIS_SERVER")
	if name == "" {
		name = "redis-server"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI must install it (apt-get install redis-server): %v", name, err)
		}
		t.Skipf("SKIP: %s is not installed, so the Redis store is not tested: %v", name, err)
	}
	return bin
}

// Start starts redis-server with no persistence (unless args, extra
// redis-server options such as "--appendonly", "yes", say otherwise) on a
// free loopback port, and stops it when the test ends.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	srv := &Server{t: t, bin: Need(t), dir: t.TempDir(), args: args}
	srv.port = freePort(t)
	srv.Start()
	t.Cleanup(srv.Stop)
	return srv
}

// StartShared is Start for a server that outlives the test that starts it
// (one server for a whole package): its files go to dir, and the caller
// calls Stop (from TestMain).
func StartShared(t testing.TB, dir string, args ...string) *Server {
	t.Helper()
	srv := &Server{t: t, bin: Need(t), dir: dir, args: args}
	srv.port = freePort(t)
	srv.Start()
	return srv
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Start starts the server again on its port (after Stop) and waits until it answers.
func (srv *Server) Start() {
	t := srv.t
	t.Helper()
	args := append([]string{"--port", strconv.Itoa(srv.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", srv.dir, "--daemonize", "no", "--logfile", "redis.log"}, srv.args...)
	srv.cmd = exec.Command(srv.bin, args...)
	if err := srv.cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil || strings.HasPrefix(err.Error(), "NOAUTH") {
			return // answering (a server with a password refuses PING)
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(srv.dir + "/redis.log")
			t.Fatalf("redis-server on port %d did not answer: %v\n%s", srv.port, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server and waits for it to exit.
func (srv *Server) Stop() {
	if srv.cmd == nil || srv.cmd.Process == nil {
		return
	}
	srv.cmd.Process.Kill()
	srv.cmd.Wait()
	srv.cmd = nil
}

// Restart kills the server (losing what it held unless persistence is on)
// and starts it again on the same port.
func (srv *Server) Restart() {
	srv.Stop()
	srv.Start()
}

// Running reports whether the server was started and not stopped.
func (srv *Server) Running() bool { return srv.cmd != nil }

// Addr returns the server's HOST:PORT.
func (srv *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", srv.port) }

// URL returns the store URL of database db.
func (srv *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", srv.Addr(), db) }

// Client returns a plain client of the server, closed when the test ends.
func (srv *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

var nsSeq atomic.Int64

// Namespace returns a store namespace no other test of the process uses.
func Namespace() string { return fmt.Sprintf("t%d-%d", os.Getpid(), nsSeq.Add(1)) }
