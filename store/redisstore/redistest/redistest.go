// Package redistest starts real redis-server processes on loopback ports
// for tests of code that uses Redis (the Redis store, the HTTP sidecar).
// Without redis-server a test fails when $CI is set and is skipped, with a
// visible message, elsewhere.
package redistest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
	tls  *tls.Config // for a server that speaks only TLS
	// sentinelConf, if set, is the configuration file of a Sentinel:
	// the server runs as one (redis-server FILE --sentinel).
	sentinelConf string
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

// StartTLS is Start for a server that speaks only TLS, with a new
// self-signed certificate for 127.0.0.1. It returns the server and the
// certificate's file, which clients must trust (for Go, SSL_CERT_FILE).
func StartTLS(t testing.TB, args ...string) (*Server, string) {
	t.Helper()
	srv := &Server{t: t, bin: Need(t), dir: t.TempDir()}
	certFile, keyFile, pool := selfSigned(t, srv.dir)
	srv.tls = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	srv.port = freePort(t)
	srv.args = append([]string{"--port", "0", "--tls-port", strconv.Itoa(srv.port), "--tls-cert-file", certFile,
		"--tls-key-file", keyFile, "--tls-ca-cert-file", certFile, "--tls-auth-clients", "no"}, args...)
	srv.Start()
	t.Cleanup(srv.Stop)
	return srv, certFile
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key to
// dir, and returns their files and a pool that trusts the certificate.
func selfSigned(t testing.TB, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "crumb test Redis"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
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
	port := []string{"--port", strconv.Itoa(srv.port)}
	if srv.tls != nil {
		port = nil // in srv.args
	}
	args := append(append(port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", srv.dir, "--daemonize", "no", "--logfile", "redis.log"), srv.args...)
	if srv.sentinelConf != "" {
		args = []string{srv.sentinelConf, "--sentinel"} // the port and the rest are in the file
	}
	srv.cmd = exec.Command(srv.bin, args...)
	if err := srv.cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, TLSConfig: srv.tls})
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

// URL returns the store URL of database db: rediss:// for a server that
// speaks TLS.
func (srv *Server) URL(db int) string {
	scheme := "redis"
	if srv.tls != nil {
		scheme = "rediss"
	}
	return fmt.Sprintf("%s://%s/%d", scheme, srv.Addr(), db)
}

// Client returns a plain client of the server, closed when the test ends.
func (srv *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), TLSConfig: srv.tls})
	t.Cleanup(func() { c.Close() })
	return c
}

var nsSeq atomic.Int64

// Namespace returns a store namespace no other test of the process uses.
func Namespace() string { return fmt.Sprintf("t%d-%d", os.Getpid(), nsSeq.Add(1)) }
