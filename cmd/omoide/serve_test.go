package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings server on loopback
// that embeds with the hash embedder. A request holding the text marker
// blocks: it is announced on arrived and waits for release.
type fakeEmbeddings struct {
	*httptest.Server
	key      string
	hash     *embed.Hash
	marker   string
	arrived  chan struct{}
	release  chan struct{}
	announce sync.Once
}

const fakeDim = 64

func newFakeEmbeddings(t *testing.T, key, marker string) *fakeEmbeddings {
	t.Helper()
	h, err := embed.NewHash(embed.HashOptions{Dim: fakeDim})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeEmbeddings{key: key, hash: h, marker: marker, arrived: make(chan struct{}), release: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeEmbeddings) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+f.key {
		http.Error(w, `{"error": {"message": "bad path or key"}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "fake-embed" {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	for _, in := range req.Input {
		if f.marker != "" && strings.Contains(in, f.marker) {
			f.announce.Do(func() { close(f.arrived) })
			<-f.release
		}
	}
	vecs, _ := f.hash.Embed(r.Context(), req.Input)
	type datum struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Data []datum `json:"data"`
	}{}
	for i, v := range vecs {
		resp.Data = append(resp.Data, datum{i, v})
	}
	json.NewEncoder(w).Encode(resp)
}

// syncBuffer is a bytes.Buffer safe for concurrent use (the server's log).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// apiClient calls the server under test.
type apiClient struct {
	t       *testing.T
	base    string
	token   string
	as      string // the X-Omoide-User of every request, when set
	forgets string // the X-Omoide-Forget of every request, when set
}

// confirming returns c with every request confirming a forget of user.
func (c apiClient) confirming(user string) apiClient {
	c.forgets = user
	return c
}

// call sends body (a string, or a value to encode) and decodes the JSON
// response into a map.
func (c apiClient) call(method, path string, body any, auth bool) (int, map[string]any) {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.as != "" {
		req.Header.Set(omoidehttp.UserHeader, omoidehttp.EncodeUser(c.as))
	}
	if c.forgets != "" {
		req.Header.Set(omoidehttp.ForgetHeader, omoidehttp.EncodeUser(c.forgets))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		c.t.Errorf("%s %s: Content-Type %q, body %q", method, path, ct, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s %s: status %d, body %q is not a JSON object: %v", method, path, resp.StatusCode, raw, err)
	}
	return resp.StatusCode, out
}

// expect calls and checks the status.
func (c apiClient) expect(status int, method, path string, body any, auth bool) map[string]any {
	c.t.Helper()
	got, out := c.call(method, path, body, auth)
	if got != status {
		c.t.Fatalf("%s %s: status %d, want %d: %v", method, path, got, status, out)
	}
	if status >= 400 {
		if msg, _ := out["error"].(string); msg == "" {
			c.t.Errorf("%s %s: error response without an error message: %v", method, path, out)
		}
	}
	return out
}

// hitsOf returns the hits of a retrieve or pack response.
func hitsOf(t *testing.T, out map[string]any, key string) []retriever.Hit {
	t.Helper()
	raw, _ := json.Marshal(out[key])
	var hits []retriever.Hit
	if err := json.Unmarshal(raw, &hits); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return hits
}

// TestServeEndToEnd runs the serve subcommand on loopback with an openai
// embedder (a fake endpoint) and drives its API over HTTP, up to a shutdown
// with a write in flight.
func TestServeEndToEnd(t *testing.T) {
	clearEnv(t)
	const (
		token  = "s3cret-token-value"
		apiKey = "sk-test-key-never-logged"
		marker = "遅延マーカー"
	)
	fake := newFakeEmbeddings(t, apiKey, marker)
	t.Setenv("OMOIDE_TEST_API_KEY", apiKey)
	t.Setenv(envToken, token)
	db := filepath.Join(t.TempDir(), "serve.db")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	addrc := make(chan net.Addr, 1)
	shutdown := make(chan struct{})
	done := make(chan error, 1)
	args := []string{"-db", db, "-embedder", "openai", "-endpoint", fake.URL + "/v1", "-model", "fake-embed", "-dim", "64",
		"-key-env", "OMOIDE_TEST_API_KEY", "-addr", "127.0.0.1:0", "-max-body", "64KiB", "-tz", "Asia/Tokyo"}
	go func() {
		done <- serve(ctx, args, io.Discard, &logs, serveHooks{
			ready:      func(a net.Addr) { addrc <- a },
			onShutdown: func() { close(shutdown) },
		})
	}()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("serve returned before listening: %v\n%s", err, logs.String())
	case <-time.After(time.Minute):
		t.Fatal("serve did not start listening")
	}
	c := apiClient{t: t, base: "http://" + addr.String(), token: token}

	// Health is open; everything else needs the token.
	if out := c.expect(200, "GET", "/healthz", nil, false); out["ok"] != true || out["episodes"] != 0.0 || out["embedder"] != "openai:fake-embed/64" {
		t.Errorf("healthz: %v", out)
	}
	c.expect(401, "POST", "/v1/retrieve", `{"user": "haruka", "text": "x"}`, false)
	c.expect(401, "DELETE", "/v1/users/haruka", nil, false)
	wrong := c
	wrong.token = "not-the-token"
	wrong.expect(401, "POST", "/v1/episodes", `[]`, true)

	// Two people, both talking about ramen: an array, and {"episodes": [...]}.
	out := c.expect(200, "POST", "/v1/episodes", []map[string]any{
		{"id": "h1", "user": "haruka", "user_text": "中野の麺屋こはくで味噌バターラーメンを食べた", "reply_text": "濃厚でおいしそう！", "occurred_at": "2025-06-01T12:30:00Z"},
		{"external_id": "h2", "user": "haruka", "user_text": "整形外科で膝の腸脛靭帯炎と言われた", "reply_text": "お大事にね", "occurred_at": "2025-06-05T10:00:00Z"},
		{"id": "h3", "user": "haruka", "user_text": "ラーメンの食べ歩きが趣味になりそう", "reply_text": "次はどこに行く？", "occurred_at": "2025-06-07T10:00:00Z",
			"kind": "episode", "state": "validated", "sensitivity": "normal", "source": "chat"},
	}, true)
	if ids, _ := out["ids"].([]any); len(ids) != 3 {
		t.Fatalf("ids %v", out)
	}
	out = c.expect(200, "POST", "/v1/episodes", map[string]any{"episodes": []map[string]any{
		{"id": "k1", "user": "kenta", "user_text": "博多で豚骨ラーメンを食べた。替え玉した", "reply_text": "替え玉は外せないね", "occurred_at": "2025-06-02T12:00:00Z"},
		{"id": "k2", "user": "kenta", "user_text": "味噌ラーメンも好き", "reply_text": "いいね", "occurred_at": "2025-06-03T12:00:00Z"},
	}}, true)
	kentaIDs, _ := out["ids"].([]any)
	if len(kentaIDs) != 2 {
		t.Fatalf("ids %v", out)
	}
	// Idempotent by external id; other content is a conflict, which PUT
	// replaces.
	k1 := `[{"id": "k1", "user": "kenta", "user_text": "博多で豚骨ラーメンを食べた。替え玉した", "reply_text": "替え玉は外せないね", "occurred_at": "2025-06-02T12:00:00Z"}]`
	again := c.expect(200, "POST", "/v1/episodes", k1, true)
	if fmt.Sprint(again["ids"]) != fmt.Sprint(kentaIDs[:1]) {
		t.Errorf("re-adding k1: ids %v, want %v", again["ids"], kentaIDs[:1])
	}
	k1b := strings.Replace(k1, "替え玉は外せないね", "替え玉は2回まで", 1)
	if out := c.expect(409, "POST", "/v1/episodes", k1b, true); !strings.Contains(fmt.Sprint(out["error"]), "k1") {
		t.Errorf("POST of other content under k1: %v", out)
	}
	replaced := c.expect(200, "PUT", "/v1/episodes", k1b, true)
	if fmt.Sprint(replaced["ids"]) == fmt.Sprint(kentaIDs[:1]) {
		t.Errorf("PUT k1: ids %v, want a new id", replaced["ids"])
	}
	c.expect(200, "PUT", "/v1/episodes", k1, true) // and back

	// Retrieval stays within the person.
	req := map[string]any{"user": "haruka", "text": "麺屋こはくの味噌バターラーメンがまた食べたい", "recent": []any{}, "now": "2025-07-01T00:00:00Z", "with_candidates": true}
	out = c.expect(200, "POST", "/v1/retrieve", req, true)
	hits, cands := hitsOf(t, out, "hits"), hitsOf(t, out, "candidates")
	if len(hits) == 0 || hits[0].Episode.ExternalID != "h1" || hits[0].Relevance != rerank.High {
		t.Fatalf("hits %+v", hits)
	}
	for _, h := range append(hits, cands...) {
		if h.Episode.User != "haruka" {
			t.Errorf("retrieval for haruka returned %s's episode %q", h.Episode.User, h.Episode.ExternalID)
		}
	}
	trace, _ := out["trace"].(map[string]any)
	if trace["total_us"] == nil || trace["candidates"] == nil {
		t.Errorf("trace %v", trace)
	}
	kreq := map[string]any{"user": "kenta", "text": "味噌ラーメンが食べたい", "recent": []any{}, "now": "2025-07-01T00:00:00Z"}
	for _, h := range hitsOf(t, c.expect(200, "POST", "/v1/retrieve", kreq, true), "hits") {
		if h.Episode.User != "kenta" {
			t.Errorf("retrieval for kenta returned %s's episode", h.Episode.User)
		}
	}

	// Pack.
	preq := map[string]any{"user": "haruka", "text": "麺屋こはくの味噌バターラーメン", "recent": []map[string]string{{"role": "user", "content": "お腹すいた"}},
		"now": "2025-07-01T00:00:00Z", "strategy": "full", "tz": "Asia/Tokyo"}
	out = c.expect(200, "POST", "/v1/pack", preq, true)
	if section, _ := out["section"].(string); out["inject"] != true || !strings.HasPrefix(section, "[EPISODE_EVIDENCE]\n") || !strings.Contains(section, "[2025-06-01]") ||
		strings.Contains(section, "→ 関連") {
		t.Errorf("pack (the default preset: no reasons): %v", out)
	}
	preq["reasons"] = true
	out = c.expect(200, "POST", "/v1/pack", preq, true)
	if section, _ := out["section"].(string); !strings.Contains(section, "→ 関連: relevance model: p=0.9") {
		t.Errorf("pack with reasons: %v", out)
	}
	if tr, _ := out["trace"].(map[string]any); tr["probability"] == nil {
		t.Errorf("pack: no probability in the trace: %v", out)
	}
	if hs, _ := out["hits"].([]any); len(hs) == 0 || hs[0].(map[string]any)["probability"] == nil {
		t.Errorf("pack: no probability on the hits: %v", out)
	}
	out = c.expect(200, "POST", "/v1/pack", map[string]any{"user": "nobody", "text": "ラーメン", "now": "2025-07-01T00:00:00Z"}, true)
	if out["section"] != "" || out["inject"] != false {
		t.Errorf("pack for nobody: %v", out)
	}

	// One time zone, -tz's or the request's, for "昨日" and the dates: at
	// 00:30 on the 21st in Tokyo (15:30 UTC on the 20th) yesterday is the
	// 20th there, which holds y20 (08:00 JST), and the 19th in UTC, which
	// holds both (y20 at 23:00 UTC).
	c.expect(200, "POST", "/v1/episodes", []map[string]any{
		{"id": "y20", "user": "yuki", "user_text": "映画を観に行く", "reply_text": "楽しんで！", "occurred_at": "2025-12-19T23:00:00Z"},
		{"id": "y19", "user": "yuki", "user_text": "本屋に寄った", "reply_text": "何か買った？", "occurred_at": "2025-12-19T12:00:00Z"},
	}, true)
	yreq := map[string]any{"user": "yuki", "text": "昨日何話したっけ", "recent": []any{}, "now": "2025-12-20T15:30:00Z"}
	if hits := hitsOf(t, c.expect(200, "POST", "/v1/retrieve", yreq, true), "hits"); len(hits) != 1 || hits[0].Episode.ExternalID != "y20" {
		t.Errorf("yesterday in -tz Asia/Tokyo: hits %+v, want y20 alone", hits)
	}
	yreq["tz"] = "UTC"
	if hits := hitsOf(t, c.expect(200, "POST", "/v1/retrieve", yreq, true), "hits"); len(hits) != 2 {
		t.Errorf("yesterday in the request's UTC: hits %+v, want y20 and y19", hits)
	}
	out = c.expect(200, "POST", "/v1/pack", yreq, true)
	if section, _ := out["section"].(string); !strings.Contains(section, "[2025-12-19]") || strings.Contains(section, "[2025-12-20]") {
		t.Errorf("pack in the request's UTC dates y20 wrongly: %v", out)
	}
	// A person's episodes, page by page, as ingest reads them.
	page := c.expect(200, "GET", "/v1/users/yuki/episodes?limit=1", nil, true)
	recs, _ := page["episodes"].([]any)
	next, _ := page["next"].(float64)
	if len(recs) != 1 || next == 0 || recs[0].(map[string]any)["id"] != "y20" || recs[0].(map[string]any)["user_text"] != "映画を観に行く" {
		t.Errorf("episodes page 1: %v", page)
	}
	page = c.expect(200, "GET", fmt.Sprintf("/v1/users/yuki/episodes?limit=1&after=%d", int64(next)), nil, true)
	if recs, _ := page["episodes"].([]any); len(recs) != 1 || recs[0].(map[string]any)["id"] != "y19" {
		t.Errorf("episodes page 2: %v", page)
	}
	c.expect(400, "GET", "/v1/users/yuki/episodes?limit=0", nil, true)
	c.expect(400, "GET", "/v1/users/yuki/episodes?after=x", nil, true)
	c.expect(400, "DELETE", "/v1/users/yuki", nil, true) // unconfirmed
	if out := c.confirming("yuki").expect(200, "DELETE", "/v1/users/yuki", nil, true); out["deleted"] != 2.0 || out["bytes_freed"] == nil {
		t.Errorf("forget yuki: %v", out)
	}
	if page := c.expect(200, "GET", "/v1/users/yuki/episodes", nil, true); len(page["episodes"].([]any)) != 0 || page["next"] != nil {
		t.Errorf("episodes of the forgotten: %v", page)
	}

	// Bad requests.
	c.expect(400, "POST", "/v1/retrieve", `{"user": "haruka", "text": "x", "txet": "typo"}`, true)
	c.expect(400, "POST", "/v1/retrieve", `{"user": "haruka", "text": `, true)
	c.expect(413, "POST", "/v1/retrieve", `{"user": "haruka", "text": "`+strings.Repeat("あ", 40<<10)+`"}`, true)
	c.expect(405, "GET", "/v1/retrieve", nil, true)
	c.expect(404, "GET", "/v1/nothing", nil, true)

	// Delete one episode, then forget a person.
	id := hits[0].Episode.ID
	c.expect(400, "DELETE", fmt.Sprintf("/v1/episodes/%d", id), nil, true) // whose: the header says
	asHaruka := c
	asHaruka.as = "haruka"
	if out := asHaruka.expect(200, "DELETE", fmt.Sprintf("/v1/episodes/%d", id), nil, true); out["deleted"] != 1.0 {
		t.Errorf("delete: %v", out)
	}
	asHaruka.expect(404, "DELETE", fmt.Sprintf("/v1/episodes/%d", id), nil, true)
	if out := c.expect(200, "DELETE", "/v1/users/haruka/episodes/h2", nil, true); out["deleted"] != 1.0 {
		t.Errorf("delete by external id: %v", out)
	}
	c.expect(404, "DELETE", "/v1/users/haruka/episodes/h2", nil, true)
	if out := c.confirming("kenta").expect(200, "DELETE", "/v1/users/kenta", nil, true); out["deleted"] != 2.0 || out["user"] != "kenta" {
		t.Errorf("forget: %v", out)
	}
	if out := c.expect(200, "GET", "/healthz", nil, false); out["episodes"] != 1.0 || out["users"] != 1.0 || out["consistent"] != true {
		t.Errorf("healthz after deletes: %v", out)
	}

	// A write in flight when the signal comes is stored before serve returns.
	type reply struct {
		status int
		out    map[string]any
	}
	replies := make(chan reply, 1)
	go func() {
		status, out := c.call("POST", "/v1/episodes", []map[string]any{{"id": "late", "user": "haruka",
			"user_text": marker + "の直前に書いた", "reply_text": "届いた？", "occurred_at": "2025-06-30T12:00:00Z"}}, true)
		replies <- reply{status, out}
	}()
	select {
	case <-fake.arrived: // the handler is inside Store.Add, embedding
	case <-time.After(30 * time.Second):
		t.Fatal("the write never reached the embedder")
	}
	cancel() // SIGINT
	select {
	case <-shutdown:
	case <-time.After(30 * time.Second):
		t.Fatal("no shutdown")
	}
	if conn, err := net.Dial("tcp", addr.String()); err == nil {
		conn.Close()
		t.Error("the server still accepts connections after shutdown began")
	}
	close(fake.release)
	var late reply
	select {
	case late = <-replies:
	case <-time.After(30 * time.Second):
		t.Fatal("the write in flight got no reply")
	}
	if late.status != 200 {
		t.Fatalf("write in flight: status %d: %v", late.status, late.out)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return after shutdown")
	}
	lateID := int64(late.out["ids"].([]any)[0].(float64))

	// Reopen the store: the late write is there.
	store, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := store.Get(context.Background(), lateID)
	if err != nil || e.ExternalID != "late" || !strings.Contains(e.UserText, marker) {
		t.Errorf("after reopening: %+v, %v", e, err)
	}
	if n, _ := store.Count(context.Background(), ""); n != 2 {
		t.Errorf("%d episodes after reopening, want 2", n)
	}

	// The log has each request and none of the secrets or texts.
	log := logs.String()
	for _, want := range []string{"method=POST route=/v1/retrieve status=200", "status=401", "status=413", "duration=", "msg=stopped", "returns_up_to=normal"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	for _, secret := range []string{token, apiKey, marker, "ラーメン", "味噌"} {
		if strings.Contains(log, secret) {
			t.Errorf("log contains %q:\n%s", secret, log)
		}
	}
}

// TestServerErrors checks the handler's answers to bad requests.
func TestServerErrors(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "h.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{MaxBody: 1 << 10})
	ep := `{"user": "u", "user_text": "t", "occurred_at": "2025-06-01T00:00:00Z"}`
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string // in the error
	}{
		{"POST", "/v1/episodes", ``, 400, "empty body"},
		{"POST", "/v1/episodes", `"x"`, 400, "want a JSON array"},
		{"POST", "/v1/episodes", `[]`, 400, "no episodes"},
		{"POST", "/v1/episodes", `{"episodes": []}`, 400, "no episodes"},
		{"POST", "/v1/episodes", `[` + ep + `] trailing`, 400, "invalid JSON"},
		{"POST", "/v1/episodes", `{"episodes": [` + ep + `], "more": 1}`, 400, `unknown field "more"`},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t", "extra": 1}]`, 400, `unknown field "extra"`},
		{"POST", "/v1/episodes", `[` + ep + `, {"user": "", "user_text": "t"}]`, 400, "episodes[1]: user is empty"},
		{"POST", "/v1/episodes", `[{"user": "u"}]`, 400, "episodes[0]: episode has neither user text nor reply text"},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t", "kind": "dream"}]`, 400, `episodes[0].kind: want a number or one of episode=1, fact=2, loop=7, summary=3, got "dream"`},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t", "sensitivity": 7}]`, 400, "sensitivity 7 is out of range"},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t", "id": "a", "external_id": "b"}]`, 400, "differ"},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t", "occurred_at": "June"}]`, 400, `episodes[0].occurred_at: want RFC 3339, e.g. 2025-06-01T10:00:00+09:00, got "June"`},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": 7}]`, 400, `episodes[0].user_text: want a string, got a number`},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t"}, {"user": "u", "user_text": "t", "occurred_at": "2025-06-01T10:00:00+24:00"}]`, 400, `episodes[1].occurred_at: want RFC 3339, e.g. 2025-06-01T10:00:00+09:00, got "2025-06-01T10:00:00+24:00" (offset +24:00 is beyond ±23:59)`},
		{"POST", "/v1/episodes", `{"episodes": [{"user": "u", "user": "v", "user_text": "t"}]}`, 400, `episodes[0]: duplicate key "user"`},
		{"POST", "/v1/episodes", `[{"user": "u", "USER": "v", "user_text": "t"}]`, 400, `episodes[0]: key "USER" is not "user": keys are case-sensitive`},
		{"POST", "/v1/retrieve", `{"user": "u", "user": "v", "text": "x"}`, 400, `duplicate key "user"`},
		{"POST", "/v1/pack", `{"user": "u", "text": "x", "recent": [{"role": "user", "Content": "x"}]}`, 400, `recent[0]: key "Content" is not "content"`},
		{"POST", "/v1/retrieve", `{"user": "u", "text": "x", "now": "2025-06-01T10:00:00-24:00"}`, 400, `now: want RFC 3339`},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "` + strings.Repeat("x", 2<<10) + `"}]`, 413, "larger than 1024 bytes"},
		{"POST", "/v1/retrieve", `{"text": "x"}`, 400, "user is missing"},
		{"POST", "/v1/retrieve", `{"user": "u", "text": "x", "recent": [{"role": "bot", "content": "hi"}]}`, 400, `role "bot"`},
		{"POST", "/v1/retrieve", `{"user": "u", "text": "x", "strategy": "full"}`, 400, `unknown field "strategy"`},
		{"POST", "/v1/retrieve", `[1]`, 400, "invalid JSON"},
		{"POST", "/v1/pack", `{"user": "u", "text": "x", "strategy": "everything"}`, 400, "unknown injection strategy"},
		{"POST", "/v1/pack", `{"user": "u", "text": "x", "tz": "Mars/Olympus"}`, 400, "tz"},
		{"POST", "/v1/retrieve", `{"user": "u", "text": "x", "tz": "Mars/Olympus"}`, 400, "tz"},
		{"DELETE", "/v1/episodes/abc", ``, 400, "not a positive integer"},
		{"DELETE", "/v1/episodes/0", ``, 400, "not a positive integer"},
		{"DELETE", "/v1/episodes/+5", ``, 400, "not a positive integer"},
		{"DELETE", "/v1/episodes/42", ``, 400, "needs the X-Omoide-User header"},
		{"DELETE", "/v1/users/u/episodes/nope", ``, 404, "has external id"},
		{"GET", "/v1/episodes", ``, 405, "allowed: POST"},
		{"PUT", "/v1/users/u", ``, 405, "allowed: DELETE"},
		{"POST", "/healthz", ``, 405, "allowed: GET, HEAD"},
		{"GET", "/", ``, 404, "no endpoint /"},
		{"GET", "/v1/retrieve/", ``, 400, `the path "/v1/retrieve/" has an empty segment`},
		{"GET", "/v1/nothing", ``, 404, "no endpoint /v1/nothing"},
		{"DELETE", "/v1/users/u/episodes/..", ``, 400, `the path "/v1/users/u/episodes/.." has the dot segment ".."`},
		{"POST", "/v1/episodes", `[{"user": "u", "user_text": "t", "id": ".."}]`, 400, `episodes[0]: external id ".." is a path's dot segment`},
	} {
		t.Run(tc.method+" "+tc.path+" "+pytext.Clip(tc.body, 30), func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body)))
			var out map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
				t.Fatalf("status %d, body %q: %v", rec.Code, rec.Body, err)
			}
			if rec.Code != tc.status || !strings.Contains(out["error"], tc.want) {
				t.Errorf("status %d, error %q; want %d, %q", rec.Code, out["error"], tc.status, tc.want)
			}
		})
	}
	// Nothing was stored by the failed requests, and the default occurred_at is now.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", strings.NewReader(`[{"user": "u", "user_text": "t"}]`)))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	eps, err := mem.Store.Recent(ctx, "u", 10)
	if err != nil || len(eps) != 1 || time.Since(eps[0].OccurredAt) > time.Minute || eps[0].Kind != episode.KindEpisode {
		t.Errorf("stored %+v, %v; want the one episode, at about now", eps, err)
	}

	// Path segments are percent-encoded: a user with a space and an external id with "%" and a space.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", strings.NewReader(`[{"user": "line:U 1", "external_id": "a%b c", "user_text": "t"}]`)))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	for _, step := range []struct {
		path   string
		status int
	}{
		{"/v1/users/line:U%201/episodes/a%25b%20c", 200},
		{"/v1/users/line:U%201/episodes/a%25b%20c", 404},
		{"/v1/users/line:U%201", 200},
	} {
		rec = httptest.NewRecorder()
		req := httptest.NewRequest("DELETE", step.path, nil)
		req.Header.Set(omoidehttp.ForgetHeader, omoidehttp.EncodeUser("line:U 1")) // a delete of one episode ignores it
		h.ServeHTTP(rec, req)
		if rec.Code != step.status {
			t.Errorf("DELETE %s: status %d, want %d: %s", step.path, rec.Code, step.status, rec.Body)
		}
	}
}
