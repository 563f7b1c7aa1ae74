//go:build cgo

package retriever_test

import (
	"path/filepath"
	"testing"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// TestUnseenWords (issue 42, item 6): a word the memory never saw is evidence
// against it, and a light verb or function word (なる, 了, 吗) covers
// nothing alone. In a three-memory store, 「来月の引っ越しどうなるかな」 and
// 「プレゼン資料はどうなった？」 share only なる with the fever memory and
// inject nothing; a Chinese message that shares only 了 and 吗 injects
// nothing; a Korean one-syllable noun with its particle (눈은) finds the
// memory that says 눈이. The positive controls share a content word and find
// their memory.
func TestUnseenWords(t *testing.T) {
	stores := map[string][]episode.Episode{
		"ja": {
			ep("aoi", "昨日から熱があって病院に行った", "早く良くなるといいね", 3),
			ep("aoi", "新しい自転車を買ったよ", "どこまで走るの？", 2),
			ep("aoi", "週末はずっとゲームしてた", "何のゲーム？", 1),
		},
		"zh": {
			ep("aoi", "我昨天发烧了，去医院了", "早点好起来吧", 3),
			ep("aoi", "买了一辆新自行车", "骑去哪里了？", 2),
			ep("aoi", "周末一直在玩游戏", "玩得开心吗？", 1),
		},
		"ko": {
			ep("aoi", "오늘 눈이 많이 와서 출근이 힘들었어", "조심해서 다녀", 3),
			ep("aoi", "새 가방을 샀어", "무슨 색이야?", 2),
			ep("aoi", "주말에 친구랑 게임했어", "재밌었겠다", 1),
		},
	}
	ids := map[string][]int64{}
	rs := map[string]*retriever.Retriever{}
	for name, eps := range stores {
		// the default model's embedder (omoide.NewHashEmbedder) and analyzer
		h, err := embed.NewHash(embed.HashOptions{Terms: tokenize.Kagome().Terms})
		if err != nil {
			t.Fatal(err)
		}
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), name+".db"), sqlite.Options{Embedder: h})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ids[name] = add(t, s, eps...)
		rs[name] = newRetriever(t, s, retriever.DefaultOptions())
	}
	for _, tt := range []struct {
		store, text string
		want        int // the memory that must be injected first, -1 for none
	}{
		{"ja", "来月の引っ越しどうなるかな", -1},
		{"ja", "プレゼン資料はどうなった？", -1},
		{"ja", "熱はもう下がった？", 0},
		{"ja", "自転車でどこまで走ったっけ", 1},
		{"zh", "考试考完了吗？", -1},
		{"zh", "新自行车骑得怎么样？", 1},
		{"ko", "눈은 그쳤어?", 0},
		{"ko", "가방은 마음에 들어?", 1},
	} {
		res, err := rs[tt.store].Retrieve(ctx, retriever.Request{User: "aoi", Text: tt.text, Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if res.Trace.Skipped != "" {
			t.Fatalf("%s: skipped (%s): the case tests nothing", tt.text, res.Trace.Skipped)
		}
		switch {
		case tt.want < 0 && len(res.Hits) > 0:
			t.Errorf("%s: injected %q (%s), want nothing", tt.text, res.Hits[0].Episode.UserText, res.Hits[0].Reason)
		case tt.want >= 0 && (len(res.Hits) == 0 || res.Hits[0].Episode.ID != ids[tt.store][tt.want]):
			t.Errorf("%s: hits %d (trace %+v), want %q first", tt.text, len(res.Hits), res.Trace, stores[tt.store][tt.want].UserText)
		}
	}
}
