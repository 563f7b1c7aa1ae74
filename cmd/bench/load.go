package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/omoide/omoide/cmd/internal/localcluster"
	"github.com/omoide/omoide/dataset"
)

const loadDescription = `Load drives a live "omoide serve" on loopback with -clients concurrent clients, each sending
retrievals and writes (one episode) in the -writes share, until -requests are sent or -duration has
passed, and reports the throughput and, for each kind, p50, p99, max and errors. The store is built
first with -n generated episodes over -people people ("omoide ingest"). Not part of make test.

`

// loadKind is what bench load measured of one kind of request.
type loadKind struct {
	count, errors int
	firstError    string
	lat           []time.Duration
}

// loadRun is one run of bench load: its flags, the server it drives and
// what its clients measured.
type loadRun struct {
	n, people, clients, requests int
	writes                       float64
	duration                     time.Duration
	omoideBin, dir               string

	c     *benchCluster
	users []string
	now   time.Time // the clock of the generated episodes and of the retrievals
	addr  string    // the server's

	mu    sync.Mutex // guards sent and kinds
	sent  int
	kinds map[string]*loadKind
}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	l, err := parseLoad(args, stderr)
	if err != nil {
		return err
	}
	dir, cleanup, err := workDir(l.dir, "load")
	if err != nil {
		return err
	}
	defer cleanup()
	l.c = &benchCluster{dir: dir, bin: l.omoideBin, log: stderr, procs: localcluster.Procs{Dir: dir},
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * l.clients}, Timeout: time.Minute}}
	defer l.c.procs.Stop()
	if err := l.serve(dir); err != nil {
		return err
	}
	start := time.Now()
	l.drive(ctx)
	l.report(stdout, stderr, time.Since(start))
	return nil
}

// parseLoad parses and checks the flags.
func parseLoad(args []string, stderr io.Writer) (*loadRun, error) {
	fs := newFlagSet("load", stderr)
	l := &loadRun{kinds: map[string]*loadKind{"read": {}, "write": {}}}
	fs.IntVar(&l.n, "n", 10000, "episodes in the store before the load")
	fs.IntVar(&l.people, "people", 100, "people of those episodes, and of the load")
	fs.IntVar(&l.clients, "clients", 16, "concurrent clients")
	fs.Float64Var(&l.writes, "writes", 0.5, "the share of writes (one episode each); the rest are retrievals")
	fs.IntVar(&l.requests, "requests", 4000, "stop after this many requests")
	fs.DurationVar(&l.duration, "duration", time.Minute, "or after this long")
	fs.StringVar(&l.omoideBin, "omoide", "", "the omoide `binary` (default: built from ./cmd/omoide)")
	fs.StringVar(&l.dir, "dir", "", "the `folder` of the store and the log (default: a temporary one, removed after)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), loadDescription); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if l.n < l.people || l.people < 1 || l.clients < 1 || l.writes < 0 || l.writes > 1 || l.requests < 1 || l.duration <= 0 {
		return nil, fmt.Errorf("%w: want -n ≥ -people ≥ 1, -clients ≥ 1, -writes from 0 to 1, positive -requests and -duration", errUsage)
	}
	return l, nil
}

// serve builds omoide, ingests -n generated episodes of -people people into
// a store in dir and starts "omoide serve" on it.
func (l *loadRun) serve(dir string) error {
	c := l.c
	if err := c.build(); err != nil {
		return err
	}
	l.users = make([]string, l.people)
	for i := range l.users {
		l.users[i] = fmt.Sprintf("p%05d", i)
	}
	l.now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jsonl := filepath.Join(dir, "episodes.jsonl")
	if err := writeJSONL(jsonl, newGenerator(1).episodes(l.n, l.users, l.now)); err != nil {
		return err
	}
	db := filepath.Join(dir, "memory.db")
	if out, err := exec.Command(c.bin, "ingest", "-db", db, jsonl).CombinedOutput(); err != nil {
		return fmt.Errorf("ingest: %v\n%s", err, out)
	}
	var err error
	if l.addr, err = localcluster.FreeAddr(); err != nil {
		return err
	}
	if err := c.procs.Start("serve", exec.Command(c.bin, "serve", "-db", db, "-addr", l.addr, "-log-level", "warn")); err != nil {
		return err
	}
	if err := c.waitUp(l.addr); err != nil {
		return err
	}
	c.logf("%d episodes of %d people stored; %d clients, %.0f%% writes", l.n, l.people, l.clients, 100*l.writes)
	return nil
}

// drive runs the clients until -requests are sent or -duration has passed.
func (l *loadRun) drive(ctx context.Context) {
	deadline := time.Now().Add(l.duration)
	var wg sync.WaitGroup
	for w := range l.clients {
		wg.Go(func() { l.client(ctx, w, deadline) })
	}
	wg.Wait()
}

// client w sends requests, each a write in the -writes share and else a
// retrieval, of a random person, while there are requests left to send.
func (l *loadRun) client(ctx context.Context, w int, deadline time.Time) {
	r := rand.New(rand.NewPCG(uint64(w), 7))
	g := newGenerator(uint64(100 + w))
	for i := 0; l.next(deadline); i++ {
		u := l.users[r.IntN(len(l.users))]
		text, _ := g.sentence()
		kind, t0 := "read", time.Now()
		var err error
		if r.Float64() < l.writes {
			kind = "write"
			err = l.c.do(ctx, l.addr, http.MethodPost, "/v1/users/"+u+"/episodes", u,
				[]dataset.Episode{{ID: fmt.Sprintf("load-%d-%d", w, i), User: u, UserText: text, OccurredAt: time.Now()}}, nil)
		} else {
			err = l.c.do(ctx, l.addr, http.MethodPost, "/v1/users/"+u+"/retrieve", u,
				map[string]any{"text": text, "now": l.now.Format(time.RFC3339), "recent": []any{}}, nil)
		}
		l.record(kind, time.Since(t0), err)
	}
}

// next counts one more request sent and reports whether it may be, before
// the deadline and within -requests.
func (l *loadRun) next(deadline time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sent >= l.requests || time.Now().After(deadline) {
		return false
	}
	l.sent++
	return true
}

// record records a request of kind that took d and failed with err (nil:
// succeeded).
func (l *loadRun) record(kind string, d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.kinds[kind]
	k.count++
	k.lat = append(k.lat, d)
	if err != nil {
		k.errors++
		if k.firstError == "" {
			k.firstError = err.Error()
		}
	}
}

// report prints the throughput and each kind's latencies and errors, and
// each kind's first error to stderr.
func (l *loadRun) report(stdout, stderr io.Writer, elapsed time.Duration) {
	fmt.Fprintf(stdout, "%d requests in %.1f s: %.0f requests/s (%d clients, %.0f%% writes, %d episodes of %d people before)\n\n",
		l.sent, elapsed.Seconds(), float64(l.sent)/elapsed.Seconds(), l.clients, 100*l.writes, l.n, l.people)
	fmt.Fprintln(stdout, "| kind | requests | p50 ms | p99 ms | max ms | errors |\n| --- | --: | --: | --: | --: | --: |")
	for _, name := range []string{"read", "write"} {
		k := l.kinds[name]
		if k.count == 0 {
			continue
		}
		fmt.Fprintf(stdout, "| %s | %d | %.2f | %.2f | %.2f | %d |\n", name, k.count,
			usMS(percentile(k.lat, 50)), usMS(percentile(k.lat, 99)), usMS(slices.Max(k.lat)), k.errors)
		if k.firstError != "" {
			fmt.Fprintf(stderr, "bench load: first %s error: %s\n", name, k.firstError)
		}
	}
}
