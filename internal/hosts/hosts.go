// Package hosts decides which Host headers a server without a token
// answers: a page on another site can rebind its own name to 127.0.0.1 and
// then read and change what a loopback server serves, as if it were the
// server's own page (DNS rebinding). Such a page's requests carry its own
// name in Host, which no loopback name or address is.
package hosts

import (
	"net"
	"net/netip"
	"strings"
)

// Loopback reports whether host (a Host header: a name or address, with or
// without a port) names this machine's loopback: "localhost", a name
// under .localhost (RFC 6761: always loopback), or a loopback address
// (127.0.0.0/8, ::1).
func Loopback(host string) bool {
	name := hostname(host)
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}

// Allowed reports whether host is loopback (Loopback) or one of extra
// (names or addresses, with or without a port; a port given must match),
// compared without regard to case.
func Allowed(host string, extra []string) bool {
	if Loopback(host) {
		return true
	}
	name, port := hostname(host), portOf(host)
	for _, e := range extra {
		if hostname(e) == name && name != "" && (portOf(e) == "" || portOf(e) == port) {
			return true
		}
	}
	return false
}

// hostname is host's name or address in lower case, without its port, its
// IPv6 brackets or a final dot.
func hostname(host string) string {
	h := host
	if name, _, err := net.SplitHostPort(host); err == nil {
		h = name
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}

// portOf is host's port, "" when it has none.
func portOf(host string) string {
	if _, port, err := net.SplitHostPort(host); err == nil {
		return port
	}
	return ""
}

// Of returns the host a listening address may be reached under, for
// Allowed's extra: its host when it names one ("192.168.1.5:8765",
// "omoide.lan:8765"), none for every interface ("0.0.0.0:8765", ":8765",
// "[::]:8765") or loopback (which Loopback already takes).
func Of(addr string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || Loopback(host) {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		return nil
	}
	return []string{host}
}
