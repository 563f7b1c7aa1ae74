package main

import (
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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/localcluster"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidehttp"
)

// treeDB is a store of two people: yui, whose episode "target" the walk
// may delete one way or another and whose two others must stay, and はるか,
// whom nothing may touch.
func treeDB(t *testing.T) (db string, target int64) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "memory.db")
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ids, err := mem.Add(context.Background(),
		episode.Episode{User: "yui", ExternalID: "target", UserText: "駅前のラーメン屋で味噌ラーメン", ReplyText: "いいね", OccurredAt: at},
		episode.Episode{User: "yui", ExternalID: "keep1", UserText: "来週から引っ越しの準備", ReplyText: "手伝うよ", OccurredAt: at.Add(time.Hour)},
		episode.Episode{User: "yui", ExternalID: "keep2", UserText: "猫のこむぎが熱を出した", ReplyText: "心配だね", OccurredAt: at.Add(2 * time.Hour)},
		episode.Episode{User: "はるか", ExternalID: "h1", UserText: "図書館で小説を借りた", ReplyText: "どんな話？", OccurredAt: at},
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	return db, ids[0]
}

// treeRoutes are the route templates of the tree serve builds: every path
// and method of the API's own description (GET /v1/openapi.json), the
// inspector's pages, /mcp and /healthz.
func treeRoutes(t *testing.T, base, token string) []string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/openapi.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || len(doc.Paths) < 10 {
		t.Fatalf("the description: %v, %d paths", err, len(doc.Paths))
	}
	var out []string
	for p := range doc.Paths {
		out = append(out, p)
	}
	out = append(out, "/ui", "/ui/", "/ui/signin", "/ui/signout", "/ui/ask", "/ui/people/{user}", "/ui/people/{user}/episodes/{id}",
		"/ui/people/{user}/episodes/{id}/delete", "/ui/people/{user}/forget", "/ui/people/{user}/export.jsonl", "/ui/static/inspect.js",
		"/mcp", "/healthz", "/")
	slices.Sort(out)
	return slices.Compact(out)
}

// unclean returns the ways a client, proxy or template may send path
// otherwise: as it is, then with a trailing slash, an empty segment, a dot
// segment (".", "..", "%2e%2e") after it or inside it, and a leading "//".
func unclean(path string) []string {
	i := strings.Index(path[1:], "/") + 1
	if i == 0 {
		i = len(path)
	}
	return []string{path, path + "/", path[:i] + "/" + path[i:], path + "/..", path + "/.", path + "/%2e%2e", path + "/x/..",
		path[:i] + "/./" + strings.TrimPrefix(path[i:], "/"), "/" + path, path + "/episodes/.."}
}

// TestServeTreeNeverRedirects walks every route of the tree serve builds,
// each path as sent clean and as clients and proxies send it unclean, with
// every method, by a Go client that follows redirects (as net/http does,
// with the same method for 307 and 308): no answer is a redirect but the
// inspector's own 303s to its own pages, so no request becomes another
// with the same method; yui is never forgotten and はるか never touched.
// Without a token, with one and no credentials, and with one given.
func TestServeTreeNeverRedirects(t *testing.T) {
	clearEnv(t)
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions}
	for _, c := range []struct {
		name   string
		args   []string
		bearer string
	}{
		{"no token", nil, ""},
		{"a token, not given", []string{"-token", "tok"}, ""},
		{"a token, given", []string{"-token", "tok"}, "tok"},
		{"no inspector", []string{"-ui=false"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, target := treeDB(t)
			base := startInspector(t, serve, append([]string{"-db", db, "-addr", "127.0.0.1:0"}, c.args...), io.Discard)
			routes := treeRoutes(t, base, "tok")
			r := strings.NewReplacer("{user}", "yui", "{id}", strconv.FormatInt(target, 10), "{external_id}", "target")
			var hops []string // every redirect followed: "status from → to, method"
			client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
				prev := req.Response
				hops = append(hops, fmt.Sprintf("%d %s %s → %s %s", prev.StatusCode, prev.Request.Method, prev.Request.URL.EscapedPath(), req.Method, req.URL.EscapedPath()))
				ok := prev.StatusCode == http.StatusSeeOther && (req.Method == http.MethodGet || req.Method == http.MethodHead) &&
					strings.HasPrefix(prev.Request.URL.EscapedPath(), "/ui") && strings.HasPrefix(req.URL.EscapedPath(), "/ui/")
				if !ok {
					t.Errorf("a redirect outside the inspector's own 303s: %s", hops[len(hops)-1])
				}
				if len(via) > 5 {
					return http.ErrUseLastResponse
				}
				return nil
			}}
			n := 0
			for _, route := range routes {
				for _, p := range unclean(r.Replace(route)) {
					for _, m := range methods {
						req, err := http.NewRequest(m, base+p, strings.NewReader(`{}`))
						if err != nil {
							t.Fatal(err)
						}
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set(omoidehttp.UserHeader, "yui")
						if c.bearer != "" {
							req.Header.Set("Authorization", "Bearer "+c.bearer)
						}
						res, err := client.Do(req)
						if err != nil {
							t.Fatalf("%s %s: %v", m, p, err)
						}
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
						if res.StatusCode >= 300 && res.StatusCode < 400 {
							t.Errorf("%s %s: answered %d → %s", m, p, res.StatusCode, res.Header.Get("Location"))
						}
						n++
					}
				}
			}
			// The store as it is left: yui's two others and はるか are there.
			mem, err := omoide.Open(context.Background(), omoide.Config{Path: db, ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			for user, want := range map[string][]string{"yui": {"keep1", "keep2"}, "はるか": {"h1"}} {
				for _, ext := range want {
					if id, err := mem.Store.IDByExternal(context.Background(), user, ext); err != nil || id == 0 {
						t.Errorf("after %d requests, %s's episode %q is gone (%v): a person was forgotten", n, user, ext, err)
					}
				}
			}
			t.Logf("%d requests, %d redirects followed, each a 303 of the inspector", n, len(hops))
		})
	}
}

// TestServeHostsWithoutToken: without a token, serve's /ui/ and /mcp answer
// only under the names of its loopback and -addr, so that a page of another
// site rebinding its name to 127.0.0.1 can neither read nor delete; with a
// token, the token decides.
func TestServeHostsWithoutToken(t *testing.T) {
	clearEnv(t)
	db, target := treeDB(t)
	base := startInspector(t, serve, []string{"-db", db, "-addr", "127.0.0.1:0"}, io.Discard)
	port := base[strings.LastIndex(base, ":"):]
	del := "/ui/people/yui/episodes/" + strconv.FormatInt(target, 10) + "/delete"
	send := func(method, path, host string, body string, header ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_memories","arguments":{}}}`
	mcpHeaders := []string{omoidehttp.UserHeader, "yui", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	for _, host := range []string{"evil.example" + port, "127.0.0.1.evil.example" + port, "10.9.8.7" + port} {
		if status, body := send("GET", "/ui/people/yui/export.jsonl", host, ""); status != http.StatusMisdirectedRequest || strings.Contains(body, "ラーメン") {
			t.Errorf("Host %s: the export: %d", host, status)
		}
		if status, _ := send("POST", del, host, "", "Origin", "http://"+host, "Sec-Fetch-Site", "same-origin"); status != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: a delete: %d", host, status)
		}
		if status, body := send("POST", "/mcp", host, mcpCall, mcpHeaders...); status != http.StatusMisdirectedRequest || strings.Contains(body, "ラーメン") {
			t.Errorf("Host %s: /mcp: %d %s", host, status, body)
		}
	}
	for _, host := range []string{"127.0.0.1" + port, "localhost" + port} {
		if status, body := send("POST", "/mcp", host, mcpCall, mcpHeaders...); status != 200 || !strings.Contains(body, "ラーメン") {
			t.Errorf("Host %s: /mcp: %d %s", host, status, body)
		}
		if status, _ := send("GET", "/ui/people/yui", host, ""); status != 200 {
			t.Errorf("Host %s: /ui/: %d", host, status)
		}
	}
	tokened := startInspector(t, serve, []string{"-db", filepath.Join(t.TempDir(), "t.db"), "-addr", "127.0.0.1:0", "-token", "tok"}, io.Discard)
	req, _ := http.NewRequest("POST", tokened+"/mcp", strings.NewReader(mcpCall))
	req.Host = "omoide.example.com"
	req.Header.Set("Authorization", "Bearer tok")
	for i := 0; i+1 < len(mcpHeaders); i += 2 {
		req.Header.Set(mcpHeaders[i], mcpHeaders[i+1])
	}
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode == http.StatusMisdirectedRequest {
		t.Errorf("with a token, /mcp under another name: %v %v", res, err)
	} else {
		res.Body.Close()
	}
}

// TestServeUIReadOnlyBeyondLoopback: serve beyond loopback without a token
// mounts the inspector read-only, and says so.
func TestServeUIReadOnlyBeyondLoopback(t *testing.T) {
	clearEnv(t)
	db, target := treeDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	addrc, done := make(chan net.Addr, 1), make(chan error, 1)
	go func() {
		done <- serve(ctx, []string{"-db", db, "-addr", "0.0.0.0:0"}, io.Discard, &logs, serveHooks{ready: func(a net.Addr) { addrc <- a }})
	}()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("serve did not start")
	}
	base := "http://127.0.0.1:" + strconv.Itoa(addr.(*net.TCPAddr).Port)
	status, _, body := fetch(t, "POST", base+"/ui/people/yui/episodes/"+strconv.FormatInt(target, 10)+"/delete")
	if status != http.StatusForbidden || !strings.Contains(body, "read-only") {
		t.Errorf("a delete from the inspector beyond loopback without a token: %d", status)
	}
	if status, _, _ := fetch(t, "POST", base+"/ui/people/yui/forget", "Content-Type", "application/x-www-form-urlencoded"); status != http.StatusForbidden {
		t.Errorf("a forget: %d", status)
	}
	if !strings.Contains(logs.String(), "read-only") {
		t.Errorf("serve did not say the inspector is read-only:\n%s", logs.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: db, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if n, _ := mem.Store.Count(context.Background(), "yui"); n != 3 {
		t.Errorf("yui has %d episodes, want 3", n)
	}
}

// TestInstalledServeWithCurl: the findings as a user met them, with the
// binary a user installs and curl, a client written elsewhere, following
// redirects with the same method (-L -X DELETE): no path forgets yui, and
// a rebinding page's Host reads nothing from /ui/.
func TestInstalledServeWithCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	clearEnv(t)
	bin := buildOmoide(t)
	db, _ := treeDB(t)
	addr, err := localcluster.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(bin, "serve", "-db", db, "-addr", addr, "-log-level", "warn")
	srv.Env = append(os.Environ(), envToken+"=")
	var log syncBuffer
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	if err := localcluster.WaitHTTP(nil, "http://"+addr+"/healthz", time.Minute); err != nil {
		t.Fatalf("serve: %v\n%s", err, log.String())
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(curl, append([]string{"-s", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects}"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %q: %v", args, err)
		}
		return string(out)
	}
	base := "http://" + addr
	for _, p := range []string{"/v1/users/yui/episodes/..", "/v1//users/yui", "/v1/users/yui/", "/v1/users/yui/episodes/%2e%2e", "/v1/users/yui/x/..", "/v1/users/yui"} {
		if got := run("-L", "-X", "DELETE", "--path-as-is", "-H", "X-Omoide-User: yui", base+p); got != "400 0" {
			t.Errorf("curl -L -X DELETE --path-as-is %s: %s, want 400 and no redirect", p, got)
		}
	}
	port := addr[strings.LastIndex(addr, ":"):]
	if got := run("-H", "Host: evil.example"+port, base+"/ui/people/yui/export.jsonl"); got != "421 0" {
		t.Errorf("the export under another Host: %s, want 421", got)
	}
	if got := run("-X", "POST", "-H", "Host: evil.example"+port, "-H", "Origin: http://evil.example"+port, "-H", "Sec-Fetch-Site: same-origin",
		base+"/ui/people/yui/forget", "-d", "confirm=yui"); got != "421 0" {
		t.Errorf("a forget under another Host: %s, want 421", got)
	}
	out, err := exec.Command(curl, "-s", base+"/v1/users/yui/episodes").Output()
	if err != nil || strings.Count(string(out), `"user_text"`) != 3 {
		t.Errorf("yui's episodes after it all: %s %v", out, err)
	}
}
