// Package netaddr answers questions about network addresses that crumb's
// servers ask: whether an address a listener or a request names is
// loopback only.
package netaddr

import (
	"net"
	"strings"
)

// IsLoopback reports whether addr (host or host:port) names only loopback
// addresses. An empty host, which listens on every interface, is not.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
