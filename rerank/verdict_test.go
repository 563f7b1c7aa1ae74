package rerank

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestExplain: each ranked candidate is told what the decision did with it,
// in words that name the number that decided.
func TestExplain(t *testing.T) {
	o := ReferenceOptions()
	long := "昨日は駅前の新しいラーメン屋で味噌ラーメンを食べたよ、スープが濃厚でおいしかった"
	cands := []Candidate{
		{ID: 1, Parts: Parts{RRF: 3}, UserText: long, ReplyText: "いいね！"},
		{ID: 2, Parts: Parts{RRF: 3}, UserText: long, ReplyText: "いいね!"}, // a near-copy of 1
		{ID: 3, Parts: Parts{RRF: 3}, UserText: "週末は膝が痛くて走れなかった", ReplyText: "無理しないでね"},
		{ID: 4, Parts: Parts{RRF: 3}, UserText: "猫を飼い始めた", ReplyText: "名前は？"},
		{ID: 5, Parts: Parts{RRF: 0.1}, UserText: "天気"},
	}
	scored := Score(Query{Grams: o.Ngrams.Query("ラーメン")}, cands, now, o)
	in := Inject{Model: &Model{}, Threshold: 0.5, Level: 0.2, MaxPicks: 2, Depth: 4}
	probs := []float64{0.9, 0.9, 0.3, 0.25}
	o.Inject = in
	fate := func(vs []Verdict, sc []Scored, id int64) Verdict {
		return vs[slices.IndexFunc(sc, func(s Scored) bool { return s.ID == id })]
	}
	picks, declined, vs := o.Explain(scored, nil, func() []float64 { return probs })
	if declined != "" || len(picks) != 2 {
		t.Fatalf("picks %d, declined %q: want 2", len(picks), declined)
	}
	for _, c := range []struct {
		id   int64
		fate Fate
		why  string
	}{
		{1, FateInjected, "probability 0.900 reaches the level 0.20"},
		{2, FateDuplicate, "near-copy of episode 1"},
		{3, FateInjected, "0.300"},
		{4, FateOverBudget, "2 picks"},
		{5, FateUnjudged, "first 4 candidates"},
	} {
		v := fate(vs, scored, c.id)
		if v.Fate != c.fate || !strings.Contains(v.Why, c.why) {
			t.Errorf("episode %d: %v %q, want %v with %q", c.id, v.Fate, v.Why, c.fate, c.why)
		}
	}
	if v := fate(vs, scored, 2); v.Of != 1 {
		t.Errorf("duplicate of %d, want 1", v.Of)
	}
	// Below the level; and a retrieval the model declines declines each.
	_, _, vs = o.Explain(scored, nil, func() []float64 { return []float64{0.9, 0.1, 0.1, 0.1} })
	if v := fate(vs, scored, 3); v.Fate != FateBelowLevel || !strings.Contains(v.Why, "0.100 is below the level 0.20") {
		t.Errorf("episode 3: %v %q, want below-level", v.Fate, v.Why)
	}
	picks, declined, vs = o.Explain(scored, nil, func() []float64 { return []float64{0.1, 0.1, 0.1, 0.1} })
	if picks != nil || declined == "" {
		t.Fatalf("picks %d, declined %q: want declined", len(picks), declined)
	}
	for i, v := range vs {
		if v.Fate != FateDeclined || !strings.Contains(v.Why, declined) {
			t.Errorf("candidate %d: %v %q, want declined: %s", i, v.Fate, v.Why, declined)
		}
	}
	// The rules: below medium, and a first pick below high picks nothing.
	o.Inject = Inject{}
	_, _, vs = o.Explain(scored, nil, nil)
	if v := fate(vs, scored, 5); v.Fate != FateBelowMedium || !strings.Contains(v.Why, "below the medium threshold") {
		t.Errorf("episode 5: %v %q, want below-medium", v.Fate, v.Why)
	}
	o.Select.High = 10
	_, _, vs = o.Explain(scored, nil, nil)
	if v := fate(vs, scored, 1); v.Fate != FateFirstBelowHigh {
		t.Errorf("episode 1: %v %q, want first-below-high", v.Fate, v.Why)
	}
}

// TestExplainDecides: Explain picks what Decide picks, whatever the
// candidates, and gives every candidate a verdict, injected for exactly the
// picks.
func TestExplainDecides(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"ラーメン", "膝", "猫", "天気", "旅行", "仕事", "映画"}
	for trial := range 300 {
		o := ReferenceOptions()
		n := rng.IntN(12)
		cands := make([]Candidate, n)
		for i := range cands {
			cands[i] = Candidate{ID: int64(i + 1), Parts: Parts{RRF: rng.Float64(), Coverage: rng.Float64()},
				UserText: words[rng.IntN(len(words))] + words[rng.IntN(len(words))]}
		}
		scored := Score(Query{Grams: o.Ngrams.Query("ラーメン")}, cands, now, o)
		var probs func() []float64
		if trial%2 == 0 {
			o.Inject = Inject{Model: &Model{}, Threshold: rng.Float64() / 2, Level: rng.Float64() / 3, MaxPicks: rng.IntN(4), Depth: 1 + rng.IntN(10)}
			ps := make([]float64, min(n, o.Inject.Depth))
			for i := range ps {
				ps[i] = rng.Float64()
			}
			probs = func() []float64 { return ps }
		}
		want, wantWhy := o.Decide(scored, nil, probs)
		got, why, vs := o.Explain(scored, nil, probs)
		if why != wantWhy || len(got) != len(want) {
			t.Fatalf("trial %d: Explain %d picks %q, Decide %d %q", trial, len(got), why, len(want), wantWhy)
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Relevance != want[i].Relevance {
				t.Fatalf("trial %d: pick %d differs", trial, i)
			}
		}
		for i, v := range vs {
			picked := slices.ContainsFunc(got, func(p Pick) bool { return p.ID == scored[i].ID })
			if v.Fate == 0 || v.Why == "" || (v.Fate == FateInjected) != picked {
				t.Fatalf("trial %d: candidate %d (picked %v): verdict %v %q", trial, i, picked, v.Fate, v.Why)
			}
		}
	}
}

func TestFateText(t *testing.T) {
	for f := FateInjected; f <= FateEcho; f++ {
		b, err := f.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Fate
		if err := back.UnmarshalText(b); err != nil || back != f {
			t.Errorf("%v: round trip %v, %v", f, back, err)
		}
	}
	if _, err := Fate(0).MarshalText(); err == nil {
		t.Error("Fate(0) has a name")
	}
	var f Fate
	if err := f.UnmarshalText([]byte("picked")); err == nil || !strings.Contains(err.Error(), `"picked"`) {
		t.Errorf("unknown fate: %v", err)
	}
}
