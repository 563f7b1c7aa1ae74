package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/retriever"
)

// secretOf is the memory only person a holds in FuzzPeopleApart.
const secretOf = "秘密の合言葉はあおぞらペンギン"

// FuzzPeopleApart: two people whose names differ in any bytes (one byte of
// invalid UTF-8, a lone surrogate escape, a Shift_JIS name) never see each
// other's episodes: through the library, the HTTP API (body, path, header)
// and the command line. A name that is not UTF-8 is refused, never
// replaced, since replacing merges people. A body of b's that names a as
// well, by a second "user" key or one differing only by case, is a 400:
// another parser would read it as b's.
func FuzzPeopleApart(f *testing.F) {
	for _, s := range [][2]string{
		{"u\xfe8", "u\xff8"}, {"u\ufffd8", "u\xff8"}, {"佐藤", "\x8d\xb2\x93\xa1"}, {"\x97\xe9\x96\xd8", "\x8d\xb2\x93\xa1"},
		{"haruka", "haruka "}, {"a", "A"}, {"x\x00", "x"}, {"\xed\xa0\x80", "\xed\xbf\xbf"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(f.TempDir(), "apart.db")})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { mem.Close() })
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{RequestTimeout: time.Minute, MaxRequestSensitivity: episode.SensitivitySecret})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	n := 0
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if bytes.Equal(a, b) {
			return
		}
		n++
		ua, ub := string(a), string(b)
		ext := fmt.Sprintf("s%d", n)
		// a's memory, stored through the API (a JSON string can carry any
		// bytes: encoding/json would replace the invalid ones, so write the
		// body by hand) and through the library.
		body := []byte(`[{"id":"` + ext + `","user":"` + string(jsonBytes(a)) + `","user_text":"` + secretOf + `","reply_text":"覚えたよ","occurred_at":"2026-02-20T10:00:00Z"}]`)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", bytes.NewReader(body)))
		_, libErr := mem.Add(ctx, episode.Episode{User: ua, ExternalID: ext + "l", UserText: secretOf, ReplyText: "覚えたよ", OccurredAt: now.AddDate(0, 0, -9)})
		if valid := validName(a); (rec.Code == 200) != valid || (libErr == nil) != valid {
			t.Fatalf("user %q: POST %d %s, Add %v; want both stored exactly when the name is valid UTF-8", a, rec.Code, rec.Body, libErr)
		}
		// b asks, every way there is.
		all := &retriever.Filter{MaxSensitivity: episode.SensitivitySecret}
		res, err := mem.Retrieve(ctx, retriever.Request{User: ub, Text: "合言葉なんだっけ", Recent: []retriever.Message{}, Now: now, Filter: all, WithCandidates: true})
		if err == nil {
			for _, c := range res.Candidates {
				if c.Episode.User != ub {
					t.Fatalf("library: %q sees %q's episode", b, c.Episode.User)
				}
			}
		} else if validName(b) {
			t.Fatalf("library: a valid name %q refused: %v", b, err)
		}
		q := []byte(`{"user":"` + string(jsonBytes(b)) + `","text":"合言葉なんだっけ","recent":[],"now":"2026-03-01T12:00:00Z","with_candidates":true,"filter":{"max_sensitivity":"secret","kinds":[],"states":[]}}`)
		unnamed := bytes.Replace(q, []byte(`"user":"`+string(jsonBytes(b))+`",`), nil, 1)
		byHeader := httptest.NewRequest("POST", "/v1/pack", bytes.NewReader(unnamed))
		byHeader.Header.Set(omoidehttp.UserHeader, omoidehttp.EncodeUser(ub))
		// b's request whose body names a too: another parser reads b.
		var twoReadings []*http.Request
		for _, key := range []string{"user", "USER", "User"} {
			two := bytes.Replace(q, []byte(`"text":`), []byte(`"`+key+`":"`+string(jsonBytes(a))+`","text":`), 1)
			twoReadings = append(twoReadings, httptest.NewRequest("POST", "/v1/pack", bytes.NewReader(two)))
		}
		for i, req := range append([]*http.Request{
			httptest.NewRequest("POST", "/v1/pack", bytes.NewReader(q)),
			httptest.NewRequest("POST", "/v1/users/"+url.PathEscape(ub)+"/pack", bytes.NewReader(unnamed)),
			byHeader,
		}, twoReadings...) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if i >= 3 {
				if rec.Code != http.StatusBadRequest {
					t.Fatalf("HTTP %s: a body naming %q and %q: %d %s, want 400", req.URL.Path, b, a, rec.Code, rec.Body)
				}
				continue
			}
			if rec.Code == 200 && strings.Contains(rec.Body.String(), secretOf) {
				var out wire.Pack
				json.Unmarshal(rec.Body.Bytes(), &out)
				for _, hit := range out.Hits {
					if hit.Episode.User != ub {
						t.Fatalf("HTTP %s: %q sees %q's secret", req.URL.Path, b, hit.Episode.User)
					}
				}
			}
			// A valid name has no dot segment or slash for the mux to
			// clean: every route takes it.
			if rec.Code != 200 && validName(b) {
				t.Fatalf("HTTP %s: a valid name %q refused: %d %s", req.URL.Path, b, rec.Code, rec.Body)
			}
		}
	})
}

// validName reports whether b can name a person (episode.CheckUser).
func validName(b []byte) bool {
	n := episode.Episode{User: string(b), UserText: "x", OccurredAt: time.Now()}
	return n.Normalize() == nil
}

// jsonBytes escapes b for the inside of a JSON string, leaving bytes that
// are not UTF-8 as they are.
func jsonBytes(b []byte) []byte {
	var out []byte
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, []byte(fmt.Sprintf(`\u%04x`, c))...)
		default:
			out = append(out, c)
		}
	}
	return out
}

// TestNotUTF8Refused: every way text reaches the server or the command line,
// text that is not UTF-8 is a 400 or a named line error, and nothing is
// stored.
func TestNotUTF8Refused(t *testing.T) {
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "u.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{})
	for _, tt := range []struct {
		name, method, path, header, body, want string
	}{
		{"user not UTF-8", "POST", "/v1/episodes", "", "[{\"user\":\"u\xfe8\",\"user_text\":\"秘密\"}]", "not valid UTF-8 at byte 11"},
		{"Shift_JIS body", "POST", "/v1/episodes", "", "[{\"user\":\"\x8d\xb2\x93\xa1\",\"user_text\":\"\x82\xa0\"}]", "Shift_JIS"},
		{"lone surrogate", "POST", "/v1/episodes", "", `[{"user":"u\ud800","user_text":"x"}]`, `lone surrogate escape`},
		{"low surrogate alone", "POST", "/v1/pack", "", `{"user":"u","text":"\udc00"}`, `lone surrogate escape`},
		{"pack as another byte", "POST", "/v1/pack", "", "{\"user\":\"u\xff8\",\"text\":\"合言葉\"}", "not valid UTF-8"},
		{"recent turn", "POST", "/v1/retrieve", "", "{\"user\":\"u\",\"text\":\"x\",\"recent\":[{\"role\":\"user\",\"content\":\"\xff\"}]}", "not valid UTF-8"},
		{"path", "POST", "/v1/users/u%FE8/pack", "", `{"text":"x"}`, "the path's user is not valid UTF-8"},
		{"header", "POST", "/v1/pack", "u\xfe8", `{"text":"x"}`, "header holds byte 0xfe"},
		{"header encoded", "POST", "/v1/pack", "u%FE8", `{"text":"x"}`, "header is not valid UTF-8"},
		{"forget", "DELETE", "/v1/users/u%FF", "", ``, "the path's user is not valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.header != "" {
				req.Header.Set(omoidehttp.UserHeader, tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tt.want) {
				t.Fatalf("%d %s, want 400 naming %q", rec.Code, rec.Body, tt.want)
			}
		})
	}
	if n, _ := mem.Store.Count(ctx, ""); n != 0 {
		t.Fatalf("refused requests stored %d episodes", n)
	}
	// A surrogate pair is a character, and accepted.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", strings.NewReader(`[{"user":"u","user_text":"\ud83c\udf5c \\ud800","occurred_at":"2026-01-01T00:00:00Z"}]`)))
	if rec.Code != 200 {
		t.Fatalf("a surrogate pair (and an escaped backslash before ud800): %d %s", rec.Code, rec.Body)
	}

	// The command line: a line not in UTF-8 is a named line error.
	dir := t.TempDir()
	file := filepath.Join(dir, "sjis.jsonl")
	os.WriteFile(file, []byte("{\"id\":\"1\",\"user\":\"\x8d\xb2\x93\xa1\",\"user_text\":\"x\",\"occurred_at\":\"2026-01-01T00:00:00Z\"}\n"), 0o644)
	code, _, stderr := runCLI(t, "ingest", "-db", filepath.Join(dir, "m.db"), file)
	if code != 1 || !strings.Contains(stderr, "sjis.jsonl:1: not valid UTF-8 at byte 18") {
		t.Fatalf("ingest of Shift_JIS: exit %d %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "retrieve", "-db", filepath.Join(dir, "m.db"), "-user", "u\xfe8", "x")
	if code != 1 || !strings.Contains(stderr, "user is not valid UTF-8") {
		t.Fatalf("retrieve -user u\\xfe8: exit %d %s", code, stderr)
	}
}

// TestPeopleApartCommandLine: FuzzPeopleApart's pairs through the command
// line: a's secret ingested from JSON Lines, b retrieving with -json. A
// name that is not UTF-8 is a named error, never another person.
func TestPeopleApartCommandLine(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "apart.db")
	pairs := [][2]string{{"u\xfe8", "u\xff8"}, {"u\ufffd8", "u\xff8"}, {"佐藤", "\x8d\xb2\x93\xa1"}, {"\x97\xe9\x96\xd8", "\x8d\xb2\x93\xa1"},
		{"haruka", "haruka "}, {"a", "A"}, {"x\x00", "x"}}
	for i, p := range pairs {
		a, b := []byte(p[0]), []byte(p[1])
		line := `{"id":"c` + fmt.Sprint(i) + `","user":"` + string(jsonBytes(a)) + `","user_text":"` + secretOf + `","reply_text":"覚えたよ","occurred_at":"2026-02-20T10:00:00Z"}` + "\n"
		code, _, errOut := runCLI(t, "ingest", "-db", db, writeFile(t, dir, fmt.Sprintf("a%d.jsonl", i), line))
		if (code == 0) != validName(a) {
			t.Fatalf("ingest as %q: exit %d %s", a, code, errOut)
		}
		if !validName(a) && !strings.Contains(errOut, "not valid UTF-8") && !strings.Contains(errOut, episode.CheckUser(string(a)).Error()) {
			t.Fatalf("ingest as %q: %s, want a line error naming what is wrong with the name", a, errOut)
		}
		code, out, errOut := runCLI(t, "retrieve", "-db", db, "-user", p[1], "-json", "-candidates", "-max-sensitivity", "secret",
			"-no-context", "-now", "2026-03-01T12:00:00Z", "合言葉なんだっけ")
		if !validName(b) {
			if code != 1 || !strings.Contains(errOut, episode.CheckUser(p[1]).Error()) {
				t.Fatalf("retrieve as %q: exit %d %s", b, code, errOut)
			}
			continue
		}
		var res retriever.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("retrieve as %q: exit %d, %v %s", b, code, err, errOut)
		}
		for _, h := range append(res.Hits, res.Candidates...) {
			if h.Episode.User != p[1] {
				t.Fatalf("retrieve as %q sees %q's episode", b, h.Episode.User)
			}
		}
	}
}
