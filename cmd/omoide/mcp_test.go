package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/omoidemcp"
)

// buildOmoide builds the omoide command into a temporary folder, as a user
// installs it, and returns its path.
func buildOmoide(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build omoide with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "omoide")
	if out, err := exec.Command(goBin, "build", "-tags", "sqlite_fts5", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mcpSession connects the SDK's own client to transport.
func mcpSession(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "omoide-test", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tool calls a tool and returns its text content and structured result; a
// tool error fails the test unless wantErr.
func tool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantErr bool) (string, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError != wantErr {
		t.Fatalf("%s %v: error %v, want %v: %s", name, args, res.IsError, wantErr, text.String())
	}
	var out map[string]any
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &out)
	}
	return text.String(), out
}

// recalls reports whether a recall of message returns the memory id.
func recalls(t *testing.T, cs *mcp.ClientSession, message string, id float64) bool {
	t.Helper()
	_, out := tool(t, cs, "recall", map[string]any{"message": message, "recent": []any{}}, false)
	ms, _ := out["memories"].([]any)
	for _, m := range ms {
		if m.(map[string]any)["id"] == id {
			return true
		}
	}
	return false
}

// TestMCPStdio builds omoide and drives "omoide mcp" over stdio with the
// SDK's client, as a desktop client launches it: remember, recall it; a
// second process for another person cannot see it; forget it, and recall no
// longer returns it.
func TestMCPStdio(t *testing.T) {
	clearEnv(t)
	bin := buildOmoide(t)
	db := filepath.Join(t.TempDir(), "memory.db")
	launch := func(user string) *mcp.ClientSession {
		cmd := exec.Command(bin, "mcp", "-db", db, "-user", user, "-tz", "Asia/Tokyo")
		cmd.Env = append(os.Environ(), envToken+"=")
		return mcpSession(t, &mcp.CommandTransport{Command: cmd})
	}
	haruka := launch("はるか")
	_, r := tool(t, haruka, "remember", map[string]any{"user_text": "中野の麺屋こはくで味噌バターラーメンを食べた", "reply_text": "濃厚でおいしそう！",
		"occurred_at": "2026-04-01T12:30:00+09:00", "id": "chat-1"}, false)
	id, _ := r["id"].(float64)
	if id == 0 || r["stored"] != "added" {
		t.Fatalf("remember: %v", r)
	}
	for _, u := range []string{"膝が痛くて今日のジョギングは休んだ", "姉と週末に買い物に行く予定"} {
		tool(t, haruka, "remember", map[string]any{"user_text": u, "reply_text": "そうなんだ"}, false)
	}
	text, _ := tool(t, haruka, "recall", map[string]any{"message": "この前のラーメン屋、なんて名前だっけ", "recent": []any{}}, false)
	if !strings.Contains(text, "[EPISODE_EVIDENCE]") || !strings.Contains(text, "麺屋こはく") {
		t.Fatalf("recall's content: %q", text)
	}
	// Remember, then recall without recent turns: found at once.
	_, d := tool(t, haruka, "remember", map[string]any{"user_text": "明日は歯医者の予約がある", "reply_text": "がんばってね", "id": "dentist"}, false)
	if text, _ := tool(t, haruka, "recall", map[string]any{"message": "歯医者っていつだっけ"}, false); !strings.Contains(text, "歯医者の予約") {
		t.Errorf("recall right after remember: %q", text)
	}
	// A retry by id a second later, occurred_at left to now: present.
	time.Sleep(1100 * time.Millisecond)
	if _, again := tool(t, haruka, "remember", map[string]any{"user_text": "明日は歯医者の予約がある", "reply_text": "がんばってね", "id": "dentist"}, false); again["stored"] != "present" || again["id"] != d["id"] {
		t.Errorf("a retry by id: %v, want present as %v", again, d["id"])
	}
	// A private remember at the normal ceiling is refused, naming the flag.
	if text, _ := tool(t, haruka, "remember", map[string]any{"user_text": "実は転職を考えている", "sensitivity": "private"}, true); !strings.Contains(text, "-max-request-sensitivity") {
		t.Errorf("a private remember: %q", text)
	}
	kenta := launch("kenta")
	if recalls(t, kenta, "この前のラーメン屋、なんて名前だっけ", id) {
		t.Error("another person's process recalls haruka's memory")
	}
	if text, _ := tool(t, kenta, "forget_memory", map[string]any{"id": id}, true); !strings.Contains(text, "no such memory") {
		t.Errorf("another person's forget_memory: %q", text)
	}
	tool(t, haruka, "forget_memory", map[string]any{"id": id}, false)
	if recalls(t, haruka, "この前のラーメン屋、なんて名前だっけ", id) {
		t.Error("recall returns a forgotten memory")
	}
}

// headers adds the token and the person's header to each request, as a
// client configured for the HTTP endpoint does.
type headers struct {
	user, token string
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.token != "" {
		r.Header.Set("Authorization", "Bearer "+h.token)
	}
	if h.user != "" {
		r.Header.Set(omoidehttp.UserHeader, h.user)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTP: /mcp behind the token, the person named by the header's wire
// form on each request (a CJK name too); a missing or malformed name is
// refused as the REST routes refuse it, and one person's session never
// reaches another's memory.
func TestMCPHTTP(t *testing.T) {
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "memory.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	api := omoidehttp.NewHandler(mem, omoidehttp.Config{Token: "tok"})
	api.HandlePerson("/mcp", omoidemcp.NewHandler(mem, omoidemcp.Config{}).For)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	session := func(h headers) *mcp.ClientSession {
		return mcpSession(t, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: h}, MaxRetries: -1})
	}
	haruka := session(headers{user: omoidehttp.EncodeUser("はるか"), token: "tok"})
	_, r := tool(t, haruka, "remember", map[string]any{"user_text": "合言葉はあおぞらペンギン", "reply_text": "覚えたよ"}, false)
	id, _ := r["id"].(float64)
	if !recalls(t, haruka, "合言葉はなんだっけ、あおぞらペンギンだったかな", id) {
		t.Fatal("haruka does not recall her memory over HTTP")
	}
	if n, err := mem.Store.Count(context.Background(), "はるか"); err != nil || n != 1 {
		t.Fatalf("stored for はるか: %d, %v", n, err)
	}
	// A recall with a long conversation (24 Japanese turns, 72 KB) is
	// answered, as the REST API's bound admits it.
	var recent []any
	for i := range 24 {
		role := []string{"user", "assistant"}[i%2]
		recent = append(recent, map[string]any{"role": role, "content": strings.Repeat("今日はいい天気だったね。", 85)})
	}
	if text, _ := tool(t, haruka, "recall", map[string]any{"message": "合言葉はなんだっけ", "recent": recent}, false); text == "" {
		t.Error("a recall with 24 recent turns: no answer")
	}
	// A retry by id, occurred_at left to now, a second later: present.
	_, first := tool(t, haruka, "remember", map[string]any{"id": "move-2026-12", "user_text": "来月引っ越す", "reply_text": "楽しみだね"}, false)
	time.Sleep(1100 * time.Millisecond) // the stored time is whole seconds: let the clock pass one
	_, again := tool(t, haruka, "remember", map[string]any{"id": "move-2026-12", "user_text": "来月引っ越す", "reply_text": "楽しみだね"}, false)
	if first["stored"] != "added" || again["stored"] != "present" || again["id"] != first["id"] {
		t.Errorf("remember and its retry over HTTP: %v, %v", first, again)
	}
	kenta := session(headers{user: "kenta", token: "tok"})
	if recalls(t, kenta, "合言葉はなんだっけ、あおぞらペンギンだったかな", id) {
		t.Error("kenta recalls haruka's memory")
	}
	// Refused before any tool runs, as the REST routes refuse it.
	post := func(h headers) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := (&http.Client{Transport: h}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body strings.Builder
		buf := make([]byte, 4096)
		n, _ := res.Body.Read(buf)
		body.Write(buf[:n])
		return res.StatusCode, body.String()
	}
	for _, c := range []struct {
		h      headers
		status int
		want   string
	}{
		{headers{user: "kenta"}, http.StatusUnauthorized, "bearer token"},
		{headers{token: "tok"}, http.StatusBadRequest, "header is missing"},
		{headers{user: "はるか", token: "tok"}, http.StatusBadRequest, "percent-encoded"},
		{headers{user: "%e3%81%af", token: "tok"}, http.StatusBadRequest, "wire form"},
	} {
		if status, body := post(c.h); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%+v: %d %s, want %d naming %q", c.h, status, body, c.status, c.want)
		}
	}
	// On a node of many, a person another node owns is a 421.
	peers := []string{"127.0.0.1:9001", "127.0.0.1:9002"}
	node := omoidehttp.NewHandler(mem, omoidehttp.Config{Peers: peers, Upstream: peers[0]})
	node.HandlePerson("/mcp", omoidemcp.NewHandler(mem, omoidemcp.Config{}).For)
	other := ""
	for i := 0; other == ""; i++ {
		if name := "person-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26); omoidehttp.Owner(peers, name) == peers[1] {
			other = name
		}
	}
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set(omoidehttp.UserHeader, other)
	if node.ServeHTTP(w, req); w.Code != http.StatusMisdirectedRequest || !strings.Contains(w.Body.String(), peers[1]) {
		t.Errorf("a person another node owns: %d %s", w.Code, w.Body)
	}
}

// TestMCPStdioBadLinesAndEOF drives the installed binary with raw lines, as a
// hand-written client or a shell pipe does: each line that is no message is
// answered with a JSON-RPC error and the session goes on; the calls written
// before stdin closes are answered, and what they stored is stored.
func TestMCPStdioBadLinesAndEOF(t *testing.T) {
	clearEnv(t)
	bin := buildOmoide(t)
	db := filepath.Join(t.TempDir(), "memory.db")
	bad := []struct {
		line string
		code float64
	}{
		{"this is not json", -32700},
		{`{"jsonrpc": "2.0", "id": 9, "method": "tools/list"`, -32700},     // cut short
		{`[{"jsonrpc": "2.0", "id": 10, "method": "tools/list"}]`, -32600}, // a batch
		{`{"jsonrpc": "1.0", "id": 11, "method": "tools/list"}`, -32600},
		{`{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}`, -32600},
		{`{"jsonrpc": "2.0", "id": 12, "method": "ping"} {"jsonrpc": "2.0", "id": 13, "method": "ping"}`, -32700},
		{`{"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {"name": "remember", "arguments": {"user_text": "` + strings.Repeat("x", 20<<20) + `"}}}`, -32600},
	}
	var in strings.Builder
	in.WriteString(`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}}` + "\n")
	in.WriteString(`{"jsonrpc": "2.0", "method": "notifications/initialized"}` + "\n")
	for _, b := range bad {
		in.WriteString(b.line + "\n")
	}
	in.WriteString(`{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "remember", "arguments": {"user_text": "明日は歯医者の予約がある", "reply_text": "がんばって"}}}` + "\n")
	cmd := exec.Command(bin, "mcp", "-db", db, "-user", "はるか")
	cmd.Env = append(os.Environ(), envToken+"=")
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("omoide mcp: %v\n%s", err, stderr.String())
	}
	var errors []float64
	answered := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID    any `json:"id"`
			Error *struct {
				Code float64 `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a line of stdout is no JSON: %q", line)
		}
		if m.Error != nil {
			errors = append(errors, m.Error.Code)
		} else if id, ok := m.ID.(float64); ok {
			answered[id] = true
		}
	}
	var want []float64
	for _, b := range bad {
		want = append(want, b.code)
	}
	if !slices.Equal(errors, want) {
		t.Errorf("error codes %v, want %v, one a bad line", errors, want)
	}
	if !answered[1] || !answered[2] {
		t.Errorf("answered %v: want the initialize (1) and the remember written before stdin closed (2)", answered)
	}
	code, list, _ := runCLI(t, "export", "-db", db, "-user", "はるか")
	if code != 0 || !strings.Contains(list, "歯医者") {
		t.Errorf("the remember before EOF is not stored: %d %q", code, list)
	}
}

// TestMCPStdioInterrupt: an interrupt stops "omoide mcp" while its client
// keeps stdin open and silent, as a terminal does.
func TestMCPStdioInterrupt(t *testing.T) {
	clearEnv(t)
	bin := buildOmoide(t)
	cmd := exec.Command(bin, "mcp", "-db", filepath.Join(t.TempDir(), "memory.db"), "-user", "はるか")
	cmd.Env = append(os.Environ(), envToken+"=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}}`+"\n")
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-first:
		if !strings.Contains(line, `"id":1`) {
			t.Errorf("the answer to initialize: %q", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer to initialize")
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("omoide mcp did not stop on an interrupt while stdin stayed open")
	}
}
