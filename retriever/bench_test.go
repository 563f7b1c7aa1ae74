//go:build cgo

package retriever_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// BenchmarkRetrieve is one retrieval of each preset over a person's 2,000
// episodes (the default's vectors in memory, the reference's by vec0's exact
// scan, as the presets' stores do), with two messages of context:
// the whole pipeline, its CPU and its allocations. cmd/bench latency measures
// the same at scale, with real chat.
func BenchmarkRetrieve(b *testing.B) {
	topics := []string{"ラーメン", "ジョギング", "買い物", "映画", "図書館", "自転車", "京都", "花火", "温泉", "仕事"}
	for _, preset := range []struct {
		name     string
		a        tokenize.Analyzer
		o        retriever.Options
		indexMin int // as omoide.Preset.IndexMin
	}{
		{"reference", tokenize.Raw(), retriever.ReferenceOptions(), -1},
		{"default", tokenize.KagomeSnowball(), retriever.DefaultOptions(), 0},
		{"default-rules", tokenize.KagomeSnowball(), rulesPickAll(), 0}, // the default without its relevance model
	} {
		b.Run(preset.name, func(b *testing.B) {
			h, err := embed.NewHash(embed.HashOptions{})
			if err != nil {
				b.Fatal(err)
			}
			s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "omoide.db"), sqlite.Options{Embedder: h, Analyzer: preset.a, IndexMin: preset.indexMin})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var eps []episode.Episode
			for i := range 2000 {
				t := topics[i%len(topics)]
				eps = append(eps, ep("haruka", fmt.Sprintf("%d回目の%sの話、%sはやっぱり楽しい", i, t, topics[(i*7)%len(topics)]),
					fmt.Sprintf("%sいいね！また%sの話を聞かせて", t, topics[(i*3)%len(topics)]), i%300))
			}
			for from := 0; from < len(eps); from += 500 {
				add(b, s, eps[from:from+500]...)
			}
			r := newRetriever(b, s, preset.o)
			req := retriever.Request{User: "haruka", Text: "この前話した京都の温泉、また行きたいな", Now: now,
				Recent: []retriever.Message{{Role: "user", Content: "今日は仕事が早く終わった"}, {Role: "assistant", Content: "お疲れさま！"}}}
			if res, err := r.Retrieve(ctx, req); err != nil || len(res.Hits) == 0 {
				b.Fatalf("hits %v, err %v", res.Hits, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Retrieve(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRetrieveLongEpisodes is the worst case episode.MaxTextBytes
// allows: a person's 40 episodes, every one a candidate and every one at
// the bound, each read and compared whole; and one at 8 KiB, for the slope.
func BenchmarkRetrieveLongEpisodes(b *testing.B) {
	base := "昨日は鎌倉の大仏を見に行って、そのあと江ノ電に乗って海を見た。ラーメンも食べた。"
	for _, size := range []int{8 << 10, episode.MaxTextBytes - 16} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			s := newStore(b, nil)
			var eps []episode.Episode
			for i := range 40 {
				text := strings.Repeat(fmt.Sprintf("%d番目の話。", i)+base, size/len(base)+1)
				text = strings.ToValidUTF8(text[:size-len("そう")], "")
				eps = append(eps, episode.Episode{User: "u", UserText: text, ReplyText: "そう", OccurredAt: now.Add(-time.Duration(i) * time.Hour)})
			}
			add(b, s, eps...)
			r := newRetriever(b, s, retriever.DefaultOptions())
			req := retriever.Request{User: "u", Text: "鎌倉の大仏どうだったっけ", Recent: []retriever.Message{}, Now: now}
			if res, err := r.Retrieve(ctx, req); err != nil || len(res.Hits) == 0 || res.Trace.Fetched < 25 {
				b.Fatalf("hits %d, fetched %d, err %v", len(res.Hits), res.Trace.Fetched, err)
			}
			for b.Loop() {
				if _, err := r.Retrieve(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
