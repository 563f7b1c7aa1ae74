package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/cli"
	"github.com/omoide/omoide/omoidehttp"
)

const moveDescription = `Move moves people between two running nodes ("omoide serve"), over their HTTP API, one person
at a time:

  1. hold the person's writes at the source (they get 503 with Retry-After; reads go on);
  2. export their episodes from the source, page by page;
  3. import them at the destination (idempotent: an episode already there is not added again);
  4. check that every exported episode is at the destination;
  5. forget the person at the source (erasure: docs/reliability.md).

Their hold at the source then lasts until it expires (-hold), so that a write still routed to
the source waits for the proxy to route it to the destination rather than land on the wrong
node. A move interrupted at any step loses nothing: until step 5 the source holds everything,
and running the same move again completes it. Route the people to the destination (the proxy's
configuration) before their hold expires.

`

func runMove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("move", stderr)
	from := fs.String("from", "", "the source node's base `URL`, e.g. http://127.0.0.1:8765 (required)")
	to := fs.String("to", "", "the destination node's base `URL` (required)")
	usersFile := fs.String("users", "", "read the people to move from this `file`, one a line (\"-\": standard input), besides the arguments")
	proxy := fs.String("proxy", "", "move every person of -from whom the proxy at this `URL` now routes to -to (each node run with -node NAME): after a node is added")
	holdFor := fs.Duration("hold", 5*time.Minute, "how long the source refuses a moved person's writes")
	timeout := fs.Duration("timeout", time.Minute, "bound on each HTTP request")
	setUsage(fs, "omoide move -from URL -to URL [-users FILE | -proxy URL] [USER ...]", moveDescription+
		"The bearer token of both nodes, if they have one, is read from "+envToken+".\n\n")
	people, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if *usersFile != "" {
		more, err := readLines(*usersFile)
		if err != nil {
			return err
		}
		people = append(people, more...)
	}
	m := mover{from: strings.TrimRight(*from, "/"), to: strings.TrimRight(*to, "/"), token: os.Getenv(envToken),
		hold: *holdFor, client: &http.Client{Timeout: *timeout}}
	if *proxy != "" && *from != "" && *to != "" {
		owned, err := m.ownedByDestination(ctx, strings.TrimRight(*proxy, "/"))
		if err != nil {
			return err
		}
		people = append(people, owned...)
		if len(people) == 0 {
			fmt.Fprintln(stdout, "the proxy routes none of the source's people to the destination: nothing to move")
			return nil
		}
	}
	switch {
	case *from == "" || *to == "":
		return fmt.Errorf("%w: -from and -to are required", errUsage)
	case strings.TrimRight(*from, "/") == strings.TrimRight(*to, "/"):
		return fmt.Errorf("%w: -from and -to are the same node", errUsage)
	case len(people) == 0:
		return fmt.Errorf("%w: no people to move: name them, or give -users", errUsage)
	case *holdFor <= 0 || *holdFor > omoidehttp.MaxHold:
		return fmt.Errorf("%w: -hold %s: want more than 0 and at most %s", errUsage, *holdFor, omoidehttp.MaxHold)
	}
	start, episodes := time.Now(), 0
	for i, user := range people {
		n, err := m.move(ctx, user)
		if err != nil {
			return fmt.Errorf("move %q (%d of %d; the people before it are moved): %w", user, i+1, len(people), err)
		}
		episodes += n
		fmt.Fprintf(stdout, "moved %q: %d episodes\n", user, n)
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "moved %d people, %d episodes, in %s (%s people/s, %s episodes/s)\n", len(people), episodes,
		elapsed.Round(time.Millisecond), rate(len(people), elapsed), rate(episodes, elapsed))
	return nil
}

// readLines reads the non-empty lines of name ("-": standard input).
func readLines(name string) ([]string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// mover moves people between two nodes over their HTTP API.
type mover struct {
	from, to, token string
	hold            time.Duration
	client          *http.Client
}

// move moves one person (see moveDescription) and returns how many episodes
// it moved. When it fails it releases the hold, so that the person is
// writable at the source again and the move can be run again at once.
func (m mover) move(ctx context.Context, user string) (int, error) {
	base := "/v1/users/" + url.PathEscape(user)
	// The same move gets the same token, so that running it again renews its
	// hold instead of waiting for it to end; another move of the person is
	// refused while the hold lasts.
	sum := sha256.Sum256([]byte(m.from + "\x00" + m.to + "\x00" + user))
	var held struct{ Token string }
	if err := m.call(ctx, http.MethodPost, m.from+base+"/hold", "", map[string]any{"seconds": int(m.hold.Seconds()), "token": hex.EncodeToString(sum[:16])}, &held); err != nil {
		return 0, fmt.Errorf("hold at the source: %w", err)
	}
	n, err := m.copyAndForget(ctx, base, held.Token)
	if err != nil {
		if rerr := m.call(context.WithoutCancel(ctx), http.MethodDelete, m.from+base+"/hold", held.Token, nil, nil); rerr != nil {
			err = errors.Join(err, fmt.Errorf("release the hold (it ends by itself at its expiry): %w", rerr))
		}
		n = max(n, 0)
	}
	return n, err
}

// copyAndForget is move's steps 2 to 5; n is -1 when it failed before the
// forget.
func (m mover) copyAndForget(ctx context.Context, base, token string) (n int, err error) {
	recs, err := m.export(ctx, m.from+base+"/episodes")
	if err != nil {
		return -1, fmt.Errorf("export from the source: %w", err)
	}
	for start := 0; start < len(recs); start += omoidehttp.MaxPage {
		batch := recs[start:min(start+omoidehttp.MaxPage, len(recs))]
		if err := m.call(ctx, http.MethodPost, m.to+base+"/episodes", "", batch, nil); err != nil {
			return -1, fmt.Errorf("import at the destination (episodes %d..%d): %w", start, start+len(batch)-1, err)
		}
	}
	there, err := m.export(ctx, m.to+base+"/episodes")
	if err != nil {
		return -1, fmt.Errorf("count at the destination: %w", err)
	}
	have := make(map[string]bool, len(there))
	for _, r := range there {
		have[r.ID] = true
	}
	for _, r := range recs {
		if !have[r.ID] {
			return -1, fmt.Errorf("episode %q is not at the destination after the import: the source keeps the person", r.ID)
		}
	}
	var forgot struct{ Deleted int }
	if err := m.call(ctx, http.MethodDelete, m.from+base, token, nil, &forgot); err != nil {
		return 0, fmt.Errorf("forget at the source (the destination holds all %d episodes; run the move again): %w", len(recs), err)
	}
	if forgot.Deleted != len(recs) {
		return len(recs), fmt.Errorf("the source forgot %d episodes, %d were exported: a write passed the hold", forgot.Deleted, len(recs))
	}
	return len(recs), nil
}

// export reads every page of a person's episodes at url.
func (m mover) export(ctx context.Context, u string) ([]episode.Record, error) {
	var all []episode.Record
	next := ""
	for {
		var page struct {
			Episodes []episode.Record `json:"episodes"`
			Next     *int64           `json:"next"`
		}
		q := "?limit=" + strconv.Itoa(omoidehttp.MaxPage)
		if next != "" {
			q += "&after=" + next
		}
		if err := m.call(ctx, http.MethodGet, u+q, "", nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Episodes...)
		if page.Next == nil || len(page.Episodes) == 0 {
			return all, nil
		}
		next = strconv.FormatInt(*page.Next, 10)
	}
}

// call sends body (JSON, when not nil) and decodes a 200's answer into out
// (when not nil); any other status is an error with the node's message. hold,
// when not "", is sent as the omoidehttp.HoldHeader.
func (m mover) call(ctx context.Context, method, u, hold string, body, out any) error {
	h := http.Header{}
	if hold != "" {
		h.Set(omoidehttp.HoldHeader, hold)
	}
	return m.send(ctx, method, u, h, body, out)
}

// callAs is call routed as user (omoidehttp.UserHeader).
func (m mover) callAs(ctx context.Context, method, u, user string, body, out any) error {
	h := http.Header{}
	h.Set(omoidehttp.UserHeader, user)
	return m.send(ctx, method, u, h, body, out)
}

// send is call and callAs: the request with the token and header h.
func (m mover) send(ctx context.Context, method, u string, h http.Header, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return err
	}
	req.Header = h
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.token != "" {
		req.Header.Set("Authorization", "Bearer "+m.token)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s %s: %d: %s", method, u, resp.StatusCode, e.Error)
		}
		return fmt.Errorf("%s %s: %d", method, u, resp.StatusCode)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return errors.Join(fmt.Errorf("%s %s: decoding the answer", method, u), err)
	}
	return nil
}

// ownedByDestination lists the source's people whom the proxy routes to the
// destination: it asks the destination its node name (GET /v1/node), then,
// for each person of the source (GET /v1/users), which node answers GET
// /v1/node through the proxy when the request is routed as that person.
func (m mover) ownedByDestination(ctx context.Context, proxy string) ([]string, error) {
	var dest struct{ Node string }
	if err := m.call(ctx, http.MethodGet, m.to+"/v1/node", "", nil, &dest); err != nil {
		return nil, fmt.Errorf("the destination's name: %w", err)
	}
	if dest.Node == "" {
		return nil, errors.New("the destination reports no node name: run every node with -node NAME")
	}
	people, err := m.people(ctx, m.from)
	if err != nil {
		return nil, fmt.Errorf("the source's people: %w", err)
	}
	var owned []string
	for _, p := range people {
		var at struct{ Node string }
		if err := m.callAs(ctx, http.MethodGet, proxy+"/v1/node", p.User, nil, &at); err != nil {
			return nil, fmt.Errorf("where the proxy routes %q: %w", p.User, err)
		}
		if at.Node == dest.Node {
			owned = append(owned, p.User)
		}
	}
	return owned, nil
}

// people reads every page of the people of the node at base (GET /v1/users).
func (m mover) people(ctx context.Context, base string) ([]episode.Person, error) {
	var all []episode.Person
	after := ""
	for {
		var page struct {
			Users []episode.Person `json:"users"`
			Next  *string          `json:"next"`
		}
		q := "?limit=" + strconv.Itoa(omoidehttp.MaxPage)
		if after != "" {
			q += "&after=" + url.QueryEscape(after)
		}
		if err := m.call(ctx, http.MethodGet, base+"/v1/users"+q, "", nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Users...)
		if page.Next == nil || len(page.Users) == 0 {
			return all, nil
		}
		after = *page.Next
	}
}
