package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a real Redis Cluster of redis-server processes on loopback
// ports: its primaries and their replicas.
type Cluster struct {
	Nodes []*Server
	cli   string // redis-cli
}

// StartCluster starts primaries*(1+replicas) servers with cluster mode on,
// joins them with redis-cli --cluster create, and waits until every node
// reports the cluster ok. The files go under dir; the caller calls Stop
// (the cluster may outlive the test that starts it, as StartShared's
// server does). Without redis-cli the test fails in CI and is skipped
// elsewhere, as without redis-server.
func StartCluster(t testing.TB, dir string, primaries, replicas int) *Cluster {
	t.Helper()
	bin := Need(t)
	cli, err := exec.LookPath(filepath.Join(filepath.Dir(bin), "redis-cli"))
	if err != nil {
		cli, err = exec.LookPath("redis-cli")
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-cli is not installed; CI must install it (it comes with redis-server): %v", err)
		}
		t.Skipf("SKIP: redis-cli is not installed, so no Redis Cluster is made: %v", err)
	}
	cl := &Cluster{cli: cli}
	var addrs []string
	for i := range primaries * (1 + replicas) {
		nd := filepath.Join(dir, fmt.Sprintf("node%d", i))
		if err := os.MkdirAll(nd, 0o700); err != nil {
			t.Fatal(err)
		}
		srv := &Server{t: t, bin: bin, dir: nd, port: freePort(t)}
		srv.args = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(freePort(t)), "--cluster-node-timeout", "2000"}
		srv.Start()
		cl.Nodes = append(cl.Nodes, srv)
		addrs = append(addrs, srv.Addr())
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		cl.Stop()
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := cl.WaitOK(30 * time.Second); err != nil {
		cl.Stop()
		t.Fatal(err)
	}
	return cl
}

// WaitOK waits until every running node reports the cluster ok (after a
// node was stopped: its replica promoted) and every replica is in sync
// with its primary.
func (cl *Cluster) WaitOK(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, srv := range cl.Nodes {
		if !srv.Running() {
			continue
		}
		c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
		for {
			info, err := c.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				// A replica that has not synced with its primary yet
				// would never be promoted.
				info, err = c.Info(context.Background(), "replication").Result()
				if err == nil && (strings.Contains(info, "role:master") || strings.Contains(info, "master_link_status:up")) {
					break
				}
			}
			if time.Now().After(deadline) {
				c.Close()
				return fmt.Errorf("the cluster did not become ok at %s: %v\n%s", srv.Addr(), err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	}
	return nil
}

// Stop kills every node.
func (cl *Cluster) Stop() {
	for _, srv := range cl.Nodes {
		srv.Stop()
	}
}

// URL returns the cluster's store URL: redis+cluster:// with every node
// as a seed.
func (cl *Cluster) URL() string {
	var q []string
	for _, srv := range cl.Nodes[1:] {
		q = append(q, "addr="+srv.Addr())
	}
	return "redis+cluster://" + cl.Nodes[0].Addr() + "?" + strings.Join(q, "&")
}

// Client returns a cluster client of the cluster, closed when the test
// ends.
func (cl *Cluster) Client(t testing.TB) *redis.ClusterClient {
	var addrs []string
	for _, srv := range cl.Nodes {
		addrs = append(addrs, srv.Addr())
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	t.Cleanup(func() { c.Close() })
	return c
}

// Primaries returns the running nodes that are primaries now (ROLE
// answers master), in the order of Nodes.
func (cl *Cluster) Primaries() []*Server {
	var out []*Server
	for _, srv := range cl.Nodes {
		if !srv.Running() {
			continue
		}
		c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
		role, err := c.Do(context.Background(), "ROLE").Slice()
		c.Close()
		if err == nil && len(role) > 0 && role[0] == "master" {
			out = append(out, srv)
		}
	}
	return out
}

// KillPrimary stops the first running primary (its replica is promoted
// once the others see it fail) and returns it, or nil when none runs.
func (cl *Cluster) KillPrimary() *Server {
	p := cl.Primaries()
	if len(p) == 0 {
		return nil
	}
	p[0].Stop()
	return p[0]
}

// NodeID returns the cluster node ID of a node of a cluster (CLUSTER
// MYID).
func (srv *Server) NodeID() (string, error) {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), TLSConfig: srv.tls})
	defer c.Close()
	id, err := c.Do(context.Background(), "CLUSTER", "MYID").Text()
	if err != nil {
		return "", fmt.Errorf("CLUSTER MYID of %s: %w", srv.Addr(), err)
	}
	return id, nil
}

// Reshard moves n slots, and the keys in them, from the primary from to
// the primary to with redis-cli --cluster reshard, as an operator does
// while clients keep working, and returns redis-cli's output.
func (cl *Cluster) Reshard(from, to *Server, n int) (string, error) {
	fromID, err := from.NodeID()
	if err != nil {
		return "", err
	}
	toID, err := to.NodeID()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(cl.cli, "--cluster", "reshard", to.Addr(), "--cluster-from", fromID, "--cluster-to", toID,
		"--cluster-slots", strconv.Itoa(n), "--cluster-yes").CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("redis-cli --cluster reshard of %d slots from %s to %s: %w", n, from.Addr(), to.Addr(), err)
	}
	return string(out), nil
}
