package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/omoide/omoide/cmd/internal/localcluster"
	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/omoidehttp"
)

const clusterDescription = `Cluster measures a scale-out deployment on loopback (docs/scale-out.md): N nodes ("omoide serve",
each with Litestream) behind Caddy with deploy/Caddyfile, each node given the proxy's node list. It
writes -people × -each generated episodes through the proxy, then measures retrievals through the
proxy, straight to each person's node, and on one node holding everyone (built with "omoide
ingest"); then adds a node with no window (move -keep, caddy reload, move) and restores a node
from its replica. Not part of make test: it takes minutes.

`

// clusterFigures are what bench cluster reports.
type clusterFigures struct {
	Nodes, People, Episodes  int
	WriteSeconds             float64 // writing every episode through the proxy
	ProxyP50, ProxyP99       float64 // retrieval through the proxy, ms
	DirectP50, DirectP99     float64 // straight to the person's node, ms
	OneNodeP50, OneNodeP99   float64 // one node holding everyone, ms
	OneNodeIngestSeconds     float64 // omoide ingest of everyone into that node
	MovePeople, MoveEpisodes int
	MoveSeconds              float64 // the copies (-keep) of the node added
	MoveReads, MoveMisses    int     // reads of the moving people meanwhile, and those that missed
	RestoreBytes             int64
	RestoreSeconds           float64
}

func runCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cluster", stderr)
	nodes := fs.Int("nodes", 10, "nodes behind the proxy")
	people := fs.Int("people", 20000, "people, written through the proxy")
	each := fs.Int("each", 10, "episodes a person")
	queries := fs.Int("q", 1000, "retrievals measured each way")
	clients := fs.Int("clients", 8, "concurrent writers")
	omoideBin := fs.String("omoide", "", "the omoide `binary` (default: built from ./cmd/omoide)")
	tools := fs.String("tools", ".tools/bin", "the `folder` of caddy and litestream (make tools)")
	dirFlag := fs.String("dir", "", "the `folder` of the stores and logs (default: a temporary one, removed after)")
	jsonOut := fs.String("json", "", "write the figures as JSON to this `file`")
	fs.Usage = func() { fmt.Fprint(fs.Output(), clusterDescription); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return err
	}
	if *nodes < 2 || *people < *nodes || *each < 1 || *queries < 1 || *clients < 1 {
		return fmt.Errorf("%w: want -nodes 2 or more, -people at least -nodes, and positive -each, -q and -clients", errUsage)
	}
	for _, b := range []string{"caddy", "litestream"} {
		if _, err := os.Stat(filepath.Join(*tools, b)); err != nil {
			return fmt.Errorf("%s: %w (make tools builds it)", b, err)
		}
	}
	dir, cleanup, err := workDir(*dirFlag, "cluster")
	if err != nil {
		return err
	}
	defer cleanup()
	c := &benchCluster{dir: dir, tools: *tools, bin: *omoideBin, log: stderr, procs: localcluster.Procs{Dir: dir}}
	defer c.procs.Stop()
	f, err := c.run(ctx, *nodes, *people, *each, *queries, *clients)
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "| measure | %d nodes, %d people × %d episodes |\n| --- | --: |\n", f.Nodes, f.People, *each)
	for _, row := range [][2]string{
		{"writes through the proxy", fmt.Sprintf("%.0f episodes/s (%d in %.1f s, %d clients)", float64(f.Episodes)/f.WriteSeconds, f.Episodes, f.WriteSeconds, *clients)},
		{"retrieval p50 / p99 through the proxy", fmt.Sprintf("%.2f / %.2f ms", f.ProxyP50, f.ProxyP99)},
		{"retrieval p50 / p99 straight to the person's node", fmt.Sprintf("%.2f / %.2f ms", f.DirectP50, f.DirectP99)},
		{"retrieval p50 / p99, one node holding everyone", fmt.Sprintf("%.2f / %.2f ms", f.OneNodeP50, f.OneNodeP99)},
		{"through the proxy / one node, p50", fmt.Sprintf("%.2fx (goal ≤ 1.2x)", f.ProxyP50/f.OneNodeP50)},
		{"adding a node with no window: the copies", fmt.Sprintf("%d people, %d episodes in %.1f s: %.0f people/s, %.0f episodes/s; %d reads meanwhile, %d missed",
			f.MovePeople, f.MoveEpisodes, f.MoveSeconds, float64(f.MovePeople)/f.MoveSeconds, float64(f.MoveEpisodes)/f.MoveSeconds, f.MoveReads, f.MoveMisses)},
		{"a node's restore from its replica", fmt.Sprintf("%.1f MiB in %.2f s: %.0f s a GiB", float64(f.RestoreBytes)/(1<<20), f.RestoreSeconds, f.RestoreSeconds/(float64(f.RestoreBytes)/(1<<30)))},
	} {
		fmt.Fprintf(stdout, "| %s | %s |\n", row[0], row[1])
	}
	return nil
}

// benchCluster runs the processes of bench cluster.
type benchCluster struct {
	dir, tools, bin string
	log             io.Writer
	procs           localcluster.Procs
	peers           []string // the node list, as the proxy's upstreams
	proxy           localcluster.Proxy
	proxyAddr       string
	http            *http.Client
	now             time.Time // the generated episodes' and the retrievals'
}

func (c *benchCluster) logf(format string, args ...any) {
	fmt.Fprintf(c.log, "bench: "+format+"\n", args...)
}

// node starts omoide serve over db with the current list, and its Litestream.
func (c *benchCluster) node(name, addr, db string) error {
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		return err
	}
	if err := c.procs.Start(name+"-serve", localcluster.Serve(c.bin, name, addr, db, c.peers)); err != nil {
		return err
	}
	if _, err := c.procs.Litestream(c.tools, name, db, filepath.Join(c.dir, name+"-replica")); err != nil {
		return err
	}
	return c.waitUp(addr)
}

// waitUp waits for the server at addr to answer its health check.
func (c *benchCluster) waitUp(addr string) error {
	return localcluster.WaitHTTP(c.http, "http://"+addr+"/healthz", time.Minute)
}

func (c *benchCluster) run(ctx context.Context, nodes, people, each, queries, clients int) (clusterFigures, error) {
	f := clusterFigures{Nodes: nodes, People: people, Episodes: people * each}
	c.http = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	c.now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := c.build(); err != nil {
		return f, err
	}
	spare, err := c.start(nodes)
	if err != nil {
		return f, err
	}
	users, eps, err := c.writeAll(ctx, people, each, clients, &f)
	if err != nil {
		return f, err
	}
	oneAddr, err := c.oneNode(eps, &f)
	if err != nil {
		return f, err
	}
	if err := c.retrievals(ctx, users, oneAddr, queries, &f); err != nil {
		return f, err
	}
	if err := c.addNode(ctx, spare, users, each, &f); err != nil {
		return f, err
	}
	if err := c.restore(&f); err != nil {
		return f, err
	}
	return f, nil
}

// start starts the nodes, each given the node list, and the proxy in front
// of them; it returns the address kept for the node that joins later.
func (c *benchCluster) start(nodes int) (spare string, err error) {
	addrs := make([]string, nodes+1) // the last one joins later
	for i := range addrs {
		if addrs[i], err = localcluster.FreeAddr(); err != nil {
			return "", err
		}
	}
	if c.proxyAddr, err = localcluster.FreeAddr(); err != nil {
		return "", err
	}
	admin, err := localcluster.FreeAddr()
	if err != nil {
		return "", err
	}
	host, port, _ := net.SplitHostPort(c.proxyAddr)
	c.proxy = localcluster.Proxy{Tools: c.tools, Config: "deploy/Caddyfile", Home: c.dir, Host: host, Port: port, Admin: admin}
	c.peers = slices.Clone(addrs[:nodes])
	for i, a := range c.peers {
		if err := c.node(fmt.Sprintf("n%d", i+1), a, filepath.Join(c.dir, fmt.Sprintf("n%d", i+1), "memory.db")); err != nil {
			return "", err
		}
	}
	if err := c.procs.Start("caddy", c.proxy.Run(c.peers)); err != nil {
		return "", err
	}
	if err := c.waitUp(c.proxyAddr); err != nil {
		return "", err
	}
	c.logf("%d nodes and the proxy up", nodes)
	return addrs[nodes], nil
}

// writeAll writes each person's generated episodes through the proxy, on
// clients goroutines, and returns the people and their episodes.
func (c *benchCluster) writeAll(ctx context.Context, people, each, clients int, f *clusterFigures) ([]string, []dataset.Episode, error) {
	users := make([]string, people)
	for i := range users {
		users[i] = fmt.Sprintf("p%06d", i)
	}
	eps := newGenerator(1).episodes(people*each, users, c.now)
	byUser := map[string][]dataset.Episode{}
	for _, e := range eps {
		byUser[e.User] = append(byUser[e.User], e)
	}
	start := time.Now()
	if err := parallelDo(clients, users, func(u string) error {
		return c.do(ctx, c.proxyAddr, http.MethodPost, "/v1/users/"+u+"/episodes", u, byUser[u], nil)
	}); err != nil {
		return nil, nil, fmt.Errorf("write through the proxy: %w", err)
	}
	f.WriteSeconds = time.Since(start).Seconds()
	c.logf("%d episodes written through the proxy in %.1f s", len(eps), f.WriteSeconds)
	return users, eps, nil
}

// oneNode starts one node holding everyone, built with omoide ingest, for
// comparison, and returns its address.
func (c *benchCluster) oneNode(eps []dataset.Episode, f *clusterFigures) (string, error) {
	jsonl := filepath.Join(c.dir, "everyone.jsonl")
	if err := writeJSONL(jsonl, eps); err != nil {
		return "", err
	}
	one := filepath.Join(c.dir, "one", "memory.db")
	os.MkdirAll(filepath.Dir(one), 0o755)
	start := time.Now()
	if out, err := exec.Command(c.bin, "ingest", "-db", one, jsonl).CombinedOutput(); err != nil {
		return "", fmt.Errorf("ingest the one node: %v\n%s", err, out)
	}
	f.OneNodeIngestSeconds = time.Since(start).Seconds()
	oneAddr, err := localcluster.FreeAddr()
	if err != nil {
		return "", err
	}
	if err := c.procs.Start("one-serve", exec.Command(c.bin, "serve", "-db", one, "-addr", oneAddr, "-log-level", "warn")); err != nil {
		return "", err
	}
	return oneAddr, c.waitUp(oneAddr)
}

// retrievals times queries retrievals each of three ways, alternated, one at
// a time: through the proxy, straight to the person's node, and on the one
// node holding everyone.
func (c *benchCluster) retrievals(ctx context.Context, users []string, oneAddr string, queries int, f *clusterFigures) error {
	g := newGenerator(2)
	var proxy, direct, single []time.Duration
	for i := range queries {
		u := users[(i*7919)%len(users)]
		text, _ := g.sentence()
		body := map[string]any{"text": text, "now": c.now.Format(time.RFC3339), "recent": []any{}}
		ways := []struct {
			addr string
			out  *[]time.Duration
		}{{c.proxyAddr, &proxy}, {omoidehttp.Owner(c.peers, u), &direct}, {oneAddr, &single}}
		// Rotated: the first way of a person finds their node cold, the
		// next ones warm; each way takes each place alike.
		for k := range ways {
			way := ways[(i+k)%len(ways)]
			t0 := time.Now()
			if err := c.do(ctx, way.addr, http.MethodPost, "/v1/users/"+u+"/retrieve", u, body, nil); err != nil {
				return fmt.Errorf("retrieve %s at %s: %w", u, way.addr, err)
			}
			*way.out = append(*way.out, time.Since(t0))
		}
	}
	f.ProxyP50, f.ProxyP99 = usMS(percentile(proxy, 50)), usMS(percentile(proxy, 99))
	f.DirectP50, f.DirectP99 = usMS(percentile(direct, 50)), usMS(percentile(direct, 99))
	f.OneNodeP50, f.OneNodeP99 = usMS(percentile(single, 50)), usMS(percentile(single, 99))
	c.logf("retrieval p50: proxy %.2f ms, direct %.2f ms, one node %.2f ms", f.ProxyP50, f.DirectP50, f.OneNodeP50)
	return nil
}

// addNode adds a node at addr with no window: the people it takes are copied
// to it (move -keep), the proxy reloaded with it, and they are moved; the
// people it takes are read through the proxy all along.
func (c *benchCluster) addNode(ctx context.Context, addr string, users []string, each int, f *clusterFigures) error {
	old := slices.Clone(c.peers)
	c.peers = append(c.peers, addr)
	name := fmt.Sprintf("n%d", len(c.peers))
	if err := c.node(name, addr, filepath.Join(c.dir, name, "memory.db")); err != nil {
		return err
	}
	var taken []string
	for _, u := range users {
		if omoidehttp.Owner(c.peers, u) == addr {
			taken = append(taken, u)
		}
	}
	stop := c.readAll(ctx, taken, each, f)
	start := time.Now()
	if err := c.moveAll(old, addr, true); err != nil {
		return err
	}
	f.MoveSeconds = time.Since(start).Seconds()
	if out, err := c.proxy.Reload(c.peers).CombinedOutput(); err != nil {
		return fmt.Errorf("caddy reload: %v\n%s", err, out)
	}
	if err := c.moveAll(old, addr, false); err != nil {
		return err
	}
	stop()
	f.MovePeople, f.MoveEpisodes = len(taken), len(taken)*each
	c.logf("%s added: %d people copied in %.1f s; %d reads meanwhile, %d missed", name, f.MovePeople, f.MoveSeconds, f.MoveReads, f.MoveMisses)
	return nil
}

// readAll reads the people's episodes through the proxy, one after the
// other, round and round, counting the reads and those that missed (an
// error, or not each episodes), until the function it returns is called.
func (c *benchCluster) readAll(ctx context.Context, people []string, each int, f *clusterFigures) (stop func()) {
	stopR, doneR := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(doneR)
		for i := 0; ; i++ {
			select {
			case <-stopR:
				return
			default:
			}
			u := people[i%len(people)]
			var page struct{ Episodes []json.RawMessage }
			err := c.do(ctx, c.proxyAddr, http.MethodGet, "/v1/users/"+u+"/episodes", u, nil, &page)
			f.MoveReads++
			if err != nil || len(page.Episodes) != each {
				f.MoveMisses++
			}
		}
	}()
	return func() {
		close(stopR)
		<-doneR
	}
}

// moveAll moves the people the node at to owns now from each node of from
// (copies them, with keep).
func (c *benchCluster) moveAll(from []string, to string, keep bool) error {
	for _, a := range from {
		args := []string{"move", "-from", "http://" + a, "-to", "http://" + to, "-peers", strings.Join(c.peers, " ")}
		if keep {
			args = append(args, "-keep")
		}
		if out, err := exec.Command(c.bin, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("move from %s: %v\n%s", a, err, out)
		}
	}
	return nil
}

// restore restores the first node from its replica.
func (c *benchCluster) restore(f *clusterFigures) error {
	n1 := filepath.Join(c.dir, "n1-replica")
	fresh := filepath.Join(c.dir, "n1-restored.db")
	start := time.Now()
	if out, err := exec.Command(filepath.Join(c.tools, "litestream"), "restore", "-o", fresh, "file://"+n1).CombinedOutput(); err != nil {
		return fmt.Errorf("litestream restore: %v\n%s", err, out)
	}
	f.RestoreSeconds = time.Since(start).Seconds()
	if st, err := os.Stat(fresh); err == nil {
		f.RestoreBytes = st.Size()
	}
	return nil
}

// build builds omoide when no binary was given.
func (c *benchCluster) build() error {
	if c.bin != "" {
		return nil
	}
	c.bin = filepath.Join(c.dir, "omoide")
	if out, err := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", c.bin, "./cmd/omoide").CombinedOutput(); err != nil {
		return fmt.Errorf("build omoide (or give -omoide): %v\n%s", err, out)
	}
	return nil
}

// do sends a request routed as user to the node or proxy at addr.
func (c *benchCluster) do(ctx context.Context, addr, method, path, user string, body, out any) error {
	return omoidehttp.Client{BaseURL: "http://" + addr, HTTP: c.http}.Do(ctx, method, path, omoidehttp.As(user), body, out)
}

// usMS is d in milliseconds, to the microsecond.
func usMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// parallelDo runs fn on every item with n workers and returns the first error.
func parallelDo(n int, items []string, fn func(string) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan string)
	)
	for range n {
		wg.Go(func() {
			for it := range next {
				if err := fn(it); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, it := range items {
		next <- it
	}
	close(next)
	wg.Wait()
	return first
}

// writeJSONL writes vs as JSON Lines: episodes as omoide ingest reads them,
// queries as a suite holds them.
func writeJSONL[T any](path string, vs []T) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, e := range vs {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
