package omoidehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/retriever"
)

// The fuzz targets of the HTTP API's request decoding: every body either
// decodes to a request that validates or fails with a clear client error
// (400, or 413 over the body limit), and nothing panics. Run one with e.g.
//
//	go test -tags sqlite_fts5 -run '^$' -fuzz '^FuzzDecodeEpisodes$' -fuzztime 30s ./cmd/omoide
//
// Seeds are in testdata/fuzz/<target>/ besides the ones added here.

// fuzzMaxBody is the body limit of the fuzzed decoding: small, so that the
// fuzzer reaches it.
const fuzzMaxBody = 4 << 10

var fuzzNow = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

// fuzzBodies are seeds shared by the targets.
var fuzzBodies = []string{
	``, `null`, `[]`, `{}`, `"x"`, `[1]`, `{"episodes": null}`, `[null]`, `[{}]`, `{"user": "u"} {}`, `[{"user": "u", "user_text": "t"}] x`,
	`[{"user": "u", "user_text": "t"}]`,
	`{"episodes": [{"id": "a", "user": "u", "user_text": "昨日ラーメン", "reply_text": "いいね", "occurred_at": "2025-06-01T12:00:00+09:00",
		"kind": "fact", "state": 2, "sensitivity": "private", "source": "note"}]}`,
	`[{"user": "u", "user_text": "t", "kind": 1e99}]`, `[{"user": "u", "user_text": "t", "kind": -1}]`, `[{"user": "u", "user_text": "t", "state": "ARCHIVED "}]`,
	`[{"user": "u", "user_text": "t", "occurred_at": "0000-01-01T00:00:00Z"}]`, `[{"user": "u", "user_text": "t", "occurred_at": null}]`,
	`[{"user": "u\ud800", "user_text": "\u0000\ufeff", "external_id": "\udfff"}]`, "[{\"user\": \"u\", \"user_text\": \"\xff\xfe\"}]",
	`[{"user": " ", "user_text": "t"}]`, `[{"user": "u", "user_text": "t", "id": "a", "external_id": "b"}]`, `[{"User": "u", "USER_TEXT": "t"}]`,
	`{"user": "haruka", "text": "この前のラーメン屋", "recent": [{"role": "user", "content": "お腹すいた"}], "now": "2025-07-01T00:00:00Z", "with_candidates": true}`,
	`{"user": "haruka", "text": "先週何話したっけ", "recent": []}`, `{"user": "haruka", "text": "x", "recent": null}`,
	`{"user": "u", "text": "x", "recent": [{"role": "bot"}]}`, `{"user": "u", "text": "x", "recent": [{}]}`, `{"user": "", "text": "x"}`,
	`{"user": "u", "text": "NEAR( \"a\" AND b* ^c col:d", "now": "9999-12-31T23:59:59Z"}`, `{"user": "u", "text": "x", "now": "0001-01-01T00:00:00Z"}`,
	`{"user": "u", "text": "x", "strategy": "full", "tz": "Asia/Tokyo"}`, `{"user": "u", "text": "x", "strategy": "summarize", "tz": "Local"}`,
	`{"user": "u", "text": "x", "tz": "../../etc/passwd"}`, `{"user": "u", "text": "x", "tz": "UTC\u0000"}`, `{"user": "u", "text": "x", "strategy": "FULL"}`,
	`{"user": "u", "text": "x", "with_candidates": "yes"}`, `{"user": "u", "text": 1}`, `{"user": "u", "text": "x", "extra": 1}`,
	`{"user": "u", "text": "` + strings.Repeat("あ", 2<<10) + `"}`,
	`{"user": "u", "text": "x"` + strings.Repeat(" ", fuzzMaxBody) + `}`,
	strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
}

// readBody decodes body as the server does (the body limit, strict decoding
// into v) and reports whether it was accepted; a refused body must carry a
// clear client error.
func readBody(t *testing.T, body []byte, v any) bool {
	t.Helper()
	s := &Handler{cfg: Config{MaxBody: fuzzMaxBody}}
	rec := httptest.NewRecorder()
	err := s.readJSON(rec, httptest.NewRequest("POST", "/", bytes.NewReader(body)), v)
	if err == nil {
		if len(body) > fuzzMaxBody {
			t.Fatalf("a %d-byte body passed the %d-byte limit", len(body), fuzzMaxBody)
		}
		return true
	}
	checkClientError(t, err, body)
	return false
}

// checkClientError fails unless err is a 400 or 413 with a message.
func checkClientError(t *testing.T, err error, body []byte) {
	t.Helper()
	var he *httpError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		if he.status != http.StatusBadRequest || strings.TrimSpace(he.msg) == "" || !utf8.ValidString(he.msg) {
			t.Fatalf("body %q: error %d %q: want a 400 with a message in UTF-8", body, he.status, he.msg)
		}
	case errors.As(err, &mbe):
		if len(body) <= fuzzMaxBody {
			t.Fatalf("a %d-byte body was refused as over the %d-byte limit", len(body), fuzzMaxBody)
		}
	default:
		t.Fatalf("body %q: error %v (%T) is neither a 400 nor a 413: it would be answered 500", body, err, err)
	}
}

func addSeeds(f *testing.F) {
	for _, b := range fuzzBodies {
		f.Add([]byte(b))
	}
}

// FuzzDecodeEpisodes decodes bodies of POST /v1/episodes: a decoded batch is
// non-empty and every episode passes the store's own validation, text intact
// as valid UTF-8; anything else is a 400 or 413.
func FuzzDecodeEpisodes(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		s := &Handler{cfg: Config{MaxBody: fuzzMaxBody}}
		raw, err := s.readBody(httptest.NewRecorder(), httptest.NewRequest("POST", "/", bytes.NewReader(body)))
		if err != nil {
			checkClientError(t, err, body)
			return
		}
		eps, err := decodeEpisodes(raw, fuzzNow, "")
		if err != nil {
			checkClientError(t, err, body)
			return
		}
		if len(eps) == 0 {
			t.Fatalf("body %q decoded to no episodes without an error", body)
		}
		for i, e := range eps {
			if e.ID != 0 {
				t.Fatalf("episode %d has id %d before it is stored", i, e.ID)
			}
			n := e
			if err := n.Normalize(); err != nil {
				t.Fatalf("body %q: episode %d %+v passed decoding but the store refuses it: %v", body, i, e, err)
			}
			for _, s := range []string{e.User, e.ExternalID, e.UserText, e.ReplyText, e.Source} {
				if !utf8.ValidString(s) {
					t.Fatalf("episode %d holds invalid UTF-8 %q", i, s)
				}
			}
		}
		// Decoding is a function of the body.
		again, err := decodeEpisodes(raw, fuzzNow, "")
		if err != nil || len(again) != len(eps) {
			t.Fatalf("second decoding: %d episodes, %v", len(again), err)
		}
		for i := range eps {
			a, b := again[i], eps[i]
			a.OccurredAt, b.OccurredAt = a.OccurredAt.UTC(), b.OccurredAt.UTC()
			if a != b {
				t.Fatalf("episode %d decodes differently: %+v, %+v", i, a, b)
			}
		}
	})
}

// FuzzDecodeRetrieve decodes bodies of POST /v1/retrieve: a request that
// decodes names a user, has valid UTF-8 text (the retriever would answer
// invalid UTF-8 with an error the server reports as 500) and only the
// accepted roles; a nil "recent" stays nil.
func FuzzDecodeRetrieve(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var q retrieveRequest
		if !readBody(t, body, &q) {
			return
		}
		req, err := q.request(retriever.DefaultOptions().Filter, episode.SensitivityPrivate)
		if err != nil {
			checkClientError(t, err, body)
			return
		}
		if strings.TrimSpace(req.User) == "" || req.User != q.User {
			t.Fatalf("body %q: user %q", body, req.User)
		}
		if !utf8.ValidString(req.Text) {
			t.Fatalf("body %q: text %q is not valid UTF-8", body, req.Text)
		}
		if (q.Recent == nil) != (req.Recent == nil) || len(req.Recent) != len(q.Recent) {
			t.Fatalf("body %q: recent %v became %v", body, q.Recent, req.Recent)
		}
		for i, m := range req.Recent {
			if m.Role != "user" && m.Role != "assistant" && m.Role != "system" {
				t.Fatalf("recent[%d] has role %q", i, m.Role)
			}
		}
		if q.Now != nil && !req.Now.Equal(*q.Now) || q.Now == nil && !req.Now.IsZero() {
			t.Fatalf("now %v became %v", q.Now, req.Now)
		}
	})
}

// FuzzDecodePack decodes bodies of POST /v1/pack: as /v1/retrieve, plus the
// strategy and the time zone, which either parse into usable options or are
// a 400.
func FuzzDecodePack(f *testing.F) {
	addSeeds(f)
	base := memorypack.DefaultOptions()
	base.Location = time.UTC
	f.Fuzz(func(t *testing.T, body []byte) {
		var q packRequest
		if !readBody(t, body, &q) {
			return
		}
		req, err := q.request(retriever.DefaultOptions().Filter, episode.SensitivityPrivate)
		if err != nil {
			checkClientError(t, err, body)
			return
		}
		if (q.TZ != "") != (req.Location != nil) {
			t.Fatalf("body %q: tz %q gave the request the zone %v", body, q.TZ, req.Location)
		}
		opts, err := q.options(base, req)
		if err != nil {
			checkClientError(t, err, body)
			return
		}
		if opts.Location == nil {
			t.Fatalf("body %q: no time zone", body)
		}
		if q.Strategy == "" && opts.Strategy != base.Strategy || q.TZ == "" && opts.Location != base.Location {
			t.Fatalf("body %q: options changed without being asked", body)
		}
		// The options render.
		_ = memorypack.RenderEvidence([]memorypack.Evidence{{OccurredAt: fuzzNow, UserText: "a", ReplyText: "b", Relevance: memorypack.High}}, opts)
	})
}

// FuzzServeRetrieve posts bodies to /v1/retrieve and /v1/pack of a server
// over a small store: the answer is a JSON object, 200 or a 4xx with an error
// message, never a 5xx (a panic is answered 500 by the handler's recover).
func FuzzServeRetrieve(f *testing.F) {
	addSeeds(f)
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(f.TempDir(), "fuzz.db")})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { mem.Close() })
	if _, err := mem.Add(ctx,
		episode.Episode{User: "haruka", UserText: "駅前の味噌ラーメンを食べた", ReplyText: "いいね", OccurredAt: fuzzNow.AddDate(0, 0, -10)},
		episode.Episode{User: "haruka", UserText: "膝が痛くて病院に行った", ReplyText: "お大事に", OccurredAt: fuzzNow.AddDate(0, 0, -3)},
		episode.Episode{User: "u", UserText: "NEAR(a b) AND \"x\"", ReplyText: "col:y", OccurredAt: fuzzNow.AddDate(0, 0, -1)},
	); err != nil {
		f.Fatal(err)
	}
	h := NewHandler(mem, Config{MaxBody: fuzzMaxBody, RequestTimeout: time.Minute})
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, path := range []string{"/v1/retrieve", "/v1/pack"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", path, bytes.NewReader(body)))
			var out ErrorAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
				t.Fatalf("%s %q: status %d, answer %q is not a JSON object", path, body, rec.Code, rec.Body)
			}
			switch {
			case rec.Code == 200:
			case rec.Code >= 400 && rec.Code < 500:
				if out.Error == "" {
					t.Fatalf("%s %q: %d without an error message", path, body, rec.Code)
				}
			default:
				t.Fatalf("%s %q: status %d: %v", path, body, rec.Code, out)
			}
		}
	})
}
