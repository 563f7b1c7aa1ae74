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

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("load", stderr)
	n := fs.Int("n", 10000, "episodes in the store before the load")
	people := fs.Int("people", 100, "people of those episodes, and of the load")
	clients := fs.Int("clients", 16, "concurrent clients")
	writes := fs.Float64("writes", 0.5, "the share of writes (one episode each); the rest are retrievals")
	requests := fs.Int("requests", 4000, "stop after this many requests")
	duration := fs.Duration("duration", time.Minute, "or after this long")
	omoideBin := fs.String("omoide", "", "the omoide `binary` (default: built from ./cmd/omoide)")
	dirFlag := fs.String("dir", "", "the `folder` of the store and the log (default: a temporary one, removed after)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), loadDescription); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < *people || *people < 1 || *clients < 1 || *writes < 0 || *writes > 1 || *requests < 1 || *duration <= 0 {
		return fmt.Errorf("%w: want -n ≥ -people ≥ 1, -clients ≥ 1, -writes from 0 to 1, positive -requests and -duration", errUsage)
	}
	dir, cleanup, err := workDir(*dirFlag, "load")
	if err != nil {
		return err
	}
	defer cleanup()
	c := &benchCluster{dir: dir, bin: *omoideBin, log: stderr, procs: localcluster.Procs{Dir: dir},
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * *clients}, Timeout: time.Minute}}
	defer c.procs.Stop()
	if err := c.build(); err != nil {
		return err
	}
	users := make([]string, *people)
	for i := range users {
		users[i] = fmt.Sprintf("p%05d", i)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jsonl := filepath.Join(dir, "episodes.jsonl")
	if err := writeJSONL(jsonl, newGenerator(1).episodes(*n, users, now)); err != nil {
		return err
	}
	db := filepath.Join(dir, "memory.db")
	if out, err := exec.Command(c.bin, "ingest", "-db", db, jsonl).CombinedOutput(); err != nil {
		return fmt.Errorf("ingest: %v\n%s", err, out)
	}
	addr, err := localcluster.FreeAddr()
	if err != nil {
		return err
	}
	if err := c.procs.Start("serve", exec.Command(c.bin, "serve", "-db", db, "-addr", addr, "-log-level", "warn")); err != nil {
		return err
	}
	if err := c.waitUp(addr); err != nil {
		return err
	}
	c.logf("%d episodes of %d people stored; %d clients, %.0f%% writes", *n, *people, *clients, 100**writes)

	kinds := map[string]*loadKind{"read": {}, "write": {}}
	var (
		mu   sync.Mutex
		sent int
		wg   sync.WaitGroup
	)
	deadline := time.Now().Add(*duration)
	start := time.Now()
	for w := range *clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			g := newGenerator(uint64(100 + w))
			for i := 0; ; i++ {
				mu.Lock()
				if sent >= *requests || time.Now().After(deadline) {
					mu.Unlock()
					return
				}
				sent++
				mu.Unlock()
				u := users[r.IntN(len(users))]
				text, _ := g.sentence()
				kind, t0 := "read", time.Now()
				var err error
				if r.Float64() < *writes {
					kind = "write"
					err = c.do(ctx, addr, http.MethodPost, "/v1/users/"+u+"/episodes", u,
						[]dataset.Episode{{ID: fmt.Sprintf("load-%d-%d", w, i), User: u, UserText: text, OccurredAt: time.Now()}}, nil)
				} else {
					err = c.do(ctx, addr, http.MethodPost, "/v1/users/"+u+"/retrieve", u,
						map[string]any{"text": text, "now": now.Format(time.RFC3339), "recent": []any{}}, nil)
				}
				d := time.Since(t0)
				mu.Lock()
				k := kinds[kind]
				k.count++
				k.lat = append(k.lat, d)
				if err != nil {
					k.errors++
					if k.firstError == "" {
						k.firstError = err.Error()
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "%d requests in %.1f s: %.0f requests/s (%d clients, %.0f%% writes, %d episodes of %d people before)\n\n",
		sent, elapsed.Seconds(), float64(sent)/elapsed.Seconds(), *clients, 100**writes, *n, *people)
	fmt.Fprintln(stdout, "| kind | requests | p50 ms | p99 ms | max ms | errors |\n| --- | --: | --: | --: | --: | --: |")
	for _, name := range []string{"read", "write"} {
		k := kinds[name]
		if k.count == 0 {
			continue
		}
		fmt.Fprintf(stdout, "| %s | %d | %.2f | %.2f | %.2f | %d |\n", name, k.count,
			usMS(percentile(k.lat, 50)), usMS(percentile(k.lat, 99)), usMS(slices.Max(k.lat)), k.errors)
		if k.firstError != "" {
			fmt.Fprintf(stderr, "bench load: first %s error: %s\n", name, k.firstError)
		}
	}
	return nil
}
