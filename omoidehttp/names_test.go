package omoidehttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/retriever"
)

func TestEncodeDecodeUser(t *testing.T) {
	for _, tc := range []struct{ name, wire string }{
		{"mika", "mika"}, {"a b", "a%20b"}, {"50%", "50%25"}, {"はるか", "%E3%81%AF%E3%82%8B%E3%81%8B"},
		{"김민지", "%EA%B9%80%EB%AF%BC%EC%A7%80"}, {"a+b?c#d&e;f", "a%2Bb%3Fc%23d%26e%3Bf"}, {"x\x7f", "x%7F"},
		{" mika", "%20mika"}, {"mika ", "mika%20"}, {"mika tanaka", "mika%20tanaka"},
		// as chat backends name people, in what encodeURIComponent writes
		{"line:U123", "line%3AU123"}, {"discord:42", "discord%3A42"}, {"a@b", "a%40b"}, {"o'neil(jr)!*~._-", "o'neil(jr)!*~._-"},
	} {
		if got := omoidehttp.EncodeUser(tc.name); got != tc.wire {
			t.Errorf("EncodeUser(%q) = %q, want %q", tc.name, got, tc.wire)
		}
		if got, err := omoidehttp.DecodeUser(tc.wire); err != nil || got != tc.name {
			t.Errorf("DecodeUser(%q) = %q, %v; want %q", tc.wire, got, err, tc.name)
		}
	}
	for _, v := range []string{"はるか", "%e3%81%af%e3%82%8b%e3%81%8b", "%41", "50%", "50%2", "50%zz", "mika tanaka", " mika", "line:U123", "%6Cine%3AU123"} {
		if got, err := omoidehttp.DecodeUser(v); err == nil {
			t.Errorf("DecodeUser(%q) = %q: want an error (not the one wire form)", v, got)
		}
	}
}

// node is a live server over a fresh store, with what it logged.
type node struct {
	mem *omoide.Memory
	url string
	log *omoidehttp.LockedBuffer
}

func newNode(t *testing.T, path string, mc omoide.Config, cfg omoidehttp.Config) *node {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "n.db")
	}
	mc.Path = path
	mem, err := omoide.Open(context.Background(), mc)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{mem: mem, log: &omoidehttp.LockedBuffer{}}
	cfg.Logger = slog.New(slog.NewTextHandler(n.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := omoidehttp.NewHandler(mem, cfg)
	srv := httptest.NewServer(h)
	n.url = srv.URL
	t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })
	return n
}

// answer is any answer of the API, for the fields these tests read.
type answer struct {
	omoidehttp.ErrorAnswer
	Section  string           `json:"section"`
	Hits     []retriever.Hit  `json:"hits"`
	Episodes []episode.Record `json:"episodes"`
	Next     *int64           `json:"next"`
	Deleted  int              `json:"deleted"`
}

// raw sends a request as written, over TCP, so that no Go client escapes or
// cleans anything; header values go out byte for byte.
func (n *node) raw(t *testing.T, method, target string, headers map[string]string, body string) (int, answer) {
	t.Helper()
	u, _ := url.Parse(n.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Length: %d\r\n", method, target, u.Host, len(body))
	for k, v := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n" + body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out answer
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (n *node) add(t *testing.T, user, ext, text string) int64 {
	t.Helper()
	ids, err := n.mem.Store.Add(context.Background(), []episode.Episode{{User: user, ExternalID: ext, UserText: text, ReplyText: "覚えたよ",
		OccurredAt: time.Date(2026, 2, 20, 10, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	return ids[0]
}

// TestNamesAtEveryEntry: a name the rule refuses is a 400 at every entry —
// body, path, header — with the same words, and never reaches the person a
// client or header parsing would turn it into.
func TestNamesAtEveryEntry(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	id := n.add(t, "mika", "m1", "ミカの秘密はあおぞらペンギン")
	long := strings.Repeat("a", episode.MaxUserLen+1)
	for _, tc := range []struct{ name, path, want string }{
		{"..", "%2E%2E", "dot segment"},
		{"mika ", "mika%20", "ends with white space"},
		{" mika", "%20mika", "begins with white space"},
		{"a/b", "a%2Fb", "path separator"},
		{"mi\tka", "mi%09ka", "control character"},
		{long, long, "longer than 256"},
	} {
		body, _ := json.Marshal(map[string]string{"user": tc.name, "text": "ミカの秘密"})
		code, out := n.raw(t, "POST", "/v1/retrieve", nil, string(body))
		if code != 400 || !strings.Contains(out.Error, tc.want) {
			t.Errorf("%q in the body: %d %v, want 400 naming %q", tc.name, code, out, tc.want)
		}
		recs, _ := json.Marshal([]map[string]string{{"user": tc.name, "user_text": "x"}})
		if code, out := n.raw(t, "POST", "/v1/episodes", nil, string(recs)); code != 400 || !strings.Contains(out.Error, tc.want) {
			t.Errorf("%q in a stored record: %d %v, want 400 naming %q", tc.name, code, out, tc.want)
		}
		if tc.name != ".." { // Go's mux cleans /v1/users/%2E%2E/... to another path: a redirect, never a person
			for _, m := range []string{"GET /v1/users/%s/episodes", "DELETE /v1/users/%s", "POST /v1/users/%s/retrieve", "DELETE /v1/users/%s/episodes/m1", "POST /v1/users/%s/hold"} {
				method, p, _ := strings.Cut(fmt.Sprintf(m, tc.path), " ")
				b := `{"text":"ミカ"}`
				if strings.HasSuffix(p, "hold") {
					b = `{}`
				}
				if code, out := n.raw(t, method, p, nil, b); code != 400 || !strings.Contains(out.Error, tc.want) {
					t.Errorf("%q in the path of %s %s: %d %v, want 400 naming %q", tc.name, method, p, code, out, tc.want)
				}
			}
		}
		{ // the wire form carries even the names a header would trim
			if code, out := n.raw(t, "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: omoidehttp.EncodeUser(tc.name)}, `{"text":"ミカの秘密"}`); code != 400 || !strings.Contains(out.Error, tc.want) {
				t.Errorf("%q in the header: %d %v, want 400 naming %q", tc.name, code, out, tc.want)
			}
		}
	}
	// The header "mika " arrives as "mika" (HTTP trims it): with the body's
	// "mika " it is a 400, never mika's memory.
	code, out := n.raw(t, "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: "mika "}, `{"user":"mika ","text":"ミカの秘密"}`)
	if code != 400 {
		t.Errorf(`header "mika " with body "mika ": %d %v, want 400`, code, out)
	}
	// A client that resolves /v1/users/../episodes/ID sends /v1/episodes/ID:
	// without the header naming whose it is, nothing is deleted.
	for _, target := range []string{fmt.Sprintf("/v1/episodes/%d", id), fmt.Sprintf("/v1/episodes/+%d", id)} {
		if code, out := n.raw(t, "DELETE", target, nil, ""); code != 400 {
			t.Errorf("DELETE %s without a person: %d %v, want 400", target, code, out)
		}
	}
	if code, out := n.raw(t, "DELETE", fmt.Sprintf("/v1/episodes/%d", id), map[string]string{omoidehttp.UserHeader: "..."}, ""); code != 404 {
		t.Errorf("DELETE mika's episode as \"...\": %d %v, want 404", code, out)
	}
	if c, _ := n.mem.Store.Count(context.Background(), "mika"); c != 1 {
		t.Fatalf("mika holds %d episodes after the attempts, want 1", c)
	}
	if code, out := n.raw(t, "DELETE", fmt.Sprintf("/v1/episodes/%d", id), map[string]string{omoidehttp.UserHeader: "mika"}, ""); code != 200 {
		t.Errorf("DELETE as mika: %d %v", code, out)
	}
}

// TestHeaderWireForm: a Japanese name travels in the header percent-encoded
// (what Node's fetch and Python's urllib can send) and reaches the same
// person as the path; any other spelling is a 400 that names the right one.
func TestHeaderWireForm(t *testing.T) {
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	n.add(t, "はるか", "h1", "はるかの秘密はあおぞらペンギン")
	n.add(t, "%E3%81%AF%E3%82%8B%E3%81%8B", "x1", "もう一人の秘密")
	wire := omoidehttp.EncodeUser("はるか")
	code, out := n.raw(t, "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: wire}, `{"text":"秘密のペンギンって何だっけ？","recent":[]}`)
	if code != 200 || !strings.Contains(fmt.Sprint(out.Hits), "はるかの秘密") || strings.Contains(fmt.Sprint(out.Hits), "もう一人") {
		t.Fatalf("はるか by the header's wire form: %d %v", code, out)
	}
	if code, out := n.raw(t, "POST", "/v1/users/"+url.PathEscape("はるか")+"/retrieve", map[string]string{omoidehttp.UserHeader: wire}, `{"text":"秘密のペンギンって何だっけ？","recent":[]}`); code != 200 {
		t.Errorf("path and header naming はるか each in its form: %d %v", code, out)
	}
	for _, v := range []string{"はるか", strings.ToLower(wire)} {
		code, out := n.raw(t, "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: v}, `{"text":"秘密のペンギンって何だっけ？","recent":[]}`)
		if code != 400 || !strings.Contains(out.Error, wire) {
			t.Errorf("header %q: %d %v, want 400 naming %s", v, code, out, wire)
		}
	}
	// The person literally named %E3%81%AF… is sent as %25E3…: not はるか.
	code, out = n.raw(t, "POST", "/v1/retrieve", map[string]string{omoidehttp.UserHeader: omoidehttp.EncodeUser("%E3%81%AF%E3%82%8B%E3%81%8B")}, `{"text":"秘密のペンギンって何だっけ？","recent":[]}`)
	if code != 200 || strings.Contains(fmt.Sprint(out.Hits), "はるかの") {
		t.Errorf("the person named like an encoding: %d %v", code, out)
	}
}

// TestCeiling: what a server returns is capped at MaxRequestSensitivity for
// every preset and every filter; the zero Config returns normal episodes
// only, and the error names what the request asked, not a flag.
func TestCeiling(t *testing.T) {
	ctx := context.Background()
	for _, preset := range []string{omoide.PresetReference, omoide.PresetDefault} {
		n := newNode(t, "", omoide.Config{Preset: preset}, omoidehttp.Config{})
		_, err := n.mem.Store.Add(ctx, []episode.Episode{
			{User: "u", UserText: "合言葉はあおぞらペンギン", ReplyText: "秘密だね", Sensitivity: episode.SensitivitySecret, OccurredAt: time.Now().Add(-time.Hour)},
			{User: "u", UserText: "合言葉はあおぞらペンギンだった", ReplyText: "ふつうの話", OccurredAt: time.Now().Add(-time.Hour)},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, body := range []string{`{"user":"u","text":"合言葉はあおぞらペンギン","recent":[],"with_candidates":true}`,
			`{"user":"u","text":"合言葉はあおぞらペンギン","recent":[],"with_candidates":true,"filter":{"kinds":["episode"]}}`,
			`{"user":"u","text":"合言葉はあおぞらペンギン","recent":[],"with_candidates":true,"filter":{"states":[]}}`} {
			for _, route := range []string{"/v1/pack", "/v1/retrieve"} {
				code, out := n.raw(t, "POST", route, nil, body)
				normal := false
				for _, h := range out.Hits {
					if h.Episode.ReplyText == "秘密だね" {
						t.Errorf("%s %s %s: returned the secret episode %d", preset, route, body, h.Episode.ID)
					}
					normal = normal || h.Episode.ReplyText == "ふつうの話"
				}
				// The ceiling hides the secret, never the rest: the normal
				// episode, as alike, is returned.
				if code != 200 || !normal || strings.Contains(out.Section, "秘密だね") {
					t.Errorf("%s %s %s: %d, the normal episode returned %v, section %q", preset, route, body, code, normal, out.Section)
				}
			}
		}
		code, out := n.raw(t, "POST", "/v1/pack", nil, `{"user":"u","text":"合言葉","filter":{"max_sensitivity":"private"}}`)
		if msg := out.Error; code != 400 || !strings.Contains(msg, `"private"`) || strings.Contains(msg, "-max-request-sensitivity") {
			t.Errorf("%s: asking private of a zero Config: %d %v, want 400 naming private and no flag", preset, code, out)
		}
	}
}

// TestUnsearchedCountsTheCeiling: "unsearched" counts the episodes a
// retrieval without a filter does not search: those the preset's filter
// leaves out and those above the server's ceiling, which it never returns.
// The reference preset's filter admits secret: under a normal ceiling a
// secret episode is unsearched all the same.
func TestUnsearchedCountsTheCeiling(t *testing.T) {
	body := `[{"user":"u","user_text":"ふつう"},{"user":"u","user_text":"ないしょ","sensitivity":"private"},{"user":"u","user_text":"ひみつ","sensitivity":"secret"},{"user":"u","user_text":"しまった","state":"archived"}]`
	for _, tc := range []struct {
		preset  string
		ceiling episode.Sensitivity
		want    int
	}{
		{omoide.PresetReference, episode.SensitivityNormal, 3},
		{omoide.PresetReference, episode.SensitivityPrivate, 2},
		{omoide.PresetReference, episode.SensitivitySecret, 1},
		{omoide.PresetDefault, episode.SensitivityNormal, 3},
		{omoide.PresetDefault, episode.SensitivitySecret, 3}, // the preset's own filter: normal
	} {
		n := newNode(t, "", omoide.Config{Preset: tc.preset}, omoidehttp.Config{MaxRequestSensitivity: tc.ceiling})
		var out omoidehttp.Stored
		if err := (omoidehttp.Client{BaseURL: n.url}).Do(context.Background(), "POST", "/v1/episodes", nil, json.RawMessage(body), &out); err != nil {
			t.Fatal(err)
		}
		if out.Unsearched != tc.want {
			t.Errorf("%s preset under a %s ceiling: unsearched %d, want %d", tc.preset, tc.ceiling, out.Unsearched, tc.want)
		}
	}
}

// TestStranded: a person held by a node that does not own them (stored
// before its peers were set) can be exported, held, forgotten and moved;
// their writes and retrievals still answer 421, and Unowned counts them.
func TestStranded(t *testing.T) {
	ctx := context.Background()
	peers := []string{"n1:1", "n2:1"}
	var theirs string
	for i := 0; theirs == ""; i++ {
		if u := fmt.Sprint("p", i); omoidehttp.Owner(peers, u) == "n2:1" {
			theirs = u
		}
	}
	path := filepath.Join(t.TempDir(), "n1.db")
	before := newNode(t, path, omoide.Config{}, omoidehttp.Config{})
	before.add(t, theirs, "1", "猫の話")
	before.add(t, theirs, "2", "犬の話")
	n := newNode(t, path, omoide.Config{}, omoidehttp.Config{Peers: peers, Upstream: "n1:1"})
	if c, err := omoidehttp.Unowned(ctx, n.mem.Store, peers, "n1:1"); err != nil || c != 1 {
		t.Errorf("Unowned = %d, %v; want 1", c, err)
	}
	hdr := map[string]string{omoidehttp.UserHeader: theirs}
	if code, out := n.raw(t, "POST", "/v1/retrieve", hdr, `{"text":"猫"}`); code != 421 {
		t.Errorf("retrieve of a stranded person: %d %v, want 421", code, out)
	}
	if code, out := n.raw(t, "POST", "/v1/episodes", hdr, `[{"user_text":"x"}]`); code != 421 {
		t.Errorf("a write of a stranded person: %d %v, want 421", code, out)
	}
	if code, out := n.raw(t, "GET", "/v1/users/"+theirs+"/episodes", hdr, ""); code != 200 || len(out.Episodes) != 2 {
		t.Errorf("export of a stranded person: %d %v", code, out)
	}
	if code, out := n.raw(t, "DELETE", "/v1/users/"+theirs+"/episodes/2", hdr, ""); code != 200 {
		t.Errorf("delete of a stranded person's episode: %d %v", code, out)
	}
	// The move: to the owner, through the mover (hold, export, forget).
	owner := newNode(t, "", omoide.Config{}, omoidehttp.Config{Peers: peers, Upstream: "n2:1"})
	if moved, err := (omoidehttp.Mover{From: n.url, To: owner.url}).Move(ctx, theirs); err != nil || moved != 1 {
		t.Fatalf("move a stranded person = %d, %v", moved, err)
	}
	if c, _ := n.mem.Store.Count(ctx, theirs); c != 0 {
		t.Errorf("the stranded copy holds %d episodes after the move", c)
	}
	if c, _ := owner.mem.Store.Count(ctx, theirs); c != 1 {
		t.Errorf("the owner holds %d episodes after the move, want 1", c)
	}
}

// TestExportPageBounded: a page of GET /v1/users/{user}/episodes holds at
// most MaxPageBytes of text, and the client's paging still reads every one.
func TestExportPageBounded(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "", omoide.Config{}, omoidehttp.Config{})
	var eps []episode.Episode
	for i := range 150 {
		eps = append(eps, episode.Episode{User: "u", ExternalID: fmt.Sprint(i), UserText: strings.Repeat("あ", episode.MaxTextBytes/3-10),
			OccurredAt: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)})
	}
	if _, err := n.mem.Store.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	code, out := n.raw(t, "GET", "/v1/users/u/episodes?limit=1000", nil, "")
	page := len(out.Episodes)
	if code != 200 || page == 0 || page >= 150 || out.Next == nil || page*episode.MaxTextBytes > 2*omoidehttp.MaxPageBytes {
		t.Fatalf("a page of 150 episodes of 16 KiB: %d, %d episodes, a next: %v", code, page, out.Next != nil)
	}
	recs, err := omoidehttp.Client{BaseURL: n.url}.Episodes(ctx, "u")
	if err != nil || len(recs) != 150 {
		t.Fatalf("Episodes read %d, %v; want 150", len(recs), err)
	}
}

// TestLegacyNamesOverHTTP: a store holding names stored before the rule
// (testdata/stores/legacy-names.db, made by bfcc12a) exports and forgets
// them over HTTP where a path can carry them, and stores nothing new for
// them.
func TestLegacyNamesOverHTTP(t *testing.T) {
	n := testStoreNode(t, "legacy-names.db")
	for _, u := range []string{"line/U1", "mika ", " mika", `a\b`, "tab\there"} {
		p := url.PathEscape(u)
		if code, out := n.raw(t, "GET", "/v1/users/"+p+"/episodes", nil, ""); code != 200 || len(out.Episodes) != 1 {
			t.Errorf("export %q: %d %v", u, code, out)
		}
		if code, out := n.raw(t, "POST", "/v1/users/"+p+"/episodes", nil, `[{"user_text":"new"}]`); code != 400 {
			t.Errorf("a new episode for %q: %d %v, want 400", u, code, out)
		}
		if code, out := n.raw(t, "DELETE", "/v1/users/"+p, map[string]string{omoidehttp.ForgetHeader: omoidehttp.EncodeUser(u)}, ""); code != 200 || out.Deleted != 1 {
			t.Errorf("forget %q: %d %v", u, code, out)
		}
	}
	if c, _ := n.mem.Store.Count(context.Background(), "mika"); c != 1 {
		t.Errorf("mika holds %d after the others were forgotten, want 1", c)
	}
}

// TestRecordBoundsDescribed: every text field of a record states its bound
// in the API description, as the store enforces it.
func TestRecordBoundsDescribed(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Description string
				Properties  map[string]struct {
					MaxLength   int
					Description string
				}
			}
		}
	}
	if err := json.Unmarshal(omoidehttp.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	rec := doc.Components.Schemas["Record"]
	for field, n := range map[string]int{"id": episode.MaxExternalIDLen, "external_id": episode.MaxExternalIDLen, "user": episode.MaxUserLen,
		"user_text": episode.MaxTextBytes, "reply_text": episode.MaxTextBytes, "source": episode.MaxSourceLen} {
		p := rec.Properties[field]
		if p.MaxLength != n || !strings.Contains(p.Description, fmt.Sprintf("at most %d bytes", n)) {
			t.Errorf("Record.%s: maxLength %d, %q; want %d bytes stated", field, p.MaxLength, p.Description, n)
		}
	}
	if !strings.Contains(rec.Description, fmt.Sprint(episode.MaxRecordBytes)) {
		t.Errorf("Record's description %q does not state the bound of the whole", rec.Description)
	}
}
