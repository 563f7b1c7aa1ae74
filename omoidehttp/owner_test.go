package omoidehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidehttp"
)

// TestOwner: the owner is the node of the highest xxHash64 of node and
// person, as Caddy's header policy picks (the cluster test checks it
// against Caddy itself); a node added takes only people from the others.
func TestOwner(t *testing.T) {
	peers := []string{"127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"}
	count := map[string]int{}
	moved := 0
	for i := range 3000 {
		u := fmt.Sprintf("person%04d", i)
		o := omoidehttp.Owner(peers, u)
		for _, p := range peers {
			if xxhash.Sum64String(p+u) > xxhash.Sum64String(o+u) {
				t.Fatalf("%s: owner %s, but %s hashes higher", u, o, p)
			}
		}
		count[o]++
		if n := omoidehttp.Owner(append(peers[:3:3], "127.0.0.1:9004"), u); n != o {
			if n != "127.0.0.1:9004" {
				t.Fatalf("%s moved from %s to %s when a fourth node came", u, o, n)
			}
			moved++
		}
	}
	for _, p := range peers {
		if count[p] < 900 || count[p] > 1100 {
			t.Errorf("%s owns %d of 3,000 people: not about a third", p, count[p])
		}
	}
	if moved < 600 || moved > 900 {
		t.Errorf("a fourth node took %d of 3,000, want about a quarter", moved)
	}
	if omoidehttp.Owner(nil, "x") != "" {
		t.Error("no peers: an owner")
	}
	// A name in any script is hashed in the header's wire form, as the
	// proxy hashes the header as sent; for some names that is another node
	// than the raw UTF-8 would pick.
	differs := 0
	for i := range 300 {
		u := fmt.Sprintf("はるか%d", i)
		wire := omoidehttp.EncodeUser(u)
		o := omoidehttp.Owner(peers, u)
		for _, p := range peers {
			if xxhash.Sum64String(p+wire) > xxhash.Sum64String(o+wire) {
				t.Fatalf("%s: owner %s, but %s hashes %q higher", u, o, p, wire)
			}
		}
		best := peers[0]
		for _, p := range peers {
			if xxhash.Sum64String(p+u) > xxhash.Sum64String(best+u) {
				best = p
			}
		}
		if best != o {
			differs++
		}
	}
	if differs == 0 {
		t.Error("no CJK name's owner differs between the raw name and its wire form: the check above proves nothing")
	}
	for _, tc := range []struct {
		peers    []string
		upstream string
		ok       bool
	}{{nil, "", true}, {peers, peers[1], true}, {peers, "", false}, {peers, "127.0.0.1:9009", false}} {
		if err := omoidehttp.CheckPeers(tc.peers, tc.upstream); (err == nil) != tc.ok {
			t.Errorf("CheckPeers(%q, %q) = %v", tc.peers, tc.upstream, err)
		}
	}
}

// TestMisdirected: a node with peers answers 421 for a person another node
// owns, on every per-person route and for a body's people, and serves its own.
func TestMisdirected(t *testing.T) {
	ctx := context.Background()
	peers := []string{"n1:1", "n2:1"}
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "n1.db")})
	if err != nil {
		t.Fatal(err)
	}
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{Peers: peers, Upstream: "n1:1"})
	srv := httptest.NewServer(h)
	defer func() { srv.Close(); h.Wait(); mem.Close() }()
	var mine, theirs string
	for i := 0; mine == "" || theirs == ""; i++ {
		u := fmt.Sprint("p", i)
		if omoidehttp.Owner(peers, u) == "n1:1" {
			mine = u
		} else {
			theirs = u
		}
	}
	c := omoidehttp.Client{BaseURL: srv.URL}
	rec := func(u string) []episode.Record { return []episode.Record{{ID: "1", User: u, UserText: "猫の話"}} }
	if err := c.Do(ctx, "POST", "/v1/episodes", omoidehttp.As(mine), rec(mine), nil); err != nil {
		t.Fatalf("its own person: %v", err)
	}
	for _, tc := range []struct {
		method, path string
		routed       bool
		body         any
	}{
		{"POST", "/v1/episodes", true, rec(theirs)},
		{"POST", "/v1/episodes", false, rec(theirs)}, // unrouted: the body's person
		{"POST", "/v1/users/" + theirs + "/episodes", false, rec(theirs)},
		{"GET", "/v1/users/" + theirs + "/episodes", false, nil},
		{"POST", "/v1/retrieve", true, map[string]string{"text": "猫"}},
		{"POST", "/v1/retrieve", false, map[string]string{"user": theirs, "text": "猫"}},
		{"POST", "/v1/pack", true, map[string]string{"text": "猫"}},
		{"DELETE", "/v1/users/" + theirs, false, nil},
	} {
		var hdr http.Header
		if tc.routed {
			hdr = omoidehttp.As(theirs)
		}
		err := c.Do(ctx, tc.method, tc.path, hdr, tc.body, nil)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(http.StatusMisdirectedRequest)) || !strings.Contains(err.Error(), "owned by node n2:1") {
			t.Errorf("%s %s (routed %v): %v, want a 421 naming the owner", tc.method, tc.path, tc.routed, err)
		}
	}
	if recs, err := c.Episodes(ctx, mine); err != nil || len(recs) != 1 {
		t.Errorf("its own person's episodes: %v, %v", recs, err)
	}
}

// TestMoverKeep: a move with Keep copies a person and leaves them at the
// source, held (reads go on, writes wait); the same move without Keep then
// forgets them there. OwnedBy names whom a node list gives the destination.
func TestMoverKeep(t *testing.T) {
	ctx := context.Background()
	node := func(name string) string {
		mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), name+".db")})
		if err != nil {
			t.Fatal(err)
		}
		h := omoidehttp.NewHandler(mem, omoidehttp.Config{Node: name})
		srv := httptest.NewServer(h)
		t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })
		return srv.URL
	}
	a, b := node("a"), node("b")
	src, dst := omoidehttp.Client{BaseURL: a}, omoidehttp.Client{BaseURL: b}
	for i := range 20 {
		u := fmt.Sprint("p", i)
		if err := src.Do(ctx, "POST", "/v1/episodes", omoidehttp.As(u), []episode.Record{{ID: "1", User: u, UserText: "猫の話"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	peers := []string{"a:1", strings.TrimPrefix(b, "http://")}
	m := omoidehttp.Mover{From: a, To: b, Keep: true}
	owned, err := m.OwnedBy(ctx, peers, peers[1])
	if err != nil || len(owned) == 0 || len(owned) == 20 {
		t.Fatalf("OwnedBy = %v, %v: want some of the 20", owned, err)
	}
	for _, u := range owned {
		if omoidehttp.Owner(peers, u) != peers[1] {
			t.Fatalf("%s is not the destination's", u)
		}
	}
	if _, err := m.OwnedBy(ctx, peers, "c:1"); err == nil {
		t.Error("OwnedBy for a node not in the list: no error")
	}
	u := owned[0]
	if n, err := m.Move(ctx, u); err != nil || n != 1 {
		t.Fatalf("Keep move = %d, %v", n, err)
	}
	if recs, err := src.Episodes(ctx, u); err != nil || len(recs) != 1 {
		t.Errorf("the source after a Keep move: %v, %v; want the person still there", recs, err)
	}
	if recs, err := dst.Episodes(ctx, u); err != nil || len(recs) != 1 {
		t.Errorf("the destination after a Keep move: %v, %v", recs, err)
	}
	err = src.Do(ctx, "POST", "/v1/episodes", omoidehttp.As(u), []episode.Record{{ID: "2", User: u, UserText: "x"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a write at the source after a Keep move: %v, want 503 (held)", err)
	}
	m.Keep = false
	if n, err := m.Move(ctx, u); err != nil || n != 1 {
		t.Fatalf("the move again without Keep = %d, %v", n, err)
	}
	if recs, _ := src.Episodes(ctx, u); len(recs) != 0 {
		t.Errorf("the source still holds %d episodes after the move", len(recs))
	}
}
