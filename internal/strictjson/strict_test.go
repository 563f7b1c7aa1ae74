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
		// A byte order mark opening the input is skipped, as many tools
		// write one; anywhere else it is named, not read as 'ï'.
		{"\ufeff{\"a\": \"x\"}", ""},
		{"\ufeff", "empty input"},
		{"\ufeff\ufeff{\"a\": \"x\"}", "byte order mark (U+FEFF) at byte 3"},
		{" \ufeff{\"a\": \"x\"}", "byte order mark (U+FEFF) at byte 1"},
		{"{\"a\": \ufeff\"x\"}", "byte order mark (U+FEFF) at byte 6"},
		{"\ufeff{\"a\": \ufeff\"x\"}", "byte order mark (U+FEFF) at byte 9"},
		{"{\"a\": \"x\"}\ufeff", "byte order mark (U+FEFF) at byte 10"},
		{"{\"a\": \"\ufeffx\"}", ""}, // inside a string it is a character
	}
	for _, c := range cases {
		var got v
		err := DecodeBytes([]byte(c.in), &got)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.err)
		}
		var fromReader v
		if rerr := Decode(strings.NewReader(c.in), &fromReader); (rerr == nil) != (err == nil) || fromReader != got {
			t.Errorf("%q: Decode gives %v, %+v; DecodeBytes %v, %+v", c.in, rerr, fromReader, err, got)
		}
	}
}
