package omoidehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
)

// legacyIDsNode serves a copy of testdata/stores/legacy-ids.db (made by
// 0333031, before the id rule): kenji's episodes 1 to 12 have the ids ".",
// "..", "%2e%2e", ".%2E", "a/b", `a\b`, "x?y", "x#y", "tab\there", " pad",
// "pad " and "ok"; はるか's 13 and 14 have ".." and "h1".
func legacyIDsNode(t *testing.T) *node {
	return testStoreNode(t, "legacy-ids.db")
}

// testStoreNode serves a copy of testdata/stores/NAME.
func testStoreNode(t *testing.T, name string) *node {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../testdata/stores", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return newNode(t, path, omoide.Config{}, omoidehttp.Config{})
}

// count is how many episodes user holds.
func (n *node) count(t *testing.T, user string) int {
	t.Helper()
	c, err := n.mem.Store.Count(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDotIDsForgetNoOne: the reproductions. An episode with the id
// ".." (stored before the id rule) is deleted by a client that escapes the
// path and follows redirects, as Go's net/http and omoidehttp.Client do:
// the server answered 307 to /v1/users/kenji, the client followed it with
// DELETE, and kenji was forgotten; for はるか the redirect's Location was
// double-encoded and forgot the person literally named
// "%E3%81%AF%E3%82%8B%E3%81%8B". Now each is a 400 naming the path, and no
// one loses anything.
func TestDotIDsForgetNoOne(t *testing.T) {
	ctx := context.Background()
	n := legacyIDsNode(t)
	literal := "%E3%81%AF%E3%82%8B%E3%81%8B" // a person named so, not はるか
	n.add(t, literal, "l1", "その名前の人の思い出")
	before := map[string]int{"kenji": n.count(t, "kenji"), "はるか": n.count(t, "はるか"), literal: 1}
	if before["kenji"] != 12 || before["はるか"] != 2 {
		t.Fatalf("the legacy store holds %v", before)
	}
	client := &http.Client{} // follows redirects, with the method kept for 307 and 308
	for _, tc := range []struct{ user, path string }{
		{"kenji", "/v1/users/kenji/episodes/.."},
		{"kenji", "/v1/users/kenji/episodes/."},
		{"kenji", "/v1/users/kenji/episodes/%2e%2e"},
		{"kenji", "/v1/users/kenji/episodes/.%2E"},
		{"はるか", "/v1/users/%E3%81%AF%E3%82%8B%E3%81%8B/episodes/.."},
		{"はるか", "/v1/users/%E3%81%AF%E3%82%8B%E3%81%8B/episodes/%2E%2E"},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, n.url+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(omoidehttp.UserHeader, omoidehttp.EncodeUser(tc.user))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Request.URL.Path != req.URL.Path || !strings.Contains(string(body), "the path") || !strings.Contains(string(body), "dot segment") {
			t.Errorf("net/http DELETE %s: %d at %s %s, want a 400 naming the path, not followed anywhere", tc.path, resp.StatusCode, resp.Request.URL, body)
		}
		err = omoidehttp.Client{BaseURL: n.url}.Do(ctx, http.MethodDelete, tc.path, omoidehttp.As(tc.user), nil, nil)
		if err == nil || !strings.Contains(err.Error(), ": 400: the path") {
			t.Errorf("omoidehttp.Client DELETE %s: %v, want a 400 naming the path", tc.path, err)
		}
	}
	for user, c := range before {
		if got := n.count(t, user); got != c {
			t.Errorf("%q holds %d episodes, had %d: a delete of an id reached the person", user, got, c)
		}
	}
	// The store's id reaches such an episode, and only it.
	var out answer
	if err := (omoidehttp.Client{BaseURL: n.url}).Do(ctx, http.MethodDelete, "/v1/episodes/2", omoidehttp.As("kenji"), nil, &out); err != nil || out.Deleted != 1 {
		t.Fatalf("DELETE /v1/episodes/2 (kenji's \"..\"): %v %+v", err, out)
	}
	if got := n.count(t, "kenji"); got != 11 {
		t.Errorf("kenji holds %d after deleting one of 12", got)
	}
}

// TestNoRedirect: no request under the API answers 3xx. Every route, with
// every method, sent with a path that is not in its one form (an empty
// segment, a trailing slash, a dot segment plain or percent-encoded) is a
// 400 that names the path as sent, and reaches no handler.
func TestNoRedirect(t *testing.T) {
	n := legacyIDsNode(t)
	nofollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	routes := []string{"/v1/episodes", "/v1/retrieve", "/v1/pack", "/v1/users/kenji/episodes", "/v1/users/kenji/retrieve", "/v1/users/kenji/pack",
		"/v1/episodes/1", "/v1/users/kenji/episodes/ok", "/v1/users/kenji", "/v1/users", "/v1/node", "/v1/users/kenji/hold", "/v1/openapi.json", "/healthz"}
	variants := []struct {
		name string
		of   func(p string) string
	}{
		{"double slash", func(p string) string { return strings.Replace(p, "/", "//", 2)[1:] }}, // "//v1" would be a host
		{"trailing slash", func(p string) string { return p + "/" }},
		{"dot", func(p string) string { return strings.Replace(p, "/v1/", "/v1/./", 1) }},
		{"dot dot", func(p string) string { return p + "/x/.." }},
		{"encoded dot dot", func(p string) string { return p + "/x/%2e%2E" }},
		{"encoded dot", func(p string) string { return p + "/%2E" }},
		{"ends in dot dot", func(p string) string { return p + "/.." }},
	}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions}
	for _, route := range routes {
		for _, v := range variants {
			p := v.of(route)
			if p == route {
				continue // /healthz has no "/v1/" for a dot
			}
			for _, m := range methods {
				req, err := http.NewRequest(m, n.url+p, strings.NewReader(`{"user":"kenji","text":"x"}`))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set(omoidehttp.UserHeader, "kenji")
				resp, err := nofollow.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var out omoidehttp.ErrorAnswer
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode != http.StatusBadRequest || m != http.MethodHead && !strings.Contains(out.Error, fmt.Sprintf("the path %q", req.URL.EscapedPath())) {
					t.Errorf("%s %s (%s): %d %s %q, want a 400 naming the path", m, p, v.name, resp.StatusCode, resp.Header.Get("Location"), out.Error)
				}
			}
		}
	}
	if got := n.count(t, "kenji"); got != 12 {
		t.Errorf("kenji holds %d episodes after unclean paths, had 12", got)
	}
}

// TestIDRuleOverHTTP: a write whose id the rule refuses is a 400 naming the
// episode, the id and the rule, and stores none of its batch; ids stored
// before the rule stay reachable: in the export, by their store ids, and by
// external id wherever an escaped path can carry them.
func TestIDRuleOverHTTP(t *testing.T) {
	n := legacyIDsNode(t)
	for _, id := range []string{"..", ".", "%2e%2e", "a/b", `a\b`, "x?y", "x#y", " pad", "tab\\there"} {
		for _, method := range []string{"POST", "PUT"} {
			body := fmt.Sprintf(`[{"user":"mika","id":"fine","user_text":"ok"},{"user":"mika","id":%q,"user_text":"新しい話"}]`, id)
			if strings.Contains(id, `\t`) {
				body = `[{"user":"mika","id":"fine","user_text":"ok"},{"user":"mika","id":"tab\there","user_text":"新しい話"}]`
			}
			code, out := n.raw(t, method, "/v1/episodes", nil, body)
			if code != 400 || !strings.Contains(out.Error, "episodes[1]: external id ") {
				t.Errorf("%s of id %q: %d %v, want a 400 naming episodes[1]'s external id", method, id, code, out)
			}
		}
	}
	if c := n.count(t, "mika"); c != 0 {
		t.Errorf("mika holds %d episodes: a refused batch stored some", c)
	}
	code, out := n.raw(t, "GET", "/v1/users/kenji/episodes", nil, "")
	if code != 200 || len(out.Episodes) != 12 {
		t.Fatalf("export of kenji: %d, %d episodes", code, len(out.Episodes))
	}
	for _, tc := range []struct{ path, id string }{
		{"/v1/users/kenji/episodes/a%2Fb", "a/b"}, {"/v1/users/kenji/episodes/x%3Fy", "x?y"}, {"/v1/users/kenji/episodes/%252e%252e", "%2e%2e"},
		{"/v1/users/kenji/episodes/tab%09here", "tab\there"}, {"/v1/users/kenji/episodes/%20pad", " pad"},
	} {
		if code, out := n.raw(t, "DELETE", tc.path, nil, ""); code != 200 || out.Deleted != 1 {
			t.Errorf("DELETE %s (id %q): %d %v", tc.path, tc.id, code, out)
		}
	}
	if got := n.count(t, "kenji"); got != 7 {
		t.Errorf("kenji holds %d after 5 deletes of 12", got)
	}
	if got := n.count(t, "はるか"); got != 2 {
		t.Errorf("はるか holds %d, want her 2", got)
	}
}

// TestPathIDIsUTF8: the external id of DELETE
// /v1/users/{user}/episodes/{external_id} must be UTF-8 once the path is
// unescaped: each spelling that is not (a stray byte, a cut sequence, an
// overlong "..", an encoded surrogate) is a 400 naming the path's id, not
// the store's refusal (a 500, the server's fault), and nothing of the
// person is deleted; the same route with a UTF-8 id deletes.
func TestPathIDIsUTF8(t *testing.T) {
	n := legacyIDsNode(t)
	for _, tc := range []struct{ name, id string }{
		{"stray byte", "%FF"},
		{"stray byte after a good id", "ok%FF"},
		{"cut sequence", "%E3%81"},
		{"overlong dots", "%C0%AE%C0%AE"},
		{"encoded surrogate", "%ED%A0%80"},
	} {
		code, out := n.raw(t, "DELETE", "/v1/users/kenji/episodes/"+tc.id, nil, "")
		if code != 400 || !strings.Contains(out.Error, "external id is not valid UTF-8") {
			t.Errorf("%s: DELETE /v1/users/kenji/episodes/%s: %d %v, want a 400 naming the id as not UTF-8", tc.name, tc.id, code, out)
		}
	}
	if got := n.count(t, "kenji"); got != 12 {
		t.Errorf("kenji holds %d after the refused deletes, had 12", got)
	}
	if code, out := n.raw(t, "DELETE", "/v1/users/kenji/episodes/ok", nil, ""); code != 200 || out.Deleted != 1 {
		t.Errorf("DELETE /v1/users/kenji/episodes/ok: %d %v, want 200 deleting 1", code, out)
	}
}

// TestMountedNoRedirect: mounted on a program's own ServeMux, as
// ExampleNewHandler does, the API still answers an unclean path with a 400
// when the mux is wrapped in CleanPathsOnly; the bare mux would redirect it
// (307 to the cleaned path), and a client following it would forget kenji.
func TestMountedNoRedirect(t *testing.T) {
	n := legacyIDsNode(t)
	api := omoidehttp.NewHandler(n.mem, omoidehttp.Config{})
	mux := http.NewServeMux()
	mux.Handle("/memory/", http.StripPrefix("/memory", api))
	nofollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		h    http.Handler
		want int
	}{{mux, http.StatusTemporaryRedirect}, {omoidehttp.CleanPathsOnly(mux), http.StatusBadRequest}} {
		srv := httptest.NewServer(tc.h)
		for _, p := range []string{"/memory/v1/users/kenji/episodes/..", "/memory//v1/users/kenji", "/memory/v1/users/kenji/episodes/x/../.."} {
			req, _ := http.NewRequest(http.MethodDelete, srv.URL+p, nil)
			req.Header.Set(omoidehttp.UserHeader, "kenji")
			resp, err := nofollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("DELETE %s: %d, want %d", p, resp.StatusCode, tc.want)
			}
		}
		srv.Close()
	}
	api.Wait()
	if got := n.count(t, "kenji"); got != 12 {
		t.Errorf("kenji holds %d, had 12", got)
	}
}
