package inspect_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/inspect"
)

var (
	ctx = context.Background()
	now = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
)

// hostile is an episode text that would run a script if it were not escaped.
const hostile = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`

// People of the test store: a CJK name, and a name holding what paths and
// queries treat specially.
const (
	haruka = "はるか"
	odd    = "50% off?#x y"
)

// fixture is a store of a few people's memories and an inspector over it.
type fixture struct {
	mem *omoide.Memory
	h   *inspect.Handler
	srv *httptest.Server
	ids map[string]int64 // by external id
}

// newFixture stores the memories and serves the inspector with cfg.
func newFixture(t testing.TB, cfg inspect.Config) *fixture {
	t.Helper()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "memory.db")})
	if err != nil {
		t.Fatal(err)
	}
	at := func(days int) time.Time { return now.AddDate(0, 0, -days) }
	eps := []episode.Episode{
		{User: haruka, ExternalID: "ramen", UserText: "駅前の新しいラーメン屋で味噌ラーメンを食べたよ", ReplyText: "いいね！濃厚だった？", OccurredAt: at(40)},
		{User: haruka, ExternalID: "knee", UserText: "膝が痛くて今日のジョギングは休んだ", ReplyText: "無理しないでね。病院には行った？", OccurredAt: at(30)},
		{User: haruka, ExternalID: "shopping", UserText: "姉と週末に買い物に行く予定", ReplyText: "楽しんできてね！", OccurredAt: at(20)},
		{User: haruka, ExternalID: "hostile", UserText: hostile, ReplyText: "それは何？", OccurredAt: at(15)},
		{User: haruka, ExternalID: "cat", UserText: "猫のこむぎが熱を出して病院に連れて行った", ReplyText: "心配だね、早く良くなりますように", OccurredAt: at(10)},
		{User: haruka, ExternalID: "secret", UserText: "ラーメン屋の店長に告白された、誰にも言わないで", ReplyText: "内緒にするね", OccurredAt: at(5), Sensitivity: episode.SensitivitySecret},
		{User: haruka, ExternalID: "private", UserText: "実は転職を考えている", ReplyText: "そうなんだ", OccurredAt: at(4), Sensitivity: episode.SensitivityPrivate},
		{User: "kenta", ExternalID: "camp", UserText: "息子とキャンプでラーメンを作った", ReplyText: "外で食べるラーメンは格別ですね", OccurredAt: at(12)},
		{User: odd, ExternalID: "bike", UserText: "新しい自転車を買った", ReplyText: "どこまで走ったの？", OccurredAt: at(3)},
		{User: "mei", ExternalID: "library", UserText: "図書館で小説を借りた", ReplyText: "どんな話？", OccurredAt: at(2)},
	}
	ids, err := mem.Add(ctx, eps...)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{mem: mem, ids: map[string]int64{}}
	for i, e := range eps {
		f.ids[e.ExternalID] = ids[i]
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return now }
	}
	f.h = inspect.New(mem, cfg)
	f.srv = httptest.NewServer(f.h)
	t.Cleanup(func() { f.srv.Close(); mem.Close() })
	return f
}

// get fetches path and returns the status and body, following no redirect.
func (f *fixture) get(t testing.TB, path string, header ...string) (int, string, http.Header) {
	t.Helper()
	return f.do(t, http.MethodGet, path, nil, header...)
}

// post sends a form to path as a same-origin browser would.
func (f *fixture) post(t testing.TB, path string, form url.Values, header ...string) (int, string, http.Header) {
	t.Helper()
	return f.do(t, http.MethodPost, path, form, append([]string{"Sec-Fetch-Site", "same-origin"}, header...)...)
}

func (f *fixture) do(t testing.TB, method, path string, form url.Values, header ...string) (int, string, http.Header) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1] // the client sends req.Host, not a Host header
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b), res.Header
}

// personURL is the path of a person's page, the name percent-encoded.
func personURL(name string) string { return "/ui/people/" + url.PathEscape(name) }
