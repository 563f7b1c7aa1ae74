package omoidemcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/omoidemcp"
)

// TestHeldPersonOverMCP: while a person is held for a move, /mcp refuses
// their tool calls as the REST routes refuse their writes (503 with
// Retry-After, nothing stored) unless the call carries the hold's token;
// released, they pass without it. omoidehttp's tests never mount /mcp, so
// this is where HandlePerson's hold check is watched.
func TestHeldPersonOverMCP(t *testing.T) {
	const user = "はるか"
	mem := openMemory(t)
	api := omoidehttp.NewHandler(mem, omoidehttp.Config{})
	api.HandlePerson("/mcp", omoidemcp.NewHandler(mem, omoidemcp.Config{}).For)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)

	// send makes one request and returns its status, headers and body.
	send := func(method, path string, header http.Header, body string) (int, http.Header, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, res.Header, string(b)
	}
	holdPath := "/v1/users/" + url.PathEscape(user) + "/hold"
	status, _, body := send(http.MethodPost, holdPath, nil, `{"seconds": 60}`)
	var hold omoidehttp.Hold
	if err := json.Unmarshal([]byte(body), &hold); status != http.StatusOK || err != nil || hold.Token == "" {
		t.Fatalf("hold: %d %s (%v)", status, body, err)
	}

	// remember calls the remember tool over /mcp, a raw JSON-RPC request
	// (the endpoint is stateless: no initialize first), with holdToken in
	// X-Omoide-Hold when not empty.
	remember := func(id, holdToken string) (int, http.Header, string) {
		t.Helper()
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			omoidehttp.UserHeader: {omoidehttp.EncodeUser(user)}}
		if holdToken != "" {
			h.Set(omoidehttp.HoldHeader, holdToken)
		}
		call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "remember", "arguments": map[string]any{"user_text": "引っ越しの荷造りを始めた", "id": id}}})
		return send(http.MethodPost, "/mcp", h, string(call))
	}
	for _, step := range []struct {
		name      string
		release   bool   // release the hold before the call
		holdToken string // X-Omoide-Hold
		held      bool   // want a 503
		stored    int    // the person's memories after the call
	}{
		{name: "held, no token", held: true},
		{name: "held, another token", holdToken: "not-the-token", held: true},
		{name: "held, the hold's token", holdToken: hold.Token, stored: 1},
		{name: "released, no token", release: true, stored: 2},
	} {
		if step.release {
			if status, _, body := send(http.MethodDelete, holdPath, http.Header{omoidehttp.HoldHeader: {hold.Token}}, ""); status != http.StatusOK {
				t.Fatalf("release: %d %s", status, body)
			}
		}
		status, header, body := remember(strings.ReplaceAll(step.name, " ", "-"), step.holdToken)
		if step.held {
			retry, err := strconv.Atoi(header.Get("Retry-After"))
			if status != http.StatusServiceUnavailable || err != nil || retry < 1 || !strings.Contains(body, "being moved") {
				t.Errorf("%s: %d Retry-After %q %s, want 503 with Retry-After saying the person is being moved", step.name, status, header.Get("Retry-After"), body)
			}
		} else {
			var res struct {
				Result *struct {
					IsError           bool                     `json:"isError"`
					StructuredContent omoidemcp.RememberOutput `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(body), &res); status != http.StatusOK || err != nil || res.Result == nil || res.Result.IsError || res.Result.StructuredContent.Stored != "added" {
				t.Errorf("%s: %d %s, want the memory added", step.name, status, body)
			}
		}
		if n, err := mem.Store.Count(ctx, user); err != nil || n != step.stored {
			t.Errorf("%s: %d memories stored (%v), want %d", step.name, n, err, step.stored)
		}
	}
}
