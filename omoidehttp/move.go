package omoidehttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Mover moves people between two nodes that serve this API ("omoide move"),
// over HTTP, one person at a time: it holds the person's writes at the
// source (503 with Retry-After; reads go on), exports their episodes page by
// page, imports them at the destination (idempotent), checks that every one
// arrived, and forgets the person at the source. The hold then lasts until
// it expires, so that a write still routed to the source waits for the proxy
// to route it to the destination. A move interrupted at any step loses
// nothing, and running it again completes it.
type Mover struct {
	From, To string        // the nodes' base URLs, e.g. http://127.0.0.1:8765
	Token    string        // the bearer token of both nodes, if they have one
	Hold     time.Duration // how long the source refuses a moved person's writes; 0: DefaultMoveHold, at most MaxHold
	HTTP     *http.Client  // nil: http.DefaultClient
	// Keep copies and checks but leaves the person at the source, held:
	// the first half of adding a node with no window, before the proxy
	// switches. The same move run again without Keep, after the switch,
	// forgets them there (its hold is the same, renewed).
	Keep bool
}

// DefaultMoveHold is the hold of a Mover whose Hold is 0.
const DefaultMoveHold = 5 * time.Minute

// nodes are the source's and the destination's clients.
func (m Mover) nodes() (from, to Client) {
	return Client{BaseURL: m.From, Token: m.Token, HTTP: m.HTTP}, Client{BaseURL: m.To, Token: m.Token, HTTP: m.HTTP}
}

// Move moves one person and returns how many episodes it moved. When it
// fails it releases the hold, so that the person is writable at the source
// again and the move can be run again at once.
func (m Mover) Move(ctx context.Context, user string) (int, error) {
	m.From, m.To = strings.TrimRight(m.From, "/"), strings.TrimRight(m.To, "/")
	switch {
	case m.From == "" || m.To == "":
		return 0, errors.New("move: the source and the destination are both needed")
	case m.From == m.To:
		return 0, errors.New("move: the source and the destination are the same node")
	case m.Hold < 0 || m.Hold > MaxHold:
		return 0, fmt.Errorf("move: hold %s: want at most %s", m.Hold, MaxHold)
	case m.Hold == 0:
		m.Hold = DefaultMoveHold
	}
	from, _ := m.nodes()
	base := "/v1/users/" + url.PathEscape(user)
	// The same move gets the same token, so that running it again renews its
	// hold instead of waiting for it to end; another move of the person is
	// refused while the hold lasts.
	sum := sha256.Sum256([]byte(m.From + "\x00" + m.To + "\x00" + user))
	var held Hold
	if err := from.Do(ctx, http.MethodPost, base+"/hold", nil, holdRequest{Seconds: int(m.Hold.Seconds()), Token: hex.EncodeToString(sum[:16])}, &held); err != nil {
		return 0, fmt.Errorf("hold at the source: %w", err)
	}
	n, err := m.copyAndForget(ctx, user, held.Token)
	if err != nil {
		if rerr := from.Do(context.WithoutCancel(ctx), http.MethodDelete, base+"/hold", holding(held.Token), nil, nil); rerr != nil {
			err = errors.Join(err, fmt.Errorf("release the hold (it ends by itself at its expiry): %w", rerr))
		}
	}
	return n, err
}

// holding is the header of a write that the hold of token lets through.
func holding(token string) http.Header {
	h := http.Header{}
	h.Set(HoldHeader, token)
	return h
}

// copyAndForget is Move's steps after the hold; n counts the episodes moved
// (copied, with Keep), 0 when it failed before the forget.
func (m Mover) copyAndForget(ctx context.Context, user, token string) (n int, err error) {
	from, to := m.nodes()
	base := "/v1/users/" + url.PathEscape(user)
	recs, err := from.Episodes(ctx, user)
	if err != nil {
		return 0, fmt.Errorf("export from the source: %w", err)
	}
	for start := 0; start < len(recs); start += MaxPage {
		batch := recs[start:min(start+MaxPage, len(recs))]
		if err := to.Do(ctx, http.MethodPost, base+"/episodes", nil, batch, nil); err != nil {
			return 0, fmt.Errorf("import at the destination (episodes %d..%d): %w", start, start+len(batch)-1, err)
		}
	}
	there, err := to.Episodes(ctx, user)
	if err != nil {
		return 0, fmt.Errorf("count at the destination: %w", err)
	}
	have := make(map[string]bool, len(there))
	for _, r := range there {
		have[r.ID] = true
	}
	for _, r := range recs {
		if !have[r.ID] {
			return 0, fmt.Errorf("episode %q is not at the destination after the import: the source keeps the person", r.ID)
		}
	}
	if m.Keep {
		return len(recs), nil
	}
	forgot, err := from.Forget(ctx, user, holding(token))
	if err != nil {
		return 0, fmt.Errorf("forget at the source (the destination holds all %d episodes; run the move again): %w", len(recs), err)
	}
	if forgot.Deleted != len(recs) {
		return len(recs), fmt.Errorf("the source forgot %d episodes, %d were exported: a write passed the hold", forgot.Deleted, len(recs))
	}
	return len(recs), nil
}

// OwnedBy returns the source's people whom the node list peers gives to
// upstream (Owner): whom a node joining the list takes, known before the
// proxy switches to it.
func (m Mover) OwnedBy(ctx context.Context, peers []string, upstream string) ([]string, error) {
	if err := CheckPeers(peers, upstream); err != nil {
		return nil, err
	}
	from, _ := m.nodes()
	people, err := from.People(ctx)
	if err != nil {
		return nil, fmt.Errorf("the source's people: %w", err)
	}
	var owned []string
	for _, p := range people {
		if Owner(peers, p.User) == upstream {
			owned = append(owned, p.User)
		}
	}
	return owned, nil
}

// OwnedByDestination lists the source's people whom the proxy at the base
// URL proxy routes to the destination (after a node is added): it asks the
// destination its node name, then, for each person of the source, which node
// answers through the proxy when the request is routed as that person.
func (m Mover) OwnedByDestination(ctx context.Context, proxy string) ([]string, error) {
	from, to := m.nodes()
	dest, err := to.Node(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("the destination's name: %w", err)
	}
	if dest == "" {
		return nil, errors.New("the destination reports no node name: run every node with -node NAME")
	}
	people, err := from.People(ctx)
	if err != nil {
		return nil, fmt.Errorf("the source's people: %w", err)
	}
	via := Client{BaseURL: proxy, Token: m.Token, HTTP: m.HTTP}
	var owned []string
	for _, p := range people {
		at, err := via.Node(ctx, As(p.User))
		if err != nil {
			return nil, fmt.Errorf("where the proxy routes %q: %w", p.User, err)
		}
		if at == dest {
			owned = append(owned, p.User)
		}
	}
	return owned, nil
}
