//go:build cgo

package retriever

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// TestUserAndContextCoverage: a message term held only in the companion's
// reply counts in coverage but not in user coverage; a term of the recent
// turns counts in context coverage only, never in the message's.
func TestUserAndContextCoverage(t *testing.T) {
	// the message: 熱 下がる; the recent turns: 病院
	w := &termWeights{terms: []string{"下がる", "熱", "病院"}, weights: []float64{0.5, 1.5, 0.7},
		light: []bool{false, false, false}, context: []bool{false, false, true}, next: []int{-1, 0, -1}}
	w.sum, w.ctxSum = 2.0, 0.7
	w.keys, w.owner = []string{"下がる", "熱", "病院"}, []int{0, 1, 2}
	for _, tt := range []struct {
		name                    string
		held                    episode.Terms
		cover, user, ctxCover   float64
		wantHeldFever, wantDown bool
	}{
		{"in the user text", episode.Terms{User: []string{"熱", "病院"}}, 1.5 / 2, 1.5 / 2, 1, true, false},
		{"only in the reply", episode.Terms{User: []string{"仕事"}, Reply: []string{"熱", "下がる"}}, 1, 0, 0, true, true},
		{"split", episode.Terms{User: []string{"下がる"}, Reply: []string{"熱"}}, 1, 0.5 / 2, 0, true, true},
		{"the context alone", episode.Terms{User: []string{"病院"}}, 0, 0, 1, false, false},
		{"the context in the reply", episode.Terms{User: []string{"仕事"}, Reply: []string{"病院"}}, 0, 0, 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w.content = 1<<0 | 1<<1
			var sc matchScratch
			m := w.match(tt.held, true, &sc)
			if math.Abs(m.coverage-tt.cover) > 1e-9 || math.Abs(m.userCoverage-tt.user) > 1e-9 || math.Abs(m.contextCoverage-tt.ctxCover) > 1e-9 {
				t.Errorf("coverage %.3f, user %.3f, context %.3f; want %.3f, %.3f, %.3f", m.coverage, m.userCoverage, m.contextCoverage, tt.cover, tt.user, tt.ctxCover)
			}
			if got := m.held&(1<<1) != 0; got != tt.wantHeldFever {
				t.Errorf("held 熱 = %v, want %v", got, tt.wantHeldFever)
			}
			if got := m.held&(1<<0) != 0; got != tt.wantDown {
				t.Errorf("held 下がる = %v, want %v", got, tt.wantDown)
			}
			if m.held&(1<<2) != 0 {
				t.Errorf("a context term is in held: %b", m.held)
			}
		})
	}
}

// TestWithoutTimeTerms: the words of the message's time expression leave
// its terms (the window says when), unless nothing would be left.
func TestWithoutTimeTerms(t *testing.T) {
	for _, tt := range []struct {
		msg, ctx, time, wantMsg, wantCtx []string
	}{
		{[]string{"今日", "寒い"}, []string{"今日", "寒い", "コート"}, []string{"今日"}, []string{"寒い"}, []string{"寒い", "コート"}},
		{[]string{"去年", "夏", "旅行"}, nil, []string{"去年", "夏"}, []string{"旅行"}, nil},
		{[]string{"昨日"}, nil, []string{"昨日"}, []string{"昨日"}, nil}, // nothing else: kept
		{[]string{"熱", "下がる"}, nil, nil, []string{"熱", "下がる"}, nil},
	} {
		q := queryTexts{terms: [][]string{slices.Clone(tt.msg)}}
		if tt.ctx != nil {
			q.terms = append(q.terms, slices.Clone(tt.ctx))
		}
		q.withoutTimeTerms(tt.time)
		if !slices.Equal(q.terms[0], tt.wantMsg) || tt.ctx != nil && !slices.Equal(q.terms[1], tt.wantCtx) {
			t.Errorf("%q without %q: %q, want %q and %q", tt.msg, tt.time, q.terms, tt.wantMsg, tt.wantCtx)
		}
	}
}

// TestStanding: the one memory holding the message's rarest word stands
// alone; of two memories of one topic, the older has a newer one.
func TestStanding(t *testing.T) {
	s := weightsStore(t, 3)
	day := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	_, err := s.Add(context.Background(), []episode.Episode{
		{User: "aoi", ExternalID: "move", UserText: "高円寺から三鷹に引っ越した", ReplyText: "新しい街はどう？", OccurredAt: day.AddDate(0, -6, 0)},
		{User: "aoi", ExternalID: "curry", UserText: "高円寺のカレー屋さんが閉店してた", ReplyText: "残念だね", OccurredAt: day.AddDate(0, -8, 0)},
		{User: "aoi", ExternalID: "coffee3", UserText: "コーヒーを一日三杯飲んでる", ReplyText: "飲みすぎ注意", OccurredAt: day.AddDate(-1, 0, 0)},
		{User: "aoi", ExternalID: "coffee0", UserText: "コーヒーやめた！", ReplyText: "すごい", OccurredAt: day.AddDate(0, -1, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	parts := func(text string, recent ...Message) map[string][4]float64 {
		res, err := r.Retrieve(context.Background(), Request{User: "aoi", Text: text, Now: day, Recent: append([]Message{}, recent...), WithCandidates: true})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][4]float64{}
		for _, c := range res.Candidates {
			out[c.Episode.ExternalID] = [4]float64{c.Alone, c.Newer, c.Rarity, c.ContextCoverage}
		}
		return out
	}
	p := parts("三鷹って住みやすい？")
	if p["move"][0] != 1 || p["curry"][0] != 0 {
		t.Errorf("三鷹: alone of the move %v, of the curry %v; want 1 and 0", p["move"][0], p["curry"][0])
	}
	if p["move"][2] < 0.9 {
		t.Errorf("三鷹, which one memory holds: rarity %v, want near 1", p["move"][2])
	}
	p = parts("やっぱりそっちにした", Message{Role: "user", Content: "高円寺のカレー屋さん、また行こうかな"}, Message{Role: "assistant", Content: "どこにするの？"})
	if p["curry"][3] == 0 || p["curry"][3] <= p["move"][3] {
		t.Errorf("a turn leaning on the curry talk: context coverage of the curry %v, of the move %v", p["curry"][3], p["move"][3])
	}
	p = parts("高円寺のカレーまだ好き？")
	if p["curry"][0] != 1 || p["move"][0] != 0 {
		t.Errorf("高円寺のカレー: alone of the curry %v (カレー is its alone), of the move %v", p["curry"][0], p["move"][0])
	}
	p = parts("コーヒーまだ飲んでる？")
	if p["coffee3"][1] == 0 || p["coffee0"][1] != 0 {
		t.Errorf("コーヒー: newer of the older %v, of the newer %v; want > 0 and 0", p["coffee3"][1], p["coffee0"][1])
	}
}

// TestTimeWordsNotSearched: a time expression that sets the window is not
// searched as a word too.
func TestTimeWordsNotSearched(t *testing.T) {
	s := weightsStore(t, 3)
	r, err := New(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ text, want, not string }{
		{"今日は熱があってつらい", `"熱"`, `"今日"`},
		{"去年の夏の旅行どうだった", `"旅行"`, `"去年"`},
	} {
		res, err := r.Retrieve(context.Background(), Request{User: "aoi", Text: tt.text, Now: now, Recent: []Message{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Trace.Window == "" || len(res.Trace.BM25Match) == 0 {
			t.Fatalf("%s: no window (%q) or no BM25 query", tt.text, res.Trace.Window)
		}
		if m := res.Trace.BM25Match[0]; !strings.Contains(m, tt.want) || strings.Contains(m, tt.not) {
			t.Errorf("%s: BM25 query %s, want %s in it and not %s", tt.text, m, tt.want, tt.not)
		}
	}
}

// TestReplyDiscount: a message term held only in the reply loses
// Options.ReplyDiscount of its weight in coverage; in the user text it keeps
// all of it.
func TestReplyDiscount(t *testing.T) {
	w := &termWeights{terms: []string{"下がる", "熱"}, weights: []float64{0.5, 1.5}, light: []bool{false, false},
		next: []int{-1, 0}, sum: 2, keys: []string{"下がる", "熱"}, owner: []int{0, 1}, content: 3, replyDiscount: 0.5}
	for _, tt := range []struct {
		held  episode.Terms
		cover float64
	}{
		{episode.Terms{User: []string{"熱", "下がる"}}, 1},
		{episode.Terms{Reply: []string{"熱", "下がる"}}, 0.5},
		{episode.Terms{User: []string{"熱"}, Reply: []string{"下がる"}}, (1.5 + 0.25) / 2},
	} {
		var sc matchScratch
		if m := w.match(tt.held, true, &sc); math.Abs(m.coverage-tt.cover) > 1e-9 {
			t.Errorf("%+v: coverage %.3f, want %.3f", tt.held, m.coverage, tt.cover)
		}
		// a summary or fact written as the reply is all the memory says
		if m := w.match(tt.held, false, &sc); math.Abs(m.coverage-1) > 1e-9 {
			t.Errorf("%+v, no companion's reply: coverage %.3f, want 1", tt.held, m.coverage)
		}
	}
	for _, tt := range []struct {
		e    episode.Episode
		want bool
	}{
		{episode.Episode{UserText: "熱がある", ReplyText: "お大事に"}, true},
		{episode.Episode{UserText: "熱がある", ReplyText: "お大事に", Kind: episode.KindEpisode}, true},
		{episode.Episode{ReplyText: "要約: 熱が続いた", Kind: episode.KindSummary}, false},
		{episode.Episode{UserText: "熱がある", Kind: episode.KindFact}, false},
		{episode.Episode{ReplyText: "通知: 熱を測る時間", Kind: episode.KindEpisode}, false},
	} {
		if got := companionReply(tt.e); got != tt.want {
			t.Errorf("companionReply(%+v) = %v, want %v", tt.e, got, tt.want)
		}
	}
}
