package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/omoide/omoide/cmd/internal/localcluster"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/retriever"
)

// envClusterTools names the folder holding caddy and litestream (make tools);
// set, TestCluster must run; unset, it is skipped (a plain go test).
const envClusterTools = "OMOIDE_CLUSTER_TOOLS"

// envRunMain makes the test binary run omoide's main with its arguments: the
// cluster test's nodes are processes of their own, which it can SIGKILL.
const envRunMain = "OMOIDE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		program.Main()
	}
	os.Exit(m.Run())
}

// cluster is nodes, Litestream beside each, and Caddy in front, on loopback.
type cluster struct {
	t     *testing.T
	tools string
	dir   string
	proxy string            // base URL
	nodes map[string]*cnode // by name
	peers []string          // the node list a node starts with (serve -peers): who owns whom
	admin string            // the proxy's admin API address
	caddy *exec.Cmd
	procs *localcluster.Procs
	mu    sync.Mutex
}

type cnode struct {
	name, addr, db, replica string
	serve, litestream       *exec.Cmd
}

func (c *cluster) start(name string, cmd *exec.Cmd) *exec.Cmd {
	c.t.Helper()
	if c.procs == nil {
		c.procs = &localcluster.Procs{Dir: c.dir}
		c.t.Cleanup(c.procs.Stop)
	}
	if err := c.procs.Start(name, cmd); err != nil {
		c.t.Fatal(err)
	}
	return cmd
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	addr, err := localcluster.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// node starts omoide serve for name (on addr, or a free address) over db,
// and Litestream replicating db.
func (c *cluster) node(name, addr, db string) *cnode {
	c.t.Helper()
	if addr == "" {
		addr = freeAddr(c.t)
	}
	n := &cnode{name: name, addr: addr, db: db, replica: filepath.Join(c.dir, name+"-replica")}
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if old := c.nodes[name]; old != nil {
		n.replica = old.replica
	}
	self, _ := os.Executable()
	n.serve = localcluster.Serve(self, name, addr, db, c.peers)
	n.serve.Env = append(n.serve.Env, envRunMain+"=1")
	c.start(name+"-serve", n.serve)
	if err := localcluster.WaitHTTP(nil, "http://"+addr+"/healthz", 30*time.Second); err != nil {
		log, _ := os.ReadFile(c.procs.LogPath(name + "-serve"))
		c.t.Fatalf("node %s: %v\n%s", name, err, log)
	}
	var err error
	if n.litestream, err = c.procs.Litestream(c.tools, name, db, n.replica); err != nil {
		c.t.Fatal(err)
	}
	c.nodes[name] = n
	return n
}

// route (re)starts Caddy with deploy/Caddyfile over the nodes.
func (c *cluster) route() {
	c.t.Helper()
	if c.caddy != nil {
		c.caddy.Process.Signal(syscall.SIGTERM)
		c.caddy.Wait()
	}
	var ups []string
	for _, n := range c.nodes {
		ups = append(ups, n.addr)
	}
	c.caddy = c.proxyConfig().Run(ups)
	c.start(fmt.Sprintf("caddy-%d", len(c.nodes)), c.caddy)
	c.waitRoutes()
}

// proxyConfig is Caddy with deploy/Caddyfile, listening at c.proxy.
func (c *cluster) proxyConfig() localcluster.Proxy {
	c.t.Helper()
	host, port, err := net.SplitHostPort(strings.TrimPrefix(c.proxy, "http://"))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.admin == "" {
		c.admin = freeAddr(c.t)
	}
	return localcluster.Proxy{Tools: c.tools, Config: "../../deploy/Caddyfile", Home: c.dir, Host: host, Port: port, Admin: c.admin}
}

// reload gives the running proxy the current nodes through its admin API
// (caddy reload): no restart, no request dropped.
func (c *cluster) reload() {
	c.t.Helper()
	var ups []string
	for _, n := range c.nodes {
		ups = append(ups, n.addr)
	}
	if out, err := c.proxyConfig().Reload(ups).CombinedOutput(); err != nil {
		c.t.Fatalf("caddy reload: %v\n%s", err, out)
	}
	c.waitRoutes()
}

// waitRoutes waits until the proxy routes people to every node (the health
// checks passed).
func (c *cluster) waitRoutes() {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		seen := map[string]bool{}
		for i := 0; i < 200 && len(seen) < len(c.nodes); i++ {
			var got struct{ Node string }
			if err := getAs(c.proxy+"/v1/node", fmt.Sprintf("probe%d", i), &got); err == nil {
				seen[got.Node] = true
			}
		}
		if len(seen) == len(c.nodes) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("the proxy does not route to all %d nodes", len(c.nodes))
}

// getAs and postAs are a GET and a POST of the URL u routed as user
// (omoidehttp.As); the cluster's nodes have no token.
func getAs(u, user string, out any) error {
	return omoidehttp.Client{}.Do(context.Background(), http.MethodGet, u, omoidehttp.As(user), nil, out)
}

func postAs(u, user string, body, out any) error {
	return omoidehttp.Client{}.Do(context.Background(), http.MethodPost, u, omoidehttp.As(user), body, out)
}

// latency logs a retrieval's p50 and p99 through the proxy and straight to
// the person's node, the two alternated, 200 of each.
func (c *cluster) latency(user func(int) string) {
	c.t.Helper()
	where := map[string]string{}
	for u, nodes := range c.placement() {
		for n := range nodes {
			where[u] = "http://" + c.nodes[n].addr
		}
	}
	var viaProxy, direct []time.Duration
	q := map[string]any{"text": "猫と山の話", "now": "2025-07-01T00:00:00Z", "recent": []any{}}
	for i := range 400 {
		u := user((i * 7919) % len(where))
		t0 := time.Now()
		if i%2 == 0 {
			if err := postAs(c.proxy+"/v1/users/"+u+"/retrieve", u, q, nil); err != nil {
				c.t.Fatal(err)
			}
			viaProxy = append(viaProxy, time.Since(t0))
		} else {
			if err := postAs(where[u]+"/v1/users/"+u+"/retrieve", u, q, nil); err != nil {
				c.t.Fatal(err)
			}
			direct = append(direct, time.Since(t0))
		}
	}
	pct := func(d []time.Duration, p int) float64 {
		slices.Sort(d)
		return float64(d[len(d)*p/100].Microseconds()) / 1000
	}
	c.t.Logf("retrieval p50 / p99: through the proxy %.2f / %.2f ms, straight to the node %.2f / %.2f ms",
		pct(viaProxy, 50), pct(viaProxy, 99), pct(direct, 50), pct(direct, 99))
}

// placement returns, for each person, the nodes that hold their episodes and
// how many.
func (c *cluster) placement() map[string]map[string]int {
	c.t.Helper()
	out := map[string]map[string]int{}
	for name, n := range c.nodes {
		people, err := omoidehttp.Client{BaseURL: "http://" + n.addr}.People(context.Background())
		if err != nil {
			c.t.Fatal(err)
		}
		for _, p := range people {
			if out[p.User] == nil {
				out[p.User] = map[string]int{}
			}
			out[p.User][name] = p.Episodes
		}
	}
	return out
}

// TestCluster is issue 19's cluster on loopback: three nodes, each with
// Litestream, behind Caddy (deploy/Caddyfile); 1,000 people × 10 episodes
// written through the proxy land each on one node; a node killed with
// SIGKILL (Litestream with it) while one of its people writes, and restored
// from its replica into a fresh directory, has every episode acknowledged
// more than the sync interval before, gets back what the others took while
// it was out, and answers as before; a fourth node takes the people the
// proxy now routes to it (omoide move -proxy): none lost, none twice, none
// seen by another person.
func TestCluster(t *testing.T) {
	tools := os.Getenv(envClusterTools)
	if tools == "" {
		t.Skip(envClusterTools + " is not set: run make test (make tools builds Caddy and Litestream)")
	}
	for _, b := range []string{"caddy", "litestream"} {
		if _, err := os.Stat(filepath.Join(tools, b)); err != nil {
			t.Fatalf("%s: %v (make tools builds it)", b, err)
		}
	}
	if out, err := exec.Command(filepath.Join(tools, "caddy"), "version").Output(); err != nil || !strings.HasPrefix(string(out), "v2.") {
		t.Errorf("caddy version: %q, %v; want its version (make tools sets it)", out, err)
	}
	clearEnv(t)
	start := time.Now()
	c := &cluster{t: t, tools: tools, dir: t.TempDir(), nodes: map[string]*cnode{}}
	c.proxy = "http://" + freeAddr(t)
	// Every node knows the proxy's list and refuses (421) a person another
	// node owns: if Owner disagreed with Caddy, writes below would fail.
	addrs := map[string]string{}
	for _, name := range []string{"n1", "n2", "n3"} {
		addrs[name] = freeAddr(t)
		c.peers = append(c.peers, addrs[name])
	}
	for _, name := range []string{"n1", "n2", "n3"} {
		c.node(name, addrs[name], filepath.Join(c.dir, name, "memory.db"))
	}
	c.route()
	// The proxy listens only where it is told: 127.0.0.2 reaches this
	// machine's loopback too, but not a socket bound to 127.0.0.1.
	if conn, err := net.DialTimeout("tcp", strings.Replace(strings.TrimPrefix(c.proxy, "http://"), "127.0.0.1", "127.0.0.2", 1), time.Second); err == nil {
		conn.Close()
		t.Errorf("the proxy told to listen on %s accepts connections on 127.0.0.2: it listens on every interface", c.proxy)
	}

	const people, each = 1000, 10
	user := func(i int) string { return fmt.Sprintf("person%04d", i) }
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, people)
	sem := make(chan struct{}, 8)
	for i := range people {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			eps := make([]map[string]any, each)
			for j := range eps {
				eps[j] = map[string]any{"id": fmt.Sprintf("%d", j), "user_text": fmt.Sprintf("%sの話 %d: 猫と山と海", user(i), j),
					"reply_text": fmt.Sprintf("word%04dx%d", i, j), "occurred_at": base.Add(time.Duration(j) * time.Hour)}
			}
			if err := postAs(c.proxy+"/v1/users/"+user(i)+"/episodes", user(i), eps, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d people x %d episodes written through the proxy in %s", people, each, time.Since(start).Round(time.Millisecond))
	checkPlacement := func(step string) map[string]string {
		t.Helper()
		where := map[string]string{}
		pl := c.placement()
		for u := range pl {
			if !strings.HasPrefix(u, "person") {
				delete(pl, u) // the writer at risk
			}
		}
		if len(pl) != people {
			t.Fatalf("%s: %d people on the nodes, want %d", step, len(pl), people)
		}
		for u, nodes := range pl {
			if len(nodes) != 1 {
				t.Fatalf("%s: %s is on %v", step, u, nodes)
			}
			for n, count := range nodes {
				if count != each {
					t.Fatalf("%s: %s has %d episodes on %s, want %d", step, u, count, n, each)
				}
				var got struct{ Node string }
				if err := getAs(c.proxy+"/v1/node", u, &got); err != nil || got.Node != n {
					t.Fatalf("%s: %s is on %s, the proxy routes them to %q (%v)", step, u, n, got.Node, err)
				}
				where[u] = n
			}
		}
		return where
	}
	checkPlacement("written")

	// Names in every script travel in the header's wire form (percent-
	// encoded UTF-8, what Node's fetch and urllib can send): Caddy hashes
	// that form, the node computes ownership on it, so each lands on the
	// node the proxy routes them to and is found there; the name sent
	// raw is a 400, never another spelling routed elsewhere.
	for _, u := range []string{"はるか", "王小明", "김민지", "Иван Петров", "50% off"} {
		path := c.proxy + "/v1/users/" + url.PathEscape(u)
		if err := postAs(path+"/episodes", u, []map[string]any{{"id": "1", "user_text": u + "の合言葉はあおぞらペンギン"}}, nil); err != nil {
			t.Fatalf("write %s through the proxy: %v", u, err)
		}
		var got struct{ Node string }
		if err := getAs(c.proxy+"/v1/node", u, &got); err != nil {
			t.Fatal(err)
		}
		if pl := c.placement()[u]; len(pl) != 1 || pl[got.Node] != 1 {
			t.Fatalf("%s is on %v, the proxy routes them to %s", u, pl, got.Node)
		}
		if want := omoidehttp.Owner(c.peers, u); c.nodes[got.Node].addr != want {
			t.Fatalf("%s: the proxy routes them to %s (%s), Owner says %s", u, got.Node, c.nodes[got.Node].addr, want)
		}
		var res struct {
			Hits []retriever.Hit `json:"hits"`
		}
		if err := postAs(path+"/retrieve", u, map[string]any{"text": "合言葉はあおぞらペンギン", "recent": []any{}}, &res); err != nil || len(res.Hits) == 0 || res.Hits[0].Episode.User != u {
			t.Fatalf("retrieve %s through the proxy: %v, %v", u, res.Hits, err)
		}
		if u != omoidehttp.EncodeUser(u) {
			raw := http.Header{omoidehttp.UserHeader: {u}}
			if err := (omoidehttp.Client{}).Do(context.Background(), "POST", path+"/retrieve", raw, map[string]any{"text": "x"}, nil); err == nil || !strings.Contains(err.Error(), "400") {
				t.Fatalf("%s sent raw in the header: %v, want a 400", u, err)
			}
		}
	}

	// A retrieval per sampled person: only their episodes, and the answers
	// to compare after the restore.
	answers := func() map[string]string {
		out := map[string]string{}
		for i := 0; i < people; i += 37 {
			var res struct {
				Hits []retriever.Hit `json:"hits"`
			}
			q := map[string]any{"text": "猫と山の話", "now": "2025-07-01T00:00:00Z", "recent": []any{}}
			if err := postAs(c.proxy+"/v1/users/"+user(i)+"/retrieve", user(i), q, &res); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range res.Hits {
				if h.Episode.User != user(i) {
					t.Fatalf("retrieve for %s returned %s's episode", user(i), h.Episode.User)
				}
				ids = append(ids, h.Episode.ExternalID)
			}
			out[user(i)] = strings.Join(ids, ",")
		}
		return out
	}
	before := answers()
	c.latency(user)

	// Lose n2 and its disk while a person it owns is writing, one episode
	// every 20 ms; restore it from its replica into a fresh folder.
	risky := ""
	for i := 0; risky == ""; i++ {
		var got struct{ Node string }
		if err := getAs(c.proxy+"/v1/node", fmt.Sprintf("risk%d", i), &got); err == nil && got.Node == "n2" {
			risky = fmt.Sprintf("risk%d", i)
		}
	}
	type ack struct {
		id string
		at time.Time
	}
	var (
		acks  []ack
		amu   sync.Mutex
		stopW = make(chan struct{})
		doneW = make(chan struct{})
	)
	go func() {
		defer close(doneW)
		for i := 0; ; i++ {
			select {
			case <-stopW:
				return
			default:
			}
			id := fmt.Sprint(i)
			if postAs(c.proxy+"/v1/users/"+risky+"/episodes", risky, []map[string]any{{"id": id, "user_text": "at risk " + id}}, nil) == nil {
				amu.Lock()
				acks = append(acks, ack{id, time.Now()})
				amu.Unlock()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(3 * time.Second)
	n2 := c.nodes["n2"]
	killed := time.Now()
	n2.serve.Process.Signal(syscall.SIGKILL) // the machine and its disk are gone: Litestream with it
	n2.litestream.Process.Signal(syscall.SIGKILL)
	n2.serve.Wait()
	n2.litestream.Wait()
	time.Sleep(500 * time.Millisecond) // writes go on, routed to the next node while n2 is out
	close(stopW)
	<-doneW
	os.RemoveAll(filepath.Dir(n2.db))
	fresh := filepath.Join(c.dir, "n2-restored", "memory.db")
	os.MkdirAll(filepath.Dir(fresh), 0o755)
	t0 := time.Now()
	if out, err := exec.Command(filepath.Join(tools, "litestream"), "restore", "-o", fresh, "file://"+n2.replica).CombinedOutput(); err != nil {
		t.Fatalf("litestream restore: %v\n%s", err, out)
	}
	t.Logf("n2 restored from its replica in %s", time.Since(t0).Round(time.Millisecond))
	c.node("n2", n2.addr, fresh)
	c.waitRoutes()
	// What the others took for n2's people while it was out goes back to it.
	for _, name := range []string{"n1", "n3"} {
		if err := runMove(context.Background(), []string{"-from", "http://" + c.nodes[name].addr, "-to", "http://" + n2.addr, "-proxy", c.proxy}, io.Discard, io.Discard); err != nil {
			t.Fatalf("move back from %s: %v", name, err)
		}
	}
	there := map[string]bool{}
	recs, err := omoidehttp.Client{BaseURL: "http://" + n2.addr}.Episodes(context.Background(), risky)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		there[r.ID] = true
	}
	lost, oldest := 0, time.Duration(0)
	for _, a := range acks {
		if !there[a.id] {
			lost++
			oldest = max(oldest, killed.Sub(a.at))
			if killed.Sub(a.at) > 1500*time.Millisecond { // the sync interval, with half a second for a loaded machine
				t.Errorf("write %s of %s, acknowledged %s before the kill, is lost (sync interval 1 s)", a.id, risky, killed.Sub(a.at).Round(time.Millisecond))
			}
		}
	}
	t.Logf("writes at risk: %d acknowledged (%d before the kill); %d lost, the oldest acknowledged %s before the kill (sync interval 1 s)",
		len(acks), countBefore(acks, killed, func(a ack) time.Time { return a.at }), lost, oldest.Round(time.Millisecond))
	checkPlacement("restored")
	after := answers()
	for u, a := range before {
		if after[u] != a {
			t.Errorf("after the restore %s's retrieval gives %q, before %q", u, after[u], a)
		}
	}

	// A node sent a person it does not own refuses them: a misconfigured
	// proxy cannot split a person silently.
	for u, n := range checkPlacement("before n4") {
		for name, other := range c.nodes {
			if name == n {
				continue
			}
			err := omoidehttp.Client{BaseURL: "http://" + other.addr}.Do(context.Background(), "POST", "/v1/users/"+u+"/episodes", nil,
				[]map[string]any{{"id": "misdirected", "user_text": "x"}}, nil)
			if err == nil || !strings.Contains(err.Error(), "421") {
				t.Fatalf("%s, owned by %s, written on %s: %v, want 421", u, n, name, err)
			}
		}
		break
	}

	// A fourth node, added with no window: it starts with the new list; the
	// people it takes are copied to it while their old nodes still serve
	// them (held: reads go on, writes wait); the proxy switches (caddy
	// reload); the old nodes forget them. Reads through the proxy, all
	// along, must find every episode of every one of them.
	n4addr := freeAddr(t)
	c.peers = append(c.peers, n4addr)
	c.node("n4", n4addr, filepath.Join(c.dir, "n4", "memory.db"))
	var taken []string
	for i := range people {
		if omoidehttp.Owner(c.peers, user(i)) == n4addr {
			taken = append(taken, user(i))
		}
	}
	var (
		reads, misses int
		firstMiss     string
		stopR         = make(chan struct{})
		doneR         = make(chan struct{})
	)
	go func() {
		defer close(doneR)
		for i := 0; ; i++ {
			select {
			case <-stopR:
				return
			default:
			}
			u := taken[i%len(taken)]
			var page struct{ Episodes []episode.Record }
			err := getAs(c.proxy+"/v1/users/"+u+"/episodes", u, &page)
			reads++
			if err != nil || len(page.Episodes) != each {
				misses++
				if firstMiss == "" {
					firstMiss = fmt.Sprintf("%s: %d episodes, %v", u, len(page.Episodes), err)
				}
			}
		}
	}()
	moveAll := func(keep bool) (int, time.Duration) {
		moved, t1 := 0, time.Now()
		for _, name := range []string{"n1", "n2", "n3"} {
			var out bytes.Buffer
			args := []string{"-from", "http://" + c.nodes[name].addr, "-to", "http://" + n4addr, "-peers", strings.Join(c.peers, " ")}
			if keep {
				args = append(args, "-keep")
			}
			if err := runMove(context.Background(), args, &out, io.Discard); err != nil {
				t.Fatalf("move from %s (keep %v): %v", name, keep, err)
			}
			moved += strings.Count(out.String(), "\"person") // the writer at risk may move too
		}
		return moved, time.Since(t1)
	}
	copied, took := moveAll(true)
	c.reload()
	forgot, _ := moveAll(false)
	close(stopR)
	<-doneR
	if copied != len(taken) || forgot != len(taken) {
		t.Errorf("copied %d, then moved %d people; the new list gives n4 %d", copied, forgot, len(taken))
	}
	if misses > 0 {
		t.Errorf("while n4 was added, %d of %d reads through the proxy missed a person's memories (first: %s)", misses, reads, firstMiss)
	}
	t.Logf("n4 added with no window: %d people copied in %s (%.1f people/s, %.0f episodes/s), the proxy reloaded, then forgotten at the old nodes; %d reads meanwhile, %d missed",
		copied, took.Round(time.Millisecond), float64(copied)/took.Seconds(), float64(copied*each)/took.Seconds(), reads, misses)
	moved := forgot
	where := checkPlacement("after adding n4")
	onN4 := 0
	for _, n := range where {
		if n == "n4" {
			onN4++
		}
	}
	if onN4 != moved || onN4 == 0 {
		t.Errorf("n4 holds %d people, %d were moved", onN4, moved)
	}
	answers()
	t.Logf("moved %d people to n4; the whole test took %s", moved, time.Since(start).Round(time.Millisecond))
}

// countBefore counts the items of xs whose time is before t.
func countBefore[T any](xs []T, t time.Time, at func(T) time.Time) int {
	n := 0
	for _, x := range xs {
		if at(x).Before(t) {
			n++
		}
	}
	return n
}
