//go:build cgo

package retriever_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/retriever"
)

// topicVectors give a text's terms the direction of their topic: food
// (ラーメン, 味噌), the body (膝, 痛い, ジョギング), anything else none.
type topicVectors struct{ analyzer string }

func (v topicVectors) Analyzer() string { return v.analyzer }

// Near gives 麺 the neighbour ラーメン (cosine 0.8) and 恋しい the common
// word 食べる, which maxShare leaves out.
func (v topicVectors) Near(term string, k int, min, maxShare float64) []string {
	switch {
	case term == "麺" && k > 0 && min <= 0.8:
		return []string{"ラーメン"}
	case term == "恋しい" && k > 0 && maxShare == 0:
		return []string{"食べる"}
	}
	return nil
}

func (v topicVectors) TermsVector(terms []string) []float32 {
	var food, body float32
	for _, t := range terms {
		switch {
		case strings.Contains(t, "ラーメン") || t == "味噌" || t == "麺":
			food++
		case t == "膝" || t == "痛い" || t == "ジョギング" || t == "足":
			body++
		}
	}
	if food == 0 && body == 0 {
		return nil
	}
	n := float32(1) / float32(max(food, body)) // not unit: the test checks the sign and order only
	return []float32{food * n, body * n}
}

// TestMeaning: with Options.Meaning each candidate's Parts.Meaning is the
// cosine of its terms' vector with the message's, weighed by
// Rank.Weights.Meaning and shown in the reason; vectors of another
// analyzer's terms are refused; without it nothing is measured.
func TestMeaning(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	req := retriever.Request{User: "haruka", Text: "麺が食べたい、膝も痛い", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
	o := retriever.DefaultOptions()
	base, err := newRetriever(t, s, o).Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range base.Candidates {
		if c.Meaning != 0 {
			t.Fatalf("without Options.Meaning: %q has meaning %v", c.Episode.UserText, c.Meaning)
		}
	}
	o.Meaning = topicVectors{analyzer: s.Analyzer().Name()}
	o.Rank.Weights.Meaning = 0.5
	res, err := newRetriever(t, s, o).Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	meaning := map[string]float64{}
	for _, c := range res.Candidates {
		meaning[c.Episode.UserText] = c.Meaning
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits with meaning")
	}
	for _, h := range res.Hits {
		if !strings.Contains(h.Reason, "meaning=") {
			t.Errorf("reason %q does not show the meaning", h.Reason)
		}
	}
	ramen, knee := meaning["駅前の新しいラーメン屋で味噌ラーメンを食べたよ"], meaning["膝が痛くて今日のジョギングは休んだ"]
	if ramen <= 0 || knee <= 0 || meaning["姉と週末に買い物に行く予定"] != 0 {
		t.Errorf("meanings %v: want both topics above 0, the shopping 0", meaning)
	}
	scores := func(r retriever.Result) []float64 {
		var out []float64
		for _, c := range r.Candidates {
			out = append(out, c.Score)
		}
		return out
	}
	if slices.Equal(scores(base), scores(res)) {
		t.Error("Rank.Weights.Meaning changed no score")
	}
	o.Meaning = topicVectors{analyzer: "another"}
	if _, err := retriever.New(s, o); err == nil || !strings.Contains(err.Error(), "analyzer another") {
		t.Errorf("vectors of another analyzer: %v", err)
	}
	o.Meaning, o.Rank.Weights.Meaning = nil, -1
	if _, err := retriever.New(s, o); err == nil || !strings.Contains(err.Error(), "Weights.Meaning") {
		t.Errorf("a negative meaning weight: %v", err)
	}
}

// TestExpansion: with Options.Expansion the message's terms' neighbours are
// searched too, and an episode holding only a neighbour (ラーメン for 麺)
// gets the expanded list's share of the fused score; without Meaning the
// option is refused.
func TestExpansion(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	req := retriever.Request{User: "haruka", Text: "麺が恋しい", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
	rrf := func(o retriever.Options) float64 {
		t.Helper()
		res, err := newRetriever(t, s, o).Retrieve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Candidates {
			if strings.Contains(c.Episode.UserText, "味噌ラーメン") {
				return c.RRF
			}
		}
		return 0
	}
	o := retriever.DefaultOptions()
	o.Meaning = topicVectors{analyzer: s.Analyzer().Name()}
	before := rrf(o)
	o.Expansion = retriever.Expansion{Neighbours: 2, MinCosine: 0.5, MaxTermShare: 0.01}
	o.Rank.Fusion.ExpansionWeight = 1
	after := rrf(o)
	if after <= before {
		t.Errorf("the ramen episode's fused score: %v without expansion, %v with: want it raised by the expanded list", before, after)
	}
	o.Meaning = nil
	if _, err := retriever.New(s, o); err == nil || !strings.Contains(err.Error(), "Expansion needs Meaning") {
		t.Errorf("Expansion without Meaning: %v", err)
	}
}
