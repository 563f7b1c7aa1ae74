package omoidehttp

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/omoide/omoide/episode/sqlite"
)

// Owner returns the node of peers that owns user: the one a proxy hashing
// UserHeader by rendezvous (highest random weight) picks when every node is
// up, as Caddy's "lb_policy header" does (deploy/Caddyfile): the highest
// xxHash64 of the node, as written in the proxy's list, followed by the
// person's name in the header's wire form (EncodeUser), which is what the
// proxy hashes. "" when peers is empty.
func Owner(peers []string, user string) string {
	var best uint64
	owner := ""
	wire := EncodeUser(user)
	for _, p := range peers {
		if h := xxhash.Sum64String(p + wire); h > best || owner == "" {
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
		return &httpError{http.StatusMisdirectedRequest, fmt.Sprintf("%q is owned by node %s, not this one (%s): send their requests there, or through the proxy that routes by the %s header (if one did send this, its node list and this node's peers disagree)", user, owner, s.cfg.Upstream, UserHeader)}
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

// Unowned counts the people store holds that another node of peers owns
// (Owner is not upstream): people stored before the node list was set or
// changed. They stay reachable here for export, forget and omoide move
// (Handler.person); their retrievals and writes go to their owner, which
// does not hold them until they are moved. 0 without peers.
func Unowned(ctx context.Context, store *sqlite.Store, peers []string, upstream string) (int, error) {
	if len(peers) == 0 {
		return 0, nil
	}
	n, after := 0, ""
	for {
		page, err := store.People(ctx, after, MaxPage)
		if err != nil {
			return 0, err
		}
		for _, p := range page {
			if Owner(peers, p.User) != upstream {
				n++
			}
		}
		if len(page) < MaxPage {
			return n, nil
		}
		after = page[len(page)-1].User
	}
}
