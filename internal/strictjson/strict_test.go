package strictjson

import (
	"strings"
	"testing"
)

// TestDecodeRefuses: strict decoding names what is wrong with its input and
// never replaces text it cannot read.
func TestDecodeRefuses(t *testing.T) {
	type v struct {
		A string `json:"a"`
	}
	cases := []struct{ in, err string }{
		{`{"a": "x"}`, ""},
		{`{"a": "\ud83d\ude00"}`, ""}, // a surrogate pair is a character
		{"{\"a\": \"\xff\"}", "not valid UTF-8 at byte 7"},
		{`{"a": "\ud800"}`, `lone surrogate escape \ud800 at byte 7`},
		{`{"a": "\udc00x"}`, "lone surrogate"},
		{`{"a": "\\ud800"}`, ""}, // an escaped backslash, then text
		{`{"b": 1}`, "unknown field"},
		{`{"a": "x"} {}`, "after the JSON value"},
		{``, "empty input"},
	}
	for _, c := range cases {
		var got v
		err := DecodeBytes([]byte(c.in), &got)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.err)
		}
	}
}
