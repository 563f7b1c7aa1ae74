package strictjson_test

import (
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/strictjson"
)

// retrieveRequest and packRequest mirror omoidehttp's request bodies: one
// embeds the other, and the filter holds episode's enums.
type retrieveRequest struct {
	User   string `json:"user"`
	Text   string `json:"text"`
	Recent []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"recent"`
	Now    *time.Time `json:"now"`
	Filter *struct {
		Kinds          []episode.Kind       `json:"kinds"`
		MaxSensitivity *episode.Sensitivity `json:"max_sensitivity"`
		MaxAgeDays     *int                 `json:"max_age_days"`
	} `json:"filter"`
	InjectThreshold *float64 `json:"inject_threshold"`
}

type packRequest struct {
	retrieveRequest
	Strategy string `json:"strategy"`
	Reasons  bool   `json:"reasons"`
}

// TestOmoideInputs: the bodies and lines omoide reads, with episode's own
// types, give one reading or an error that says where.
func TestOmoideInputs(t *testing.T) {
	const ep = `{"id":"a","user":"u","user_text":"t","occurred_at":"2025-06-01T10:00:00+09:00"}`
	cases := []struct {
		in, root string
		v        any
		err      string
	}{
		{`{"user":"j","USER":"k","text":"x"}`, "", &packRequest{}, `key "USER" is not "user": keys are case-sensitive`},
		{`{"user":"j","user":"k","text":"x"}`, "", &packRequest{}, `duplicate key "user"`},
		{`{"user":"u","text":"x","strategy":"full","reasons":true,"filter":{"max_age_days":3}}`, "", &packRequest{}, ""},
		{`{"user":"u","text":"x","strategy":"full"}`, "", &retrieveRequest{}, `json: unknown field "strategy"`},
		{`{"user":"u","filter":{"kinds":["fact","dream"]}}`, "", &packRequest{}, `filter.kinds[1]: want a number or one of episode=1, fact=2, loop=7, summary=3, got "dream"`},
		{`{"user":"u","recent":[{"role":"user","Content":"x"}]}`, "", &packRequest{}, `recent[0]: key "Content" is not "content": keys are case-sensitive`},
		{`{"user":"u","now":"2025-06-01T10:00:00+24:00"}`, "", &packRequest{}, `now: want RFC 3339, e.g. 2025-06-01T10:00:00+09:00, got "2025-06-01T10:00:00+24:00" (offset +24:00 is beyond ±23:59)`},
		{`[` + ep + `,` + ep + `]`, "episodes", &[]episode.Record{}, ""},
		{`[` + ep + `,{"user":"u","user_text":3}]`, "episodes", &[]episode.Record{}, `episodes[1].user_text: want a string, got a number`},
		{`[` + ep + `,{"user":"u","occurred_at":"2025-06-01 10:00"}]`, "episodes", &[]episode.Record{}, `episodes[1].occurred_at: want RFC 3339, e.g. 2025-06-01T10:00:00+09:00, got "2025-06-01 10:00"`},
		{`[{"user":"u","kind":"x"}]`, "episodes", &[]episode.Record{}, `episodes[0].kind: want a number or one of episode=1, fact=2, loop=7, summary=3, got "x"`},
		{`[` + ep + `,{"user":"u","occurred_at":"0001-01-01T00:00:00Z"}]`, "episodes", &[]episode.Record{},
			`episodes[1]: occurred_at 0001-01-01T00:00:00Z is the zero time: give the time the exchange happened, or leave occurred_at out for now`},
		{`{"episodes":[{"user":"j","uſer":"k"}]}`, "", &struct {
			Episodes []episode.Record `json:"episodes"`
		}{}, `episodes[0]: key "u\u017fer" is not "user": keys are case-sensitive`},
		// A JSON Lines line: a record at the top.
		{`{"id":"b","user":"u","color":"red"}`, "", &episode.Record{}, `json: unknown field "color"`},
		{`{"id":"b","user":"u","state":"lost"}`, "", &episode.Record{}, `state: want a number or one of archived=3, consolidated=2, raw=0, validated=1, got "lost"`},
	}
	for _, c := range cases {
		err := strictjson.DecodeBytesAt([]byte(c.in), c.root, c.v)
		if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
			t.Errorf("%s: %v, want %q", c.in, err, c.err)
		}
	}
}
