package omoide

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/wordvec"
)

// learnCorpus returns episodes of haruka and kenta: normal ones of cat and
// tea for both, of ball for kenta only, and haruka's private piano, secret
// diary and archived guitar, each often enough to get a vector if learned
// from.
func learnCorpus() []episode.Episode {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var eps []episode.Episode
	add := func(user, text, reply string, edit func(*episode.Episode)) {
		e := episode.Episode{User: user, ExternalID: fmt.Sprint(len(eps)), UserText: text, ReplyText: reply, OccurredAt: at}
		if edit != nil {
			edit(&e)
		}
		eps = append(eps, e)
	}
	for range 6 {
		add("haruka", "cat tea", "tea cat", nil)
		add("kenta", "tea cat", "cat tea", nil)
		add("kenta", "ball tea", "cat ball", func(e *episode.Episode) { e.Kind = episode.KindFact })
		add("haruka", "piano cat", "tea piano", func(e *episode.Episode) { e.Sensitivity = episode.SensitivityPrivate })
		add("haruka", "diary cat", "tea diary", func(e *episode.Episode) { e.Sensitivity = episode.SensitivitySecret })
		add("haruka", "guitar cat", "tea guitar", func(e *episode.Episode) { e.State = episode.StateArchived })
	}
	return eps
}

func TestVectorLearner(t *testing.T) {
	defer func(n int) { learnPage = n }(learnPage)
	learnPage = 4 // pages of people and of episodes end inside and at a page
	ctx := context.Background()
	mem, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "m.db"), Analyzer: tokenize.Raw()})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	eps := learnCorpus()
	if _, err := mem.Add(ctx, eps...); err != nil {
		t.Fatal(err)
	}
	// Three more people of one episode each, so that the people take pages.
	for _, u := range []string{"a", "b", "c"} {
		if _, err := mem.Add(ctx, episode.Episode{User: u, ExternalID: "x", UserText: "cat", ReplyText: "tea", OccurredAt: eps[0].OccurredAt}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		people []string
		store  bool
		want   LearnCounts
		has    []string
		lacks  []string
	}{
		{"episodes", nil, false, LearnCounts{Read: 36, Learned: 18, Unsearched: 18}, []string{"cat", "tea", "ball"}, []string{"piano", "diary", "guitar"}},
		{"episodes of haruka", []string{"haruka"}, false, LearnCounts{Read: 36, Learned: 6, Unsearched: 18, OtherPeople: 12}, []string{"cat", "tea"}, []string{"ball", "piano", "diary", "guitar"}},
		{"store", nil, true, LearnCounts{Read: 39, Learned: 21, Unsearched: 18}, []string{"cat", "tea", "ball"}, []string{"piano", "diary", "guitar"}},
		{"store of kenta and c", []string{"kenta", "c"}, true, LearnCounts{Read: 39, Learned: 13, Unsearched: 18, OtherPeople: 8}, []string{"cat", "tea", "ball"}, []string{"piano", "diary", "guitar"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewVectorLearner(tokenize.Raw(), wordvec.Options{Dim: 2, MinCount: 1}, tc.people)
			if err != nil {
				t.Fatal(err)
			}
			if tc.store {
				err = v.ReadStore(ctx, mem.Store)
			} else {
				for i := 0; i < len(eps) && err == nil; i += 5 { // in batches, as ingest gives them
					_, err = v.Put(ctx, false, eps[i:min(i+5, len(eps))]...)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Counts(); got != tc.want {
				t.Errorf("counts %+v, want %+v", got, tc.want)
			}
			vecs, err := v.Learn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p := vecs.Params(); p.Exchanges != tc.want.Learned || p.Analyzer != "raw" {
				t.Errorf("learned from %d exchanges of %s, want %d of raw", p.Exchanges, p.Analyzer, tc.want.Learned)
			}
			for _, w := range append(tc.has, tc.lacks...) {
				if _, got := vecs.Lookup(w); got != slices.Contains(tc.has, w) {
					t.Errorf("%s has a vector: %v, want %v (learned only from what the default search admits, of the people named)", w, got, !got)
				}
			}
		})
	}
}

func TestVectorLearnerRefuses(t *testing.T) {
	ctx := context.Background()
	if _, err := NewVectorLearner(tokenize.Raw(), wordvec.Options{Dim: -1}, nil); err == nil {
		t.Error("Dim -1 accepted")
	}
	v, err := NewVectorLearner(tokenize.Raw(), wordvec.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := v.Put(cancelled, false, learnCorpus()...); err == nil {
		t.Error("Put learned under a cancelled context")
	}
	if _, err := v.Learn(ctx); err == nil {
		t.Error("Learn learned from nothing")
	}
}
