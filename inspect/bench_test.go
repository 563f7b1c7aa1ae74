package inspect_test

import (
	"fmt"
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
	"github.com/omoide/omoide/retriever"
)

// bigStore returns a memory whose person "haruka" has n episodes and
// beside them people more people of one episode each. Only the first
// thousand are added through the store (analyzed, embedded and indexed);
// the rest are copies of them made in SQL, which the pages read as any
// others (the partitions' counts are kept by triggers) but no search finds.
func bigStore(b *testing.B, n, people int) *omoide.Memory {
	b.Helper()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(b.TempDir(), "memory.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { mem.Close() })
	const base = 1000
	eps := make([]episode.Episode, base)
	for k := range eps {
		eps[k] = episode.Episode{User: "haruka", UserText: fmt.Sprintf("%d回目の話、ラーメン屋に行った", k), ReplyText: "いいね、どこの店？",
			OccurredAt: now.Add(-time.Duration(base-k) * time.Hour)}
		if k%10 == 9 {
			eps[k].Sensitivity = episode.SensitivityPrivate
		}
	}
	if _, err := mem.Add(ctx, eps...); err != nil {
		b.Fatal(err)
	}
	db := mem.Store.DB()
	if n > base {
		if _, err := db.ExecContext(ctx, `WITH RECURSIVE copies(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM copies WHERE k < ?)
			INSERT INTO episodes (user, user_text, reply_text, occurred_at, kind, state, sensitivity, source, vq)
			SELECT user, user_text, reply_text, occurred_at - k * ?, kind, state, sensitivity, source, vq
			FROM copies, episodes WHERE user = 'haruka' ORDER BY k, id`, n/base-1, base*3600); err != nil {
			b.Fatal(err)
		}
	}
	if people > 0 {
		if _, err := db.ExecContext(ctx, `WITH RECURSIVE ps(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM ps WHERE k < ?)
			INSERT INTO episodes (user, user_text, reply_text, occurred_at, kind, state, sensitivity, source, vq)
			SELECT printf('person-%06d', k), user_text, reply_text, occurred_at, kind, state, sensitivity, source, vq
			FROM ps, (SELECT * FROM episodes WHERE user = 'haruka' LIMIT 1)`, people); err != nil {
			b.Fatal(err)
		}
	}
	if c, err := mem.Store.Count(ctx, "haruka"); err != nil || c != max(n, base) {
		b.Fatal(c, err)
	}
	return mem
}

// serve runs the handler on one GET and checks the status.
func serve(b *testing.B, h http.Handler, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Host = "127.0.0.1:8766" // httptest's example.com is no host a tokenless inspector answers
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d\n%s", path, w.Code, w.Body)
	}
	return w
}

// BenchmarkPages: a person's first page with 100,000 memories (the target:
// 50 ms of server time), a page deep among them, the people page and a
// filter over 100,000 people.
func BenchmarkPages(b *testing.B) {
	mem := bigStore(b, 100_000, 100_000)
	h := inspect.New(mem, inspect.Config{Now: func() time.Time { return now }})
	first := serve(b, h, "/ui/people/haruka")
	next := first.Body.String()
	i := strings.Index(next, `rel="next"`)
	j := strings.LastIndex(next[:i], `href="`)
	deep := strings.ReplaceAll(next[j+len(`href="`):i-2], "&amp;", "&")
	for _, bc := range []struct{ name, path string }{
		{"person-first-page-100k", "/ui/people/haruka"},
		{"person-second-page-100k", deep},
		{"person-search-100k", "/ui/people/haruka?q=" + url.QueryEscape("ラーメン屋")},
		{"people-100k", "/ui/"},
		{"people-filter-100k", "/ui/?q=099"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				serve(b, h, bc.path)
			}
		})
	}
}

// BenchmarkAsk: the ask page against the retrieval it draws, on one person
// of a thousand memories: the page costs the retrieval with its
// candidates, and the picture.
func BenchmarkAsk(b *testing.B) {
	mem := bigStore(b, 1000, 0)
	h := inspect.New(mem, inspect.Config{Now: func() time.Time { return now }})
	text := "この前行ったラーメン屋の名前なんだっけ"
	req := retriever.Request{User: "haruka", Text: text, Now: now}
	b.Run("retrieve", func(b *testing.B) {
		for b.Loop() {
			if _, err := mem.Retrieve(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("retrieve-with-candidates", func(b *testing.B) {
		req := req
		req.WithCandidates = true
		for b.Loop() {
			if _, err := mem.Retrieve(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	path := "/ui/ask?" + url.Values{"user": {"haruka"}, "text": {text}}.Encode()
	b.Run("ask-page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve(b, h, path)
		}
	})
}
