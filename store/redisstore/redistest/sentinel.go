package redistest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinel is a primary and its replica on loopback ports, watched by
// Sentinels (redis-server --sentinel) that fail the primary over to the
// replica when it stops answering.
type Sentinel struct {
	Primary, Replica *Server
	Sentinels        []*Server
	// Master is the name the Sentinels know the primary by.
	Master string
}

// StartSentinel starts a primary, a replica of it and n Sentinels (a
// quorum of n/2+1) that monitor it as "crumbtest", and waits until the
// replica is in sync and every Sentinel knows the replica and the other
// Sentinels. Everything stops when the test ends.
func StartSentinel(t testing.TB, n int) *Sentinel {
	t.Helper()
	sn := &Sentinel{Master: "crumbtest"}
	sn.Primary = Start(t)
	sn.Replica = Start(t, "--replicaof", "127.0.0.1", fmt.Sprint(sn.Primary.port))
	for range n {
		srv := &Server{t: t, bin: Need(t), dir: t.TempDir(), port: freePort(t)}
		conf := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nlogfile sentinel.log\n"+
			"sentinel monitor %s 127.0.0.1 %d %d\nsentinel down-after-milliseconds %[3]s 1000\n"+
			"sentinel failover-timeout %[3]s 5000\nsentinel parallel-syncs %[3]s 1\n",
			srv.port, srv.dir, sn.Master, sn.Primary.port, n/2+1)
		srv.sentinelConf = filepath.Join(srv.dir, "sentinel.conf")
		if err := os.WriteFile(srv.sentinelConf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		srv.Start()
		t.Cleanup(srv.Stop)
		sn.Sentinels = append(sn.Sentinels, srv)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, srv := range sn.Sentinels {
		c := redis.NewSentinelClient(&redis.Options{Addr: srv.Addr()})
		for {
			ok, why := sn.known(c, n)
			if ok {
				break
			}
			if time.Now().After(deadline) {
				c.Close()
				t.Fatalf("Sentinel %s is not ready: %s", srv.Addr(), why)
			}
			time.Sleep(100 * time.Millisecond)
		}
		c.Close()
	}
	return sn
}

// known reports whether a Sentinel knows the replica, in sync, and the
// other n-1 Sentinels, and what it lacks when not.
func (sn *Sentinel) known(c *redis.SentinelClient, n int) (bool, string) {
	ctx := context.Background()
	replicas, err := c.Replicas(ctx, sn.Master).Result()
	if err != nil || len(replicas) == 0 {
		return false, fmt.Sprintf("no replica yet (%v)", err)
	}
	if l := replicas[0]["master-link-status"]; l != "ok" {
		return false, "the replica's link is " + l
	}
	sentinels, err := c.Sentinels(ctx, sn.Master).Result()
	if err != nil || len(sentinels) < n-1 {
		return false, fmt.Sprintf("%d other Sentinels known of %d (%v)", len(sentinels), n-1, err)
	}
	return true, ""
}

// URL returns the store URL of the Sentinels' primary:
// redis+sentinel://SENTINEL?addr=SENTINEL2&...&master=NAME.
func (sn *Sentinel) URL() string {
	q := []string{}
	for _, srv := range sn.Sentinels[1:] {
		q = append(q, "addr="+srv.Addr())
	}
	q = append(q, "master="+sn.Master)
	return "redis+sentinel://" + sn.Sentinels[0].Addr() + "?" + strings.Join(q, "&")
}

// PrimaryAddr returns the primary's address as the first Sentinel that
// answers names it.
func (sn *Sentinel) PrimaryAddr() (string, error) {
	var last error
	for _, srv := range sn.Sentinels {
		if !srv.Running() {
			continue
		}
		c := redis.NewSentinelClient(&redis.Options{Addr: srv.Addr()})
		a, err := c.GetMasterAddrByName(context.Background(), sn.Master).Result()
		c.Close()
		if err == nil && len(a) == 2 {
			return a[0] + ":" + a[1], nil
		}
		last = err
	}
	return "", fmt.Errorf("no Sentinel names the primary %s: %v", sn.Master, last)
}

// WaitFailover waits until the Sentinels name the replica as the primary
// and it answers as one.
func (sn *Sentinel) WaitFailover(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := redis.NewClient(&redis.Options{Addr: sn.Replica.Addr()})
	defer c.Close()
	for {
		addr, err := sn.PrimaryAddr()
		if err == nil && addr == sn.Replica.Addr() {
			role, err := c.Do(context.Background(), "ROLE").Slice()
			if err == nil && len(role) > 0 && role[0] == "master" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Sentinels did not fail %s over to %s: they name %q (%v)", sn.Master, sn.Replica.Addr(), addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
