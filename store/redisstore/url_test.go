package redisstore

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestParseURL checks which client each form of store URL makes, with
// which addresses, and that malformed URLs are refused with ErrBadURL and
// a message that says what is wrong, never the password.
func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url    string
		kind   string // "one", "cluster", "failover"
		addrs  string
		ns     string
		master string
		tls    bool
	}{
		{url: "redis://h:1/2?namespace=n1", kind: "one", addrs: "h:1", ns: "n1"},
		{url: "rediss://u:pw@h:1/0", kind: "one", addrs: "h:1", tls: true},
		{url: "redis+cluster://h:1", kind: "cluster", addrs: "h:1"},
		{url: "redis+cluster://u:pw@h:1/?addr=h2:2&addr=h3:3&namespace=fleet&dial_timeout=2s", kind: "cluster", addrs: "h:1,h2:2,h3:3", ns: "fleet"},
		{url: "rediss+cluster://h:1?addr=h2:2", kind: "cluster", addrs: "h:1,h2:2", tls: true},
		{url: "REDIS+CLUSTER://h:1", kind: "cluster", addrs: "h:1"},
		{url: "redis+sentinel://h:26379?addr=h2:26380&master=mymaster", kind: "failover", addrs: "h:26379,h2:26380", master: "mymaster"},
		{url: "rediss+sentinel://h:1?master_name=m&password=pw", kind: "failover", addrs: "h:1", master: "m", tls: true},
	} {
		t.Run(tc.url, func(t *testing.T) {
			c, addrs, where, ns, err := parseURL(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			kind := "one"
			tls := c.one != nil && c.one.TLSConfig != nil
			switch {
			case c.cluster != nil:
				kind, tls = "cluster", c.cluster.TLSConfig != nil
			case c.failover != nil:
				kind, tls = "failover", c.failover.TLSConfig != nil
				if c.failover.MasterName != tc.master {
					t.Errorf("master %q, want %q", c.failover.MasterName, tc.master)
				}
			}
			if kind != tc.kind || strings.Join(addrs, ",") != tc.addrs || ns != tc.ns || tls != tc.tls {
				t.Errorf("got %s %v ns %q tls %v; want %s %s ns %q tls %v", kind, addrs, ns, tls, tc.kind, tc.addrs, tc.ns, tc.tls)
			}
			if strings.Contains(where, "pw") {
				t.Errorf("where %q shows the password", where)
			}
			if c.cluster != nil && strings.Contains(tc.url, "dial_timeout=2s") && c.cluster.DialTimeout != 2*time.Second {
				t.Errorf("dial timeout %v, want 2s", c.cluster.DialTimeout)
			}
		})
	}
	for _, tc := range []struct{ url, says string }{
		{"redis+cluster://u:s3cret@h:1/3", "only database 0"},
		{"redis+cluster://h", "no HOST:PORT"},
		{"redis+cluster://h:1?addr=nohost", `addr="nohost"`},
		{"redis+cluster://h:1?bogus=1", "bogus"},
		{"redis+sentinel://h:1", "no master=NAME"},
		{"redis://h:1/0?addr=h2:2", "only redis+cluster"},
		{"redis+cluster://%zz", "invalid"},
		{"redis+shard://h:1", "redis+cluster://"},
	} {
		_, err := Open(t.Context(), tc.url, Options{})
		if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Open(%q): %v; want ErrBadURL saying %q", tc.url, err, tc.says)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q): %v shows the password", tc.url, err)
		}
	}
}
