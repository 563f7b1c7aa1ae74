package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/retriever"
)

// runningServer is the serve subcommand running on loopback for a test.
type runningServer struct {
	base string
	addr net.Addr
	logs *syncBuffer
	srv  *http.Server // as configured by serve, seen through the hook
	stop func() error // cancels serve and returns its error
}

// startServe runs serve with args (plus -addr 127.0.0.1:0) until the test
// ends; adjust, when not nil, may change the HTTP server before it serves.
func startServe(t *testing.T, args []string, adjust func(*http.Server)) *runningServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rs := &runningServer{logs: &syncBuffer{}}
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, append(args, "-addr", "127.0.0.1:0"), io.Discard, rs.logs, serveHooks{
			ready: func(a net.Addr) { addrc <- a },
			server: func(srv *http.Server) {
				rs.srv = srv
				if adjust != nil {
					adjust(srv)
				}
			},
		})
	}()
	select {
	case rs.addr = <-addrc:
	case err := <-done:
		cancel()
		t.Fatalf("serve returned before listening: %v\n%s", err, rs.logs.String())
	case <-time.After(time.Minute):
		cancel()
		t.Fatal("serve did not start listening")
	}
	rs.base = "http://" + rs.addr.String()
	var once sync.Once
	var serveErr error
	rs.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(time.Minute):
				serveErr = errors.New("serve did not return")
			}
		})
		return serveErr
	}
	t.Cleanup(func() {
		if err := rs.stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return rs
}

// postJSON posts v and decodes the JSON answer into out (when not nil).
func postJSON(client *http.Client, url, token string, v, out any) (int, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != 200 {
		return resp.StatusCode, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decoding %s: %w", raw, err)
		}
	}
	return resp.StatusCode, nil
}

// Words of the isolation test: few, so that people share most of them.
var (
	isoWords = []string{"ラーメン", "味噌", "駅前", "猫", "膝", "病院", "キャンプ", "週末", "仕事", "会議", "映画", "旅行",
		"京都", "カレー", "雨", "散歩", "ramen", "miso", "cat", "knee", "camping", "weekend", "movie", "trip"}
	isoGlue = []string{"を食べた", "に行った", "が好き", "の話", "、", "。", " and ", " "}
)

func isoText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(isoWords[r.IntN(len(isoWords))])
		b.WriteString(isoGlue[r.IntN(len(isoGlue))])
	}
	return b.String()
}

// TestServeIsolation runs the serve subcommand and, over HTTP, stores random
// episodes of 20 people who share almost every word, then checks that no
// /v1/retrieve hit or candidate and no /v1/pack hit or section belongs to
// another person. Some names differ from another only by case, a trailing
// space, Unicode normalization or a "/" (percent-encoded in DELETE paths).
func TestServeIsolation(t *testing.T) {
	clearEnv(t)
	const token = "iso-token"
	t.Setenv(envToken, token)
	rs := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "iso.db")}, nil)
	users := []string{"haruka", "Haruka", "haruka.", "haru%", "haru_a", "u1", "u10", "line:U1", "line:U10", "line",
		"ユーザー", "ﾕｰｻﾞｰ", "caf\u00e9", "cafe\u0301", "ＡＢＣ", "ABC", "مستخدم", "👩‍💻", "a\u200bb", "ab"}
	secret := func(i int) string { return fmt.Sprintf("zq%02dqz", i) }
	r := rand.New(rand.NewPCG(6, 21))
	client := &http.Client{Timeout: time.Minute}
	owner := map[int64]string{}
	for range 20 {
		batch := make([]map[string]any, 1+r.IntN(20))
		for i := range batch {
			u := r.IntN(len(users))
			batch[i] = map[string]any{"user": users[u], "user_text": isoText(r, 2+r.IntN(4)),
				"reply_text":  isoText(r, 1+r.IntN(2)) + " " + secret(u),
				"occurred_at": time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(150*24)) * time.Hour)}
		}
		var out struct{ IDs []int64 }
		if _, err := postJSON(client, rs.base+"/v1/episodes", token, batch, &out); err != nil {
			t.Fatal(err)
		}
		for i, id := range out.IDs {
			owner[id] = batch[i]["user"].(string)
		}
	}
	checked, empty := 0, 0
	const rounds = 150
	for n := range rounds {
		ui := r.IntN(len(users))
		u := users[ui]
		req := map[string]any{"user": u, "text": isoText(r, 1+r.IntN(3)), "now": "2025-11-01T00:00:00Z", "with_candidates": true}
		if r.IntN(2) == 0 {
			req["recent"] = []map[string]string{{"role": "user", "content": isoText(r, 3) + " " + secret(r.IntN(len(users)))}}
		}
		path := "/v1/retrieve"
		if n%3 == 0 {
			path = "/v1/pack"
			delete(req, "with_candidates")
			req["strategy"] = "full"
		}
		var out struct {
			Section    string          `json:"section"`
			Hits       []retriever.Hit `json:"hits"`
			Candidates []retriever.Hit `json:"candidates"`
		}
		if _, err := postJSON(client, rs.base+path, token, req, &out); err != nil {
			t.Fatalf("%s for %q: %v", path, u, err)
		}
		if len(out.Hits)+len(out.Candidates) == 0 {
			empty++
		}
		for _, h := range append(out.Hits, out.Candidates...) {
			checked++
			if h.Episode.User != u || owner[h.Episode.ID] != u {
				t.Fatalf("%s for %q returned episode %d of %q (stored for %q)", path, u, h.Episode.ID, h.Episode.User, owner[h.Episode.ID])
			}
		}
		for i := range users {
			if i != ui && strings.Contains(out.Section, secret(i)) {
				t.Fatalf("/v1/pack for %q holds %q's word %s", u, users[i], secret(i))
			}
		}
	}
	if empty > rounds/2 {
		t.Fatalf("%d of %d retrievals found nothing: the check is vacuous", empty, rounds)
	}
	// Forgetting "line" leaves "line:U1" and "line:U10" whole, and the reverse.
	c := apiClient{t: t, base: rs.base, token: token}
	for _, u := range []string{"line", "line:U1"} {
		before := 0
		for _, o := range owner {
			if o == u {
				before++
			}
		}
		out := c.confirming(u).expect(200, "DELETE", "/v1/users/"+strings.ReplaceAll(u, "/", "%2F"), nil, true)
		if out["deleted"] != float64(before) {
			t.Errorf("forgetting %q deleted %v episodes, want %d", u, out["deleted"], before)
		}
	}
	if out := c.expect(200, "GET", "/healthz", nil, false); out["consistent"] != true {
		t.Errorf("healthz: %v", out)
	}
	t.Logf("%d episodes of %d people, %d requests, %d hits and candidates checked", len(owner), len(users), rounds, checked)
}

// TestServeAuth checks the bearer-token comparison's edge cases; the
// comparison itself is crypto/subtle.ConstantTimeCompare of SHA-256 digests
// (server.authorized), so its time does not depend on where a guess differs.
func TestServeAuth(t *testing.T) {
	clearEnv(t)
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	const token = "correct-horse-battery-staple"
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{Token: token})
	body := `{"user": "u", "text": "x"}`
	for _, tc := range []struct {
		header string
		status int
	}{
		{"Bearer " + token, 200},
		{"bearer " + token, 200}, // the scheme is case-insensitive (RFC 9110)
		{"BEARER  " + token + " ", 200},
		{"", 401},
		{"Bearer", 401},
		{"Bearer ", 401},
		{token, 401},
		{"Basic " + token, 401},
		{"Bearer " + token[:len(token)-1], 401},
		{"Bearer " + token + "x", 401},
		{"Bearer " + strings.ToUpper(token), 401},
		{"Bearer " + token + "\x00", 401},
		{"Bearer " + strings.Repeat("a", 1<<16), 401},
		{"Token " + token, 401},
	} {
		req := httptest.NewRequest("POST", "/v1/retrieve", strings.NewReader(body))
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("Authorization %q: status %d, want %d", pytext.Clip(tc.header, 40), rec.Code, tc.status)
		}
		if rec.Code == 401 && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
	}
	// /healthz is open; every other endpoint and method is not, even unknown ones.
	for _, p := range [][2]string{{"GET", "/healthz"}, {"DELETE", "/v1/users/u"}, {"DELETE", "/v1/episodes/1"}, {"POST", "/v1/episodes"}, {"GET", "/nothing"}, {"POST", "/v1/pack"}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(p[0], p[1], nil))
		if want := 401; p[1] == "/healthz" {
			if rec.Code != 200 {
				t.Errorf("%s %s without a token: %d, want 200", p[0], p[1], rec.Code)
			}
		} else if rec.Code != want {
			t.Errorf("%s %s without a token: %d, want %d", p[0], p[1], rec.Code, want)
		}
	}
}

// TestServeDefaults checks serve's defaults: loopback, and every timeout of
// the HTTP server set.
func TestServeDefaults(t *testing.T) {
	clearEnv(t)
	code, _, errOut := runCLI(t, "serve", "-help")
	if code != 0 || !strings.Contains(errOut, `(default "127.0.0.1:8765")`) {
		t.Errorf("serve -help: exit %d, the -addr default is not loopback:\n%s", code, errOut)
	}
	rs := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "d.db")}, nil)
	srv := rs.srv
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("timeouts: read header %v, read %v, write %v, idle %v; want all set",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	if srv.ReadHeaderTimeout > 30*time.Second {
		t.Errorf("ReadHeaderTimeout %v: a slow client holds a connection that long", srv.ReadHeaderTimeout)
	}
	if !strings.Contains(rs.logs.String(), `auth=false`) || strings.Contains(rs.logs.String(), "beyond loopback") {
		t.Errorf("log: %s", rs.logs.String())
	}
}

// TestServeSlowClients shortens the server's header and body timeouts and
// checks that clients sending their headers, or their body, a byte at a time
// are cut off, and that the server meanwhile answers others.
func TestServeSlowClients(t *testing.T) {
	clearEnv(t)
	rs := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "s.db")}, func(srv *http.Server) {
		srv.ReadHeaderTimeout = 300 * time.Millisecond
		srv.ReadTimeout = 600 * time.Millisecond
	})
	for _, tc := range []struct {
		name   string
		head   string // sent at once
		drip   string // then a byte every 50 ms
		answer string // how the server's answer, if any, before it closes, starts
	}{
		{"headers", "POST /v1/retrieve HTTP/1.1\r\nHost: x\r\n", strings.Repeat("X-Slow: aaaaaaaaaa\r\n", 100), "HTTP/1.1 400"},
		{"body", "POST /v1/retrieve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
			`{"user": "u", "text": "` + strings.Repeat("a", 1000), "HTTP/1.1 400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", rs.addr.String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.head); err != nil {
				t.Fatal(err)
			}
			var got []byte
			closed := make(chan struct{})
			go func() {
				got, _ = io.ReadAll(conn) // until the server closes the connection
				close(closed)
			}()
			sent := 0
		drip:
			for i := range len(tc.drip) {
				select {
				case <-closed:
					break drip
				case <-time.After(50 * time.Millisecond):
				}
				if _, err := conn.Write([]byte{tc.drip[i]}); err != nil {
					break
				}
				sent++
			}
			select {
			case <-closed:
			case <-time.After(30 * time.Second): // a guard, not a timing check
				t.Fatal("the server never closed the connection")
			}
			if sent == len(tc.drip) {
				t.Fatalf("the whole slow %s (%d bytes) was accepted", tc.name, sent)
			}
			if len(got) > 0 && !bytes.HasPrefix(got, []byte(tc.answer)) {
				t.Errorf("answer %q, want %q", got, tc.answer)
			}
			t.Logf("cut off after %d of %d bytes", sent, len(tc.drip))
		})
	}
	// Meanwhile, and after, the server serves.
	c := apiClient{t: t, base: rs.base}
	c.expect(200, "GET", "/healthz", nil, false)
}

// TestServeBodyLimits checks that a body over -max-body is refused with 413
// on every endpoint that reads one, whether it announces its length or is
// chunked, and that nothing of it is stored; a body just under the limit is
// served.
func TestServeBodyLimits(t *testing.T) {
	clearEnv(t)
	rs := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "b.db"), "-max-body", "16KiB"}, nil)
	bodies := map[string]string{
		"/v1/episodes": `[{"user": "u", "user_text": "` + strings.Repeat("あ", 8<<10) + `"}]`,
		"/v1/retrieve": `{"user": "u", "text": "x", "recent": [{"role": "user", "content": "` + strings.Repeat("a", 16<<10) + `"}]}`,
		"/v1/pack":     `{"user": "u", "text": "` + strings.Repeat("い", 6<<10) + `"}`,
	}
	for path, big := range bodies {
		for _, chunked := range []bool{false, true} {
			var body io.Reader = strings.NewReader(big)
			if chunked {
				body = io.MultiReader(body) // hides the length: Go sends it chunked
			}
			req, err := http.NewRequest("POST", rs.base+path, body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 413 || !strings.Contains(string(raw), "larger than 16384 bytes") {
				t.Errorf("%s, chunked=%v: status %d, %s", path, chunked, resp.StatusCode, raw)
			}
		}
	}
	if code, err := postJSON(http.DefaultClient, rs.base+"/v1/retrieve", "", map[string]any{"user": "u", "text": strings.Repeat("a", 15<<10)}, nil); err != nil {
		t.Errorf("a body under the limit: %d, %v", code, err)
	}
	c := apiClient{t: t, base: rs.base}
	if out := c.expect(200, "GET", "/healthz", nil, false); out["episodes"] != 0.0 {
		t.Errorf("healthz after refused bodies: %v", out)
	}
}

// TestServeLogsNoSecrets runs the server with an embedder whose errors echo
// the input text and the API key back (as some servers and proxies do), and
// checks that the default log holds neither, nor the bearer token, nor any
// message text, while the failures themselves are logged.
func TestServeLogsNoSecrets(t *testing.T) {
	clearEnv(t)
	const (
		token   = "tok-SENTINEL-93c1"
		apiKey  = "sk-SENTINEL-API-KEY-5d2e"
		userMsg = "センチネル本文テキスト"
		reply   = "sentinel-reply-text"
	)
	var failing atomic.Bool
	fake := newFakeEmbeddings(t, apiKey, "")
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !failing.Load() {
			fake.serve(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error": "cannot embed %s (key %s)"}`, raw, r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	t.Setenv("OMOIDE_TEST_API_KEY", apiKey)
	t.Setenv(envToken, token)
	rs := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "l.db"), "-embedder", "openai", "-endpoint", echo.URL + "/v1",
		"-model", "fake-embed", "-dim", "64", "-key-env", "OMOIDE_TEST_API_KEY"}, nil)
	c := apiClient{t: t, base: rs.base, token: token}
	ep := []map[string]any{{"id": "s1", "user": "sentinel-user", "user_text": userMsg, "reply_text": reply}}
	c.expect(200, "POST", "/v1/episodes", ep, true)
	c.expect(200, "POST", "/v1/retrieve", map[string]any{"user": "sentinel-user", "text": userMsg + "？", "recent": []any{}}, true)
	c.expect(401, "POST", "/v1/retrieve", map[string]any{"user": "sentinel-user", "text": userMsg}, false)
	wrong := c
	wrong.token = token + "-wrong"
	wrong.expect(401, "POST", "/v1/retrieve", map[string]any{"user": "sentinel-user", "text": userMsg}, true)

	failing.Store(true)
	ep[0]["id"] = "s2"
	out := c.expect(500, "POST", "/v1/episodes", ep, true)
	if msg, _ := out["error"].(string); strings.Contains(msg, apiKey) {
		t.Errorf("the error answered leaks the API key: %s", msg)
	}
	if out := c.expect(200, "GET", "/healthz", nil, false); out["episodes"] != 1.0 || out["vector_rows"] != 1.0 || out["consistent"] != true {
		t.Errorf("healthz after the failed write: %v, want the one episode stored before", out)
	}
	// The default preset falls back to BM25 when the embedder fails.
	out = c.expect(200, "POST", "/v1/retrieve", map[string]any{"user": "sentinel-user", "text": userMsg + "の話", "recent": []any{}}, true)
	if tr, _ := out["trace"].(map[string]any); tr["degraded"] == nil {
		t.Errorf("retrieval with a failing embedder is not marked degraded: %v", out["trace"])
	}
	c.expect(400, "POST", "/v1/episodes", `[{"user": "u", "user_text": "`+userMsg+`", "kind": "`+userMsg+`"}]`, true)
	if err := rs.stop(); err != nil {
		t.Fatal(err)
	}

	log := rs.logs.String()
	if !strings.Contains(log, "status=500") || !strings.Contains(log, "request failed") {
		t.Errorf("the failure is not logged:\n%s", log)
	}
	for _, secret := range []string{token, apiKey, "SENTINEL", userMsg, "センチネル", reply} {
		if strings.Contains(log, secret) {
			t.Errorf("log holds %q:\n%s", secret, log)
		}
	}
}

// TestServeLoad drives the running server from 8 concurrent clients with
// 2,000 requests, mixed writes and retrievals, and requires every answer to
// be 200 and the store to be consistent after. It logs the rate and latency
// it saw (go test -v); it asserts no speed. It takes 4-6 s on 2 vCPUs, so
// -short skips it.
func TestServeLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 requests")
	}
	clearEnv(t)
	const (
		token    = "load-token"
		clients  = 8
		requests = 2000
	)
	t.Setenv(envToken, token)
	db := filepath.Join(t.TempDir(), "load.db")
	rs := startServe(t, []string{"-db", db}, nil)
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: time.Minute}

	var next atomic.Int64
	var added atomic.Int64
	latencies := make([][]time.Duration, clients)
	errs := make(chan error, clients)
	start := time.Now()
	var wg sync.WaitGroup
	for g := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for {
				n := next.Add(1)
				if n > requests {
					return
				}
				user := fmt.Sprintf("user%d", r.IntN(16))
				var url string
				var body any
				if n%5 < 2 { // 40 % writes of 1-4 episodes
					eps := make([]map[string]any, 1+r.IntN(4))
					for i := range eps {
						eps[i] = map[string]any{"id": fmt.Sprintf("g%d-%d-%d", g, n, i), "user": user, "user_text": isoText(r, 3), "reply_text": isoText(r, 1),
							"occurred_at": time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)}
					}
					url, body = rs.base+"/v1/episodes", eps
					added.Add(int64(len(eps)))
				} else {
					url, body = rs.base+"/v1/retrieve", map[string]any{"user": user, "text": isoText(r, 2), "now": "2025-10-01T00:00:00Z"}
				}
				t0 := time.Now()
				if _, err := postJSON(client, url, token, body, nil); err != nil {
					errs <- fmt.Errorf("request %d: %w", n, err)
					return
				}
				latencies[g] = append(latencies[g], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := slices.Concat(latencies...)
	if len(all) != requests {
		t.Fatalf("%d of %d requests succeeded", len(all), requests)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	c := apiClient{t: t, base: rs.base}
	if out := c.expect(200, "GET", "/healthz", nil, false); out["episodes"] != float64(added.Load()) || out["consistent"] != true {
		t.Errorf("healthz after the load: %v, want %d episodes", out, added.Load())
	}
	t.Logf("%d requests (40%% writes, %d episodes) from %d clients in %v: %.0f req/s, p50 %v, p99 %v, max %v",
		requests, added.Load(), clients, elapsed.Round(time.Millisecond), float64(requests)/elapsed.Seconds(),
		pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), all[len(all)-1].Round(10*time.Microsecond))
}

// TestFailingEmbedderIngestAndReembed runs ingest and reembed against an
// OpenAI-compatible endpoint that fails (HTTP 500) on one episode's text.
// Ingest stops with the error; the batches before it are stored whole, and
// no episode is left without its vector. Episodes that lost their vectors
// (as an older store or a repair by hand could leave them) are completed by
// reembed, which, while the endpoint fails, changes nothing (the store keeps
// its embedder and vectors) and, once it answers, gives every episode its
// vector; after each step omoide check tells the truth.
func TestFailingEmbedderIngestAndReembed(t *testing.T) {
	clearEnv(t)
	const apiKey = "sk-test-failing-1234"
	var failing atomic.Bool
	fake := newFakeEmbeddings(t, apiKey, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if failing.Load() && strings.Contains(string(raw), "猫のこむぎ") {
			http.Error(w, `{"error": {"message": "model crashed"}}`, http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		fake.serve(w, r)
	}))
	defer srv.Close()
	t.Setenv("OMOIDE_TEST_API_KEY", apiKey)
	openai := []string{"-embedder", "openai", "-endpoint", srv.URL + "/v1", "-model", "fake-embed", "-dim", "64", "-key-env", "OMOIDE_TEST_API_KEY"}
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "e.jsonl", testEpisodes)

	// Ingest in batches of 2: the second batch (haruka:r3, the cat) fails.
	db := filepath.Join(dir, "ingest.db")
	failing.Store(true)
	code, out, errOut := runCLI(t, append([]string{"ingest", "-db", db, "-batch", "2", jsonl}, openai...)...)
	if code != 1 || !strings.Contains(errOut, "HTTP 500") || !strings.Contains(out, "2 added") {
		t.Fatalf("ingest with a failing embedder: exit %d, %q, %q", code, out, errOut)
	}
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "episodes   2 (fts 2, vectors 2)") {
		t.Fatalf("check after the failed ingest: %q", out)
	}
	failing.Store(false)
	if out := mustRun(t, append([]string{"ingest", "-db", db, "-batch", "2", jsonl}, openai...)...); !strings.Contains(out, "3 added, 2 already present") {
		t.Fatalf("ingest again: %q", out)
	}
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "episodes   5 (fts 5, vectors 5)") {
		t.Fatalf("check after the second ingest: %q", out)
	}

	// A hash store with two episodes that lost their vectors.
	db, _ = newTestStore(t)
	store, err := sqlite.Open(context.Background(), db, sqlite.Options{Embedder: omoide.DefaultEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB().Exec(`DELETE FROM episodes_vec WHERE episode_id IN (SELECT id FROM episodes ORDER BY id LIMIT 2)`); err != nil {
		t.Fatal(err)
	}
	store.Close()
	if code, out, _ := runCLI(t, "check", "-db", db); code != 1 || !strings.Contains(out, "2 episodes without a vector") {
		t.Fatalf("check of the store without two vectors: exit %d, %q", code, out)
	}
	failing.Store(true)
	code, out, errOut = runCLI(t, append([]string{"reembed", "-db", db, "-batch", "2"}, openai...)...)
	if code != 1 || !strings.Contains(errOut, "HTTP 500") || strings.Contains(errOut, apiKey) {
		t.Fatalf("reembed with a failing embedder: exit %d, %q, %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "check", "-db", db)
	if code != 1 || !strings.Contains(out, "embedder   hash-v1+w/256 (vector table: 256 dimensions)") || !strings.Contains(out, "2 episodes without a vector") {
		t.Fatalf("check after the failed reembed: exit %d, %q", code, out)
	}
	failing.Store(false)
	if out := mustRun(t, append([]string{"reembed", "-db", db, "-batch", "2"}, openai...)...); !strings.Contains(out, "re-embedded 5 episodes") {
		t.Fatalf("reembed: %q", out)
	}
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "embedder   openai:fake-embed/64 (vector table: 64 dimensions)") ||
		!strings.Contains(out, "episodes   5 (fts 5, vectors 5)") || !strings.Contains(out, "the three tables agree") {
		t.Fatalf("check after reembed: %q", out)
	}
	out = mustRun(t, append([]string{"retrieve", "-db", db, "-user", "haruka", "-now", testNow, "-no-context", "猫のこむぎ"}, openai...)...)
	if !strings.Contains(out, "haruka:r3") {
		t.Errorf("retrieve after reembed:\n%s", out)
	}
}

// TestServeRoutedByPerson: the per-person routes and the X-Omoide-User
// header name the person a proxy routes by; a body that names another person
// is refused, and nothing of one person is read, written or deleted through
// a request routed as another's.
func TestServeRoutedByPerson(t *testing.T) {
	clearEnv(t)
	rs := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "routed.db")}, nil)
	client := &http.Client{Timeout: time.Minute}
	send := func(method, path, user string, body any) (int, map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, err := http.NewRequest(method, rs.base+path, bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if user != "" {
			req.Header.Set(omoidehttp.UserHeader, omoidehttp.EncodeUser(user)) // line:U1 is line%3AU1
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	ep := func(user, text string) map[string]any {
		m := map[string]any{"user_text": text, "reply_text": "そうなんだ、" + text, "occurred_at": "2025-06-01T00:00:00Z"}
		if user != "" {
			m["user"] = user
		}
		return m
	}
	// The person in the path fills the body's; "line:U1" has a slash.
	if code, out := send("POST", "/v1/users/line:U1/episodes", "", []any{ep("", "猫のこむぎが爪とぎを覚えた")}); code != 200 {
		t.Fatalf("POST /v1/users/line%%2FU1/episodes: %d %v", code, out)
	}
	if code, out := send("POST", "/v1/episodes", "mio", []any{ep("", "猫の病院に行った")}); code != 200 {
		t.Fatalf("POST /v1/episodes as mio by header: %d %v", code, out)
	}
	if code, out := send("PUT", "/v1/users/mio/episodes", "", []any{ep("mio", "猫と散歩した")}); code != 200 {
		t.Fatalf("PUT /v1/users/mio/episodes: %d %v", code, out)
	}
	// Later talk, which stands in for a missing conversation (the stored
	// context), so that the cat episodes are memories.
	for _, u := range []string{"line:U1", "mio"} {
		var filler []any
		for i := range 4 {
			f := ep("", fmt.Sprintf("今日の天気の話 %d", i))
			f["occurred_at"] = fmt.Sprintf("2025-06-2%dT00:00:00Z", i)
			filler = append(filler, f)
		}
		if code, out := send("POST", "/v1/users/"+u+"/episodes", "", filler); code != 200 {
			t.Fatalf("filler for %s: %d %v", u, code, out)
		}
	}
	// Another person in the body, or a header against the path: 400, nothing stored.
	for _, tc := range []struct{ method, path, header string }{
		{"POST", "/v1/users/mio/episodes", ""},
		{"POST", "/v1/episodes", "mio"},
		{"POST", "/v1/users/mio/episodes", "line:U1"},
	} {
		if code, out := send(tc.method, tc.path, tc.header, []any{ep("line:U1", "猫の秘密 zq1qz")}); code != 400 || !strings.Contains(fmt.Sprint(out["error"]), "routed") && !strings.Contains(fmt.Sprint(out["error"]), omoidehttp.UserHeader) {
			t.Errorf("%s %s (header %q) with another person's episode: %d %v", tc.method, tc.path, tc.header, code, out)
		}
	}
	// Retrieval by path and by header finds only the routed person's episodes.
	for _, tc := range []struct{ path, header, user string }{
		{"/v1/users/line:U1/retrieve", "", "line:U1"},
		{"/v1/users/mio/pack", "", "mio"},
		{"/v1/retrieve", "mio", "mio"},
	} {
		code, out := send("POST", tc.path, tc.header, map[string]any{"text": "猫", "now": "2025-07-01T00:00:00Z"})
		hits, _ := out["hits"].([]any)
		if code != 200 || len(hits) == 0 {
			t.Fatalf("POST %s (header %q): %d %v", tc.path, tc.header, code, out)
		}
		for _, h := range hits {
			if u := h.(map[string]any)["user"]; u != tc.user {
				t.Errorf("POST %s returned %v's episode, routed as %s", tc.path, u, tc.user)
			}
		}
	}
	if code, out := send("POST", "/v1/users/mio/retrieve", "", map[string]any{"user": "line:U1", "text": "猫"}); code != 400 {
		t.Errorf("retrieve routed as mio for line:U1: %d %v", code, out)
	}
	// Delete by id, routed as another person: 404, the episode stays.
	_, out := send("POST", "/v1/users/line:U1/retrieve", "", map[string]any{"text": "爪とぎ", "now": "2025-07-01T00:00:00Z"})
	id := int64(out["hits"].([]any)[0].(map[string]any)["id"].(float64))
	if code, out := send("DELETE", fmt.Sprintf("/v1/episodes/%d", id), "mio", nil); code != 404 {
		t.Errorf("DELETE /v1/episodes/%d as mio: %d %v", id, code, out)
	}
	if code, out := send("DELETE", fmt.Sprintf("/v1/episodes/%d", id), "line:U1", nil); code != 200 || out["deleted"] != 1.0 {
		t.Errorf("DELETE /v1/episodes/%d as line:U1: %d %v", id, code, out)
	}
}

// TestMove moves two of three people between two running nodes: every
// episode arrives as it was, the source keeps none of theirs and refuses
// their writes while held, the third person stays; a move to a node that is
// down fails, loses nothing and can be run again at once.
func TestMove(t *testing.T) {
	clearEnv(t)
	const token = "move-token"
	t.Setenv(envToken, token)
	a := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "a.db")}, nil)
	b := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "b.db")}, nil)
	client := &http.Client{Timeout: time.Minute}
	people := []string{"haruka", "line:U1", "kenta"}
	for i, u := range people {
		var batch []map[string]any
		for j := range 7 + i {
			e := map[string]any{"user": u, "user_text": fmt.Sprintf("%sの話 %d 猫", u, j), "reply_text": "へえ",
				"occurred_at": time.Date(2025, 6, 1+j, 0, 0, 0, 0, time.UTC), "kind": "fact"}
			if j%2 == 0 {
				e["id"] = fmt.Sprintf("%s:%d", u, j)
			}
			batch = append(batch, e)
		}
		if _, err := postJSON(client, a.base+"/v1/episodes", token, batch, nil); err != nil {
			t.Fatal(err)
		}
	}
	list := func(base, user string) []episode.Record {
		t.Helper()
		recs, err := omoidehttp.Client{BaseURL: base, Token: token, HTTP: client}.Episodes(context.Background(), user)
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	before := map[string][]episode.Record{}
	for _, u := range people {
		before[u] = list(a.base, u)
	}
	// The destination is down: an error, nothing lost, no hold left behind.
	code, _, errOut := runCLI(t, "move", "-from", a.base, "-to", "http://127.0.0.1:1", "haruka")
	if code != 1 || !strings.Contains(errOut, "import at the destination") {
		t.Fatalf("move to a node that is down: exit %d, %s", code, errOut)
	}
	if got := list(a.base, "haruka"); len(got) != len(before["haruka"]) {
		t.Fatalf("after the failed move the source holds %d of haruka's %d episodes", len(got), len(before["haruka"]))
	}
	out := mustRun(t, "move", "-from", a.base, "-to", b.base, "haruka", "line:U1")
	if !strings.Contains(out, "moved 2 people, 15 episodes") {
		t.Errorf("move: %q", out)
	}
	for _, u := range people[:2] {
		if got := list(a.base, u); len(got) != 0 {
			t.Errorf("the source still holds %d of %s's episodes", len(got), u)
		}
		got := list(b.base, u)
		if len(got) != len(before[u]) {
			t.Fatalf("the destination holds %d of %s's %d episodes", len(got), u, len(before[u]))
		}
		for i := range got {
			w, g := before[u][i], got[i]
			if g.ID != w.ID || g.User != w.User || g.UserText != w.UserText || !g.OccurredAt.Equal(w.OccurredAt) || g.Kind != w.Kind {
				t.Errorf("%s's episode %d: %+v at the destination, %+v at the source", u, i, g, w)
			}
		}
	}
	if got := list(a.base, "kenta"); len(got) != len(before["kenta"]) {
		t.Errorf("kenta, not moved, has %d of %d episodes at the source", len(got), len(before["kenta"]))
	}
	if got := list(b.base, "kenta"); len(got) != 0 {
		t.Errorf("kenta, not moved, has %d episodes at the destination", len(got))
	}
	// A write still routed to the source waits for the route to change.
	req, _ := http.NewRequest("POST", a.base+"/v1/users/haruka/episodes", strings.NewReader(`[{"user_text": "遅れて届いた話"}]`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a write of a moved person at the source: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// The same move again finds nothing left to move; moving the person
	// back waits for the source's hold to end.
	if out := mustRun(t, "move", "-from", a.base, "-to", b.base, "line:U1"); !strings.Contains(out, "moved 1 people, 0 episodes") {
		t.Errorf("the same move again: %q", out)
	}
	if code, _, errOut := runCLI(t, "move", "-from", b.base, "-to", a.base, "line:U1"); code != 1 || !strings.Contains(errOut, "503") {
		t.Errorf("move back while held: exit %d, %s", code, errOut)
	}
	if got := list(b.base, "line:U1"); len(got) != len(before["line:U1"]) {
		t.Errorf("after the refused move back, the destination holds %d of %d episodes", len(got), len(before["line:U1"]))
	}
	// A person named twice is moved once.
	if out := mustRun(t, "move", "-from", a.base, "-to", b.base, "kenta", "kenta"); !strings.Contains(out, "moved 1 people, "+fmt.Sprint(len(before["kenta"]))+" episodes") {
		t.Errorf("kenta named twice: %q", out)
	}
}

// TestMoveErrors: a wrong command line is a usage error (exit 2) found
// before any request; a node that does not answer is a failure (exit 1).
func TestMoveErrors(t *testing.T) {
	clearEnv(t)
	down := "http://127.0.0.1:1"
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"-to", down, "ann"}, 2, "-from and -to are required"},
		{[]string{"-from", down, "-to", down + "/", "ann"}, 2, "the same node"},
		{[]string{"-from", down, "-to", "http://127.0.0.1:2", "-hold", "0s", "ann"}, 2, "-hold"},
		{[]string{"-from", down, "-to", "http://127.0.0.1:2", "-peers", "127.0.0.1:3"}, 2, "-peers"},
		{[]string{"-from", down, "-to", "http://127.0.0.1:2", "-peers", "127.0.0.1:2 127.0.0.1:3"}, 1, "-peers"},
		{[]string{"-from", down, "-to", "http://127.0.0.1:2"}, 2, "no people to move"},
	} {
		code, _, errOut := runCLI(t, append([]string{"move"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.says) {
			t.Errorf("move %q: exit %d, %s; want exit %d saying %q", tt.args, code, errOut, tt.code, tt.says)
		}
	}
}

// TestMoveOwnedThroughProxy: after a node is added, move -proxy moves from
// the old node exactly the people the proxy now routes to the new one.
func TestMoveOwnedThroughProxy(t *testing.T) {
	clearEnv(t)
	a := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "a.db"), "-node", "a"}, nil)
	b := startServe(t, []string{"-db", filepath.Join(t.TempDir(), "b.db"), "-node", "b"}, nil)
	client := &http.Client{Timeout: time.Minute}
	people := []string{"ann", "bob", "bea", "carl", "bo x"}
	for _, u := range people {
		if _, err := postJSON(client, a.base+"/v1/users/"+url.PathEscape(u)+"/episodes", "", []map[string]any{{"user_text": u + "の話"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The proxy: people whose names begin with b go to node b, the others to a.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := a.base
		if strings.HasPrefix(r.Header.Get(omoidehttp.UserHeader), "b") {
			target = b.base
		}
		u, _ := url.Parse(target)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	defer proxy.Close()
	out := mustRun(t, "move", "-from", a.base, "-to", b.base, "-proxy", proxy.URL)
	if !strings.Contains(out, "moved 3 people, 3 episodes") {
		t.Fatalf("move -proxy: %q", out)
	}
	at, err := omoidehttp.Client{BaseURL: a.base, HTTP: client}.People(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(at) != "[{ann 1} {carl 1}]" {
		t.Errorf("node a keeps %v", at)
	}
	if out := mustRun(t, "move", "-from", a.base, "-to", b.base, "-proxy", proxy.URL); !strings.Contains(out, "nothing to move") {
		t.Errorf("move -proxy again: %q", out)
	}
}
