package omoidehttp

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Owner returns the node of peers that owns user: the one a proxy hashing
// UserHeader by rendezvous (highest random weight) picks when every node is
// up, as Caddy's "lb_policy header" does (deploy/Caddyfile): the highest
// xxHash64 of the node, as written in the proxy's list, followed by the
// person. "" when peers is empty.
func Owner(peers []string, user string) string {
	var best uint64
	owner := ""
	for _, p := range peers {
		if h := xxhash.Sum64String(p + user); h > best || owner == "" {
			best, owner = h, p
		}
	}
	return owner
}

// owns refuses (421 Misdirected Request) a person this node does not own
// by Config.Peers, so that a proxy whose list disagrees with the nodes' can
// never split a person over two nodes: the request fails instead of landing
// on the wrong one. Without Peers every person is this node's.
func (s *Handler) owns(user string) error {
	if len(s.cfg.Peers) == 0 {
		return nil
	}
	if owner := Owner(s.cfg.Peers, user); owner != s.cfg.Upstream {
		return &httpError{http.StatusMisdirectedRequest, fmt.Sprintf("%q is owned by node %s, not this one (%s): the proxy's node list and this node's peers disagree", user, owner, s.cfg.Upstream)}
	}
	return nil
}

// CheckPeers says what is wrong with a node's Config.Peers and Upstream,
// for a program to refuse them before serving: a node missing from its own
// list would own no one.
func CheckPeers(peers []string, upstream string) error {
	if len(peers) == 0 {
		return nil
	}
	if upstream == "" {
		return fmt.Errorf("peers given without this node's own entry in them (Upstream)")
	}
	if !slices.Contains(peers, upstream) {
		return fmt.Errorf("this node, %s, is not among its peers %q: it would own no one", upstream, peers)
	}
	return nil
}
