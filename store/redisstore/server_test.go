package redisstore

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

// redisServer is a real redis-server on a loopback port, with its files in
// a temporary directory.
type redisServer struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	args []string
	cmd  *exec.Cmd
}

// needServer returns the path of redis-server. Without one the test fails
// in CI (CI is set) and is skipped, visibly, elsewhere.
func needServer(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server is not installed; CI must install it (apt-get install redis-server): %v", err)
		}
		t.Skipf("SKIP: redis-server is not installed, so the Redis store is not tested: %v", err)
	}
	return bin
}

// startServer starts redis-server with no persistence (unless args say
// otherwise) on a free loopback port, and stops it when the test ends.
func startServer(t testing.TB, args ...string) *redisServer {
	t.Helper()
	srv := &redisServer{t: t, bin: needServer(t), dir: t.TempDir(), args: args}
	srv.port = freePort(t)
	srv.start()
	t.Cleanup(srv.stop)
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

// start starts the server on its port and waits until it answers.
func (srv *redisServer) start() {
	t := srv.t
	t.Helper()
	args := append([]string{"--port", strconv.Itoa(srv.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", srv.dir, "--daemonize", "no", "--logfile", "redis.log"}, srv.args...)
	srv.cmd = exec.Command(srv.bin, args...)
	if err := srv.cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1})
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

// stop kills the server and waits for it to exit.
func (srv *redisServer) stop() {
	if srv.cmd == nil || srv.cmd.Process == nil {
		return
	}
	srv.cmd.Process.Kill()
	srv.cmd.Wait()
	srv.cmd = nil
}

// restart kills the server (losing what it held unless persistence is on)
// and starts it again on the same port.
func (srv *redisServer) restart() {
	srv.stop()
	srv.start()
}

func (srv *redisServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", srv.port) }

// url returns the store URL of database db.
func (srv *redisServer) url(db int) string { return fmt.Sprintf("redis://%s/%d", srv.addr(), db) }

// client returns a plain client of the server, closed when the test ends.
func (srv *redisServer) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

var nsSeq atomic.Int64

// uniqueNS returns a namespace no other test uses.
func uniqueNS() string { return fmt.Sprintf("t%d-%d", os.Getpid(), nsSeq.Add(1)) }
