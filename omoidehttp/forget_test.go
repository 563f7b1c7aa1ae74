package omoidehttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
)

// TestForgetIsConfirmed: DELETE /v1/users/{user} forgets only with
// X-Omoide-Forget naming the path's person in the header's wire form; any
// other request to that path, and every rewrite of a delete into it, is a
// 400 that says how, and the person keeps every episode.
func TestForgetIsConfirmed(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	const haruka = "はるか"
	for _, u := range []string{"kenji", haruka, "50% off"} {
		n.add(t, u, "e1", "駅前のラーメン屋に行った")
		n.add(t, u, "e2", "来週は引っ越しの準備")
	}
	count := func(user string) int {
		c, err := n.mem.Store.Count(context.Background(), user)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name, target string
		headers      map[string]string
		want         string // in the error
	}{
		{"no confirmation", "/v1/users/kenji", nil, "X-Omoide-Forget: kenji"},
		{"another person", "/v1/users/kenji", map[string]string{omoidehttp.ForgetHeader: "mika"}, "does not name the path's person"},
		{"empty", "/v1/users/kenji", map[string]string{omoidehttp.ForgetHeader: ""}, "X-Omoide-Forget: kenji"},
		{"case differs", "/v1/users/kenji", map[string]string{omoidehttp.ForgetHeader: "Kenji"}, "does not name the path's person"},
		{"the name as raw UTF-8, not the wire form", "/v1/users/%E3%81%AF%E3%82%8B%E3%81%8B", map[string]string{omoidehttp.ForgetHeader: haruka},
			"X-Omoide-Forget: %E3%81%AF%E3%82%8B%E3%81%8B"},
		{"lower-case hex", "/v1/users/%E3%81%AF%E3%82%8B%E3%81%8B", map[string]string{omoidehttp.ForgetHeader: "%e3%81%af%e3%82%8b%e3%81%8b"}, "does not name"},
		{"a % not encoded", "/v1/users/50%25%20off", map[string]string{omoidehttp.ForgetHeader: "50% off"}, "X-Omoide-Forget: 50%25%20off"},
		{"X-Omoide-User alone", "/v1/users/kenji", map[string]string{omoidehttp.UserHeader: "kenji"}, "X-Omoide-Forget: kenji"},
	} {
		code, out := n.raw(t, "DELETE", tc.target, tc.headers, "")
		if code != http.StatusBadRequest || !strings.Contains(out.Error, tc.want) || !strings.Contains(out.Error, "nothing was forgotten") {
			t.Errorf("%s: %d %q, want 400 saying %q and that nothing was forgotten", tc.name, code, out.Error, tc.want)
		}
	}
	// Given twice, even both right.
	req, err := http.NewRequest(http.MethodDelete, n.url+"/v1/users/kenji", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Add(omoidehttp.ForgetHeader, "kenji")
	req.Header.Add(omoidehttp.ForgetHeader, "kenji")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var twice omoidehttp.ErrorAnswer
	json.NewDecoder(res.Body).Decode(&twice)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(twice.Error, "2 times") {
		t.Errorf("the header twice: %d %q, want 400", res.StatusCode, twice.Error)
	}
	for _, u := range []string{"kenji", haruka, "50% off"} {
		if c := count(u); c != 2 {
			t.Fatalf("%q holds %d episodes after refused forgets, want 2", u, c)
		}
	}
	// Confirmed, each forgets its person alone.
	for _, u := range []string{"kenji", haruka, "50% off"} {
		c := omoidehttp.Client{BaseURL: n.url}
		f, err := c.Forget(context.Background(), u, nil)
		if err != nil || f.Deleted != 2 || f.User != u {
			t.Errorf("Client.Forget(%q): %+v, %v", u, f, err)
		}
		if c := count(u); c != 0 {
			t.Errorf("%q holds %d episodes after the forget", u, c)
		}
	}
}

// TestNoRewrittenDeleteForgets: deletes of one episode as clients, proxies
// and templates rewrite them — dot segments resolved, an id left empty and
// the slash dropped — reach DELETE /v1/users/{user} at worst, which without
// the confirmation forgets no one.
func TestNoRewrittenDeleteForgets(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	n.add(t, "kenji", "e1", "駅前のラーメン屋に行った")
	n.add(t, "kenji", "e2", "来週は引っ越しの準備")
	resolving := &http.Client{Transport: normalising{http.DefaultTransport}}
	for _, target := range []string{
		"/v1/users/kenji/episodes/..",     // resolved to /v1/users/kenji
		"/v1/users/kenji/episodes/%2e%2e", // the same, as WHATWG URL reads it
		"/v1/users/kenji/episodes/.",      // resolved to /v1/users/kenji/episodes/
		"/v1/users/kenji/x/../../kenji",   // a template's stray segment
	} {
		req, err := http.NewRequest(http.MethodDelete, n.url+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(omoidehttp.UserHeader, "kenji")
		res, err := resolving.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode < 400 || res.StatusCode > 499 {
			t.Errorf("DELETE %s, resolved by the client: %d, want a 4xx", target, res.StatusCode)
		}
	}
	// An empty id with the trailing slash dropped by a proxy.
	if code, out := n.raw(t, "DELETE", "/v1/users/kenji", map[string]string{omoidehttp.UserHeader: "kenji"}, ""); code != http.StatusBadRequest {
		t.Errorf("DELETE /v1/users/kenji{/empty id}: %d %q, want 400", code, out.Error)
	}
	if c, err := n.mem.Store.Count(context.Background(), "kenji"); err != nil || c != 2 {
		t.Errorf("kenji holds %d episodes (%v) after rewritten deletes, want 2", c, err)
	}
}
