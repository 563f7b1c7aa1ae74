package omoidehttp_test

import (
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
