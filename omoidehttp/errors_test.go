package omoidehttp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
)

// TestErrorsNameWhatWasWrong: each refusal names what was wrong in the
// API's own terms: the episode by its index in the body (episodes[1]), PUT
// as what replaces a stored id, a name of white space as such, and a
// header's right spelling only when there is one.
func TestErrorsNameWhatWasWrong(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	n.add(t, "mika", "m1", "最初の話")
	for _, tc := range []struct {
		name, method, path string
		header             map[string]string
		body               string
		code               int
		want, not          string
	}{
		{"conflict", "POST", "/v1/episodes", nil, `[{"user":"mika","id":"m0","user_text":"x"},{"user":"mika","id":"m1","user_text":"別の話"}]`,
			409, `episodes[1] (user "mika", id "m1"): stored with other content; PUT replaces it`, "Update"},
		{"conflict by path", "POST", "/v1/users/mika/episodes", nil, `[{"id":"m1","user_text":"別の話"}]`,
			409, `episodes[0] (user "mika", id "m1"): stored with other content; PUT replaces it`, "episode 0"},
		{"twice in a body", "PUT", "/v1/episodes", nil, `[{"user":"mika","id":"m2","user_text":"a"},{"user":"mika","id":"m2","user_text":"b"}]`,
			409, `episodes[1] (user "mika", id "m2"): the body gives this id twice with other content`, "Update"},
		{"white space name", "POST", "/v1/episodes", nil, "[{\"user\":\"\u00a0\",\"user_text\":\"x\"}]",
			400, `episodes[0]: user "\u00a0" is only white space`, "is empty"},
		{"empty name", "POST", "/v1/episodes", nil, `[{"user":"","user_text":"x"}]`, 400, `episodes[0]: user is empty`, ""},
		{"Latin-1 header", "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: "\xc3("}, `{"text":"x"}`,
			400, "is not UTF-8: send the name's UTF-8 bytes percent-encoded", "%C3("},
		{"raw UTF-8 header", "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: "はるか"}, `{"text":"x"}`,
			400, `"%E3%81%AF%E3%82%8B%E3%81%8B"`, ""},
	} {
		code, out := n.raw(t, tc.method, tc.path, tc.header, tc.body)
		if code != tc.code || !strings.Contains(out.Error, tc.want) || tc.not != "" && strings.Contains(out.Error, tc.not) {
			t.Errorf("%s: %d %q, want %d naming %q (and not %q)", tc.name, code, out.Error, tc.code, tc.want, tc.not)
		}
	}
	if c := n.count(t, "mika"); c != 1 {
		t.Errorf("mika holds %d episodes after refused writes, want her 1", c)
	}
}

// TestOneReadingOfABody: the reproduction. A body that names two
// people, by a duplicate key or a key differing from "user" only by case,
// was read by Node's and Python's JSON as the first and by omoide as the
// second, so a backend that checked the person with its own parser and
// forwarded the body was bypassed: k's memories answered a request its
// checker read as j's. Every such body is now a 400 naming the key, on
// every route that reads one, at any depth, and stores or reads nothing.
func TestOneReadingOfABody(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	n.add(t, "k", "k1", "kの秘密はあおぞらペンギン")
	n.add(t, "j", "j1", "jの話")
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/retrieve", `{"user":"j","USER":"k","text":"あおぞらペンギン","recent":[]}`, `key "USER" is not "user"`},
		{"/v1/retrieve", `{"user":"j","user":"k","text":"あおぞらペンギン","recent":[]}`, `duplicate key "user"`},
		{"/v1/pack", `{"USER":"k","user":"j","text":"あおぞらペンギン","recent":[]}`, `key "USER" is not "user"`},
		{"/v1/pack", "{\"user\":\"j\",\"u\u017fer\":\"k\",\"text\":\"あおぞらペンギン\",\"recent\":[]}", `key "u\u017fer" is not "user"`},
		{"/v1/retrieve", `{"User":"k","text":"あおぞらペンギン","recent":[]}`, `key "User" is not "user"`},
		{"/v1/retrieve", `{"user":"j","text":"あおぞらペンギン","recent":[],"filter":{"max_age_days":1,"max_age_days":null}}`, `filter: duplicate key "max_age_days"`},
		{"/v1/episodes", `[{"user":"j","USER":"k","id":"k1","user_text":"上書き"}]`, `episodes[0]: key "USER" is not "user"`},
		{"/v1/episodes", `{"episodes":[{"user":"j","user_text":"x"}],"Episodes":[{"user":"k","id":"k1","user_text":"上書き"}]}`, `key "Episodes" is not "episodes"`},
		{"/v1/users/j/hold", `{"seconds":60,"Seconds":1}`, `key "Seconds" is not "seconds"`},
	} {
		for _, method := range []string{"POST", "PUT"} {
			if method == "PUT" && tc.path != "/v1/episodes" {
				continue
			}
			code, out := n.raw(t, method, tc.path, nil, tc.body)
			if code != 400 || !strings.Contains(out.Error, tc.want) || strings.Contains(out.Error+out.Section, "あおぞらペンギン") || len(out.Hits) > 0 {
				t.Errorf("%s %s %s: %d %q %d hits, want a 400 naming %q", method, tc.path, tc.body, code, out.Error, len(out.Hits), tc.want)
			}
		}
	}
	code, out := n.raw(t, "GET", "/v1/users/k/episodes", nil, "")
	if code != 200 || len(out.Episodes) != 1 || out.Episodes[0].UserText != "kの秘密はあおぞらペンギン" {
		t.Errorf("k's memory after the two-person bodies: %d %+v", code, out.Episodes)
	}
}

// TestRoutedPersonOnly: a request routed as one person (by its path or the
// header) acts on that person only: a body naming another is a 400, never
// read as the body's person nor silently as the route's; an id written
// "+N" is no id, even with the owner's header.
func TestRoutedPersonOnly(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	kid := n.add(t, "k", "k1", "kの秘密はあおぞらペンギン")
	n.add(t, "j", "j1", "jの話")
	asJ := map[string]string{omoidehttp.UserHeader: "j"}
	for _, tc := range []struct {
		path   string
		header map[string]string
		body   string
	}{
		{"/v1/users/j/retrieve", nil, `{"user":"k","text":"あおぞらペンギン","recent":[]}`},
		{"/v1/users/j/pack", nil, `{"user":"k","text":"あおぞらペンギン","recent":[]}`},
		{"/v1/retrieve", asJ, `{"user":"k","text":"あおぞらペンギン","recent":[]}`},
		{"/v1/pack", asJ, `{"user":"k","text":"あおぞらペンギン","recent":[]}`},
		{"/v1/users/j/episodes", nil, `[{"user":"k","id":"k2","user_text":"上書き"}]`},
		{"/v1/episodes", asJ, `[{"user":"j","id":"j2","user_text":"x"},{"user":"k","id":"k2","user_text":"上書き"}]`},
	} {
		code, out := n.raw(t, "POST", tc.path, tc.header, tc.body)
		if code != 400 || !strings.Contains(out.Error, `is "k"'s, but the request is routed as "j"'s`) || len(out.Hits) > 0 || out.Section != "" {
			t.Errorf("POST %s %v %s: %d %q, %d hits; want a 400 naming both people", tc.path, tc.header, tc.body, code, out.Error, len(out.Hits))
		}
	}
	if c := n.count(t, "k"); c != 1 {
		t.Errorf("k holds %d episodes, want her 1", c)
	}
	if c := n.count(t, "j"); c != 1 {
		t.Errorf("j holds %d episodes, want his 1", c)
	}
	code, out := n.raw(t, "DELETE", fmt.Sprintf("/v1/episodes/+%d", kid), map[string]string{omoidehttp.UserHeader: "k"}, "")
	if code != 400 || !strings.Contains(out.Error, "not a positive integer") || n.count(t, "k") != 1 {
		t.Errorf("DELETE /v1/episodes/+%d as k: %d %q, k holds %d", kid, code, out.Error, n.count(t, "k"))
	}
}
