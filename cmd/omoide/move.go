package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/omoide/omoide/cmd/internal/cli"
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

Adding a node with no window in which it answers without a person's memories (docs/scale-out.md):
start it with the new list (serve -peers); for each old node, "omoide move -from OLD -to NEW -peers
NEWLIST -keep" copies the people the new list gives it, held at the old node, which still serves
their reads; switch the proxy to the new list ("caddy reload"); then the same moves without -keep
forget them at the old nodes.

`

func runMove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("move", stderr)
	from := fs.String("from", "", "the source node's base `URL`, e.g. http://127.0.0.1:8765 (required)")
	to := fs.String("to", "", "the destination node's base `URL` (required)")
	usersFile := fs.String("users", "", "read the people to move from this `file`, one a line (\"-\": standard input), besides the arguments")
	proxy := fs.String("proxy", "", "move every person of -from whom the proxy at this `URL` now routes to -to (each node run with -node NAME): after a node is added")
	peers := fs.String("peers", "", "move every person of -from whom this node `list` (the proxy's next one, with the destination in it) gives to -to: before the proxy switches")
	upstream := fs.String("upstream", "", "the destination's entry in -peers (default: the host:port of -to)")
	keep := fs.Bool("keep", false, "copy and check, but keep the people at the source, held: run again without -keep after the proxy switches, to forget them there")
	holdFor := fs.Duration("hold", omoidehttp.DefaultMoveHold, "how long the source refuses a moved person's writes")
	timeout := fs.Duration("timeout", time.Minute, "bound on each HTTP request")
	setUsage(fs, "omoide move -from URL -to URL [-users FILE | -proxy URL] [USER ...]", moveDescription+
		"The bearer token of both nodes, if they have one, is read from "+envToken+".\n\n")
	people, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if *usersFile != "" {
		more, err := cli.ReadLines(*usersFile, stdin)
		if err != nil {
			return err
		}
		people = append(people, more...)
	}
	switch {
	case *from == "" || *to == "":
		return fmt.Errorf("%w: -from and -to are required", errUsage)
	case strings.TrimRight(*from, "/") == strings.TrimRight(*to, "/"):
		return fmt.Errorf("%w: -from and -to are the same node", errUsage)
	case *holdFor <= 0 || *holdFor > omoidehttp.MaxHold:
		return fmt.Errorf("%w: -hold %s: want more than 0 and at most %s", errUsage, *holdFor, omoidehttp.MaxHold)
	}
	if *peers != "" {
		if *upstream == "" {
			*upstream = strings.TrimPrefix(strings.TrimPrefix(strings.TrimRight(*to, "/"), "http://"), "https://")
		}
		if err := omoidehttp.CheckPeers(nodeList(*peers), *upstream); err != nil {
			return fmt.Errorf("%w: -peers: %v", errUsage, err)
		}
	}
	m := omoidehttp.Mover{From: *from, To: *to, Token: os.Getenv(envToken), Hold: *holdFor, HTTP: &http.Client{Timeout: *timeout}, Keep: *keep}
	if *peers != "" {
		owned, err := m.OwnedBy(ctx, nodeList(*peers), *upstream)
		if err != nil {
			return fmt.Errorf("-peers: %w", err)
		}
		if people = append(people, owned...); len(people) == 0 {
			fmt.Fprintln(stdout, "the list gives none of the source's people to the destination: nothing to move")
			return nil
		}
	}
	if *proxy != "" {
		owned, err := m.OwnedByDestination(ctx, *proxy)
		if err != nil {
			return err
		}
		if people = append(people, owned...); len(people) == 0 {
			fmt.Fprintln(stdout, "the proxy routes none of the source's people to the destination: nothing to move")
			return nil
		}
	}
	if len(people) == 0 {
		return fmt.Errorf("%w: no people to move: name them, or give -users", errUsage)
	}
	// A person named twice (an argument and a list) is moved once.
	seen := make(map[string]bool, len(people))
	people = slices.DeleteFunc(people, func(u string) bool {
		dup := seen[u]
		seen[u] = true
		return dup
	})
	start, episodes := time.Now(), 0
	for i, user := range people {
		n, err := m.Move(ctx, user)
		if err != nil {
			return fmt.Errorf("move %q (%d of %d; the people before it are moved): %w", user, i+1, len(people), err)
		}
		episodes += n
		if *keep {
			fmt.Fprintf(stdout, "copied %q: %d episodes (kept at the source, held)\n", user, n)
		} else {
			fmt.Fprintf(stdout, "moved %q: %d episodes\n", user, n)
		}
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "moved %d people, %d episodes, in %s (%s people/s, %s episodes/s)\n", len(people), episodes,
		elapsed.Round(time.Millisecond), cli.Rate(len(people), elapsed), cli.Rate(episodes, elapsed))
	return nil
}
