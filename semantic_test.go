package omoide_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/rerank"
)

// conceptEmbedder is a semantic embedder nobody fitted a model for: a text's
// vector is the normalised sum of the concepts its words name, so that it
// links what its table says is one thing (バイト and アルバイト) and nothing
// else (野球 and サッカー are two concepts), as a real model would.
type conceptEmbedder struct{ concepts map[string]int }

const conceptDim = 32

func (c conceptEmbedder) Identity() embed.Identity {
	return embed.Identity{Name: "concepts-test", Dim: conceptDim}
}

func (c conceptEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, conceptDim)
		v[conceptDim-1] = 0.3 // what every text shares: chat
		for w, k := range c.concepts {
			if strings.Contains(t, w) {
				v[k]++
			}
		}
		n := float32(0)
		for _, x := range v {
			n += x * x
		}
		n = float32(math.Sqrt(float64(n)))
		for j := range v {
			v[j] /= n
		}
		out[i] = v
	}
	return out, nil
}

// TestSemanticEmbedderDecides: for a semantic embedder no model was fitted
// for, the semantic-embedder model decides (rerank.DefaultSemanticModel),
// and it trusts what the embedder links: a memory asked about in other
// words, sharing no word with the message, is injected; a sibling the
// embedder keeps apart (サッカー for 野球), and a topic the memory never
// held, are declined.
func TestSemanticEmbedderDecides(t *testing.T) {
	emb := conceptEmbedder{concepts: map[string]int{
		"アルバイト": 0, "バイト": 0, "野球": 1, "サッカー": 2, "引っ越し": 3, "新居": 3, "ラーメン": 4, "猫": 5, "映画": 6,
		"試験": 7, "テスト": 7, "雨": 8, "旅行": 9, "ピアノ": 10, "誕生日": 11,
	}}
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "s.db"), Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	day := time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC)
	texts := [][2]string{
		{"駅前のカフェでアルバイトを始めたよ", "接客がんばってね"},
		{"週末に野球を見に行った", "どっちが勝った？"},
		{"新居の荷ほどきがやっと終わった", "お疲れさま！"},
		{"駅前の店のラーメンがおいしかった", "また行きたいね"},
		{"猫が窓辺で昼寝していた", "気持ちよさそう"},
		{"映画館で話題の映画を見た", "どうだった？"},
		{"来週は大事な試験がある", "応援してる"},
		{"雨で洗濯物が乾かない", "部屋干しだね"},
		{"夏休みの旅行の計画を立てた", "楽しみだね"},
		{"ピアノの練習を再開した", "楽しんでね"},
	}
	var eps []omoide.Episode
	for i, tx := range texts {
		eps = append(eps, omoide.Episode{User: "aoi", ExternalID: string(rune('a' + i)), UserText: tx[0], ReplyText: tx[1], OccurredAt: day.AddDate(0, 0, -10*i)})
	}
	if _, err := mem.Add(context.Background(), eps...); err != nil {
		t.Fatal(err)
	}
	sem, err := rerank.DefaultSemanticModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want string // the external id injected first; "" for none
	}{
		{"バイトのほうはどうなった？", "a"}, // other words, linked by the embedder and the thesaurus
		{"サッカーの試合はどうだった？", ""}, // a sibling the embedder keeps apart
		{"プレゼン資料はどうなった？", ""},  // a topic the memory never held
		{"来月の出張どうなるかな", ""},    // the same, with a light verb a reply shares

	} {
		res, err := mem.Retrieve(context.Background(), omoide.Request{User: "aoi", Text: tt.text, Recent: []omoide.Message{}, Now: day.AddDate(0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Trace.Decision, "semantic-embedder relevance model") || !strings.Contains(res.Trace.Decision, sem.FittedFor()) && sem.FittedFor() != rerank.AnySemantic {
			t.Fatalf("decision %q, want the semantic-embedder model", res.Trace.Decision)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Episode.ExternalID)
		}
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%q injects %v, want nothing (%s)", tt.text, got, res.Trace.Declined)
		case tt.want != "" && (len(got) == 0 || got[0] != tt.want):
			t.Errorf("%q injects %v, want %s first (%s, p %.3f)", tt.text, got, tt.want, res.Trace.Declined, res.Trace.Probability)
		case tt.want != "" && slices.Contains(got[1:], tt.want):
			t.Errorf("%q injects %v: the memory twice", tt.text, got)
		}
	}
}
