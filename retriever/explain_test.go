//go:build cgo

package retriever_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// TestWhyNot: for any episode, a retrieval says where it stood in each
// search and what removed it: injected, an echo of the recent turns, another
// person's, too private for the filter, found by no search, not stored.
func TestWhyNot(t *testing.T) {
	s := newStore(t, nil)
	ids := seed(t, s)
	private := ep("haruka", "ラーメン屋の店長に告白された", "えっ！", 35)
	private.Sensitivity = episode.SensitivityPrivate
	privID := add(t, s, private)[0]
	r := newRetriever(t, s, retriever.DefaultOptions())
	req := retriever.Request{User: "haruka", Text: "この前のラーメン屋、また行きたいな", Now: now,
		Recent: []retriever.Message{{Role: "user", Content: "膝が痛くて今日のジョギングは休んだ"}, {Role: "assistant", Content: "無理しないでね。病院には行った？"}}}
	for _, c := range []struct {
		name string
		id   int64
		why  string
		fate rerank.Fate
	}{
		{"injected", ids[0], "injected (high)", rerank.FateInjected},
		{"an echo of the recent turns", ids[1], "already in the recent conversation", rerank.FateEcho},
		{"another person's", ids[3], "episode " + strconv.FormatInt(ids[3], 10) + " is not haruka's", 0},
		{"too private", privID, "it is private, and this retrieval searches episodes up to normal", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := req
			req.WithCandidates = true
			res, err := r.Retrieve(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			st, err := r.WhyNot(ctx, req, res, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(st.Why, c.why) || st.Verdict.Fate != c.fate {
				t.Errorf("why %q, fate %v; want %q, %v", st.Why, st.Verdict.Fate, c.why, c.fate)
			}
			if len(st.Ranks) != len(res.Searches.Arms) || len(res.Searches.Arms) == 0 {
				t.Fatalf("ranks %v for arms %d", st.Ranks, len(res.Searches.Arms))
			}
			if c.fate == rerank.FateInjected && (st.Candidate != 1 || st.Fused == 0 || st.Ranks[0] == 0) {
				t.Errorf("the injected episode stood %+v, want first candidate, fused, found by the first search", st)
			}
			if c.fate == 0 && (st.Candidate != 0 || st.Fused != 0) {
				t.Errorf("an episode no search may find stood %+v", st)
			}
		})
	}
	if _, err := r.WhyNot(ctx, req, retriever.Result{}, 999999); !errors.Is(err, episode.ErrNotFound) || !strings.Contains(err.Error(), "999999") {
		t.Errorf("an id the store does not hold: %v, want ErrNotFound naming it", err)
	}
	// Every candidate carries a verdict; only the hits are injected.
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "ラーメン", Now: now, Recent: []retriever.Message{}, WithCandidates: true})
	if err != nil {
		t.Fatal(err)
	}
	injected := 0
	for _, c := range res.Candidates {
		if c.Verdict.Fate == 0 || c.Verdict.Why == "" {
			t.Errorf("candidate %d has no verdict", c.Episode.ID)
		}
		if c.Verdict.Fate == rerank.FateInjected {
			injected++
		}
	}
	if injected != len(res.Hits) {
		t.Errorf("%d candidates injected, %d hits", injected, len(res.Hits))
	}
	// An episode that holds none of a BM25 search's terms is found by none.
	lib := add(t, s, ep("haruka", "図書館で小説を借りた", "どんな話？", 2))[0]
	o := retriever.DefaultOptions()
	o.Vector.K = 0
	r = newRetriever(t, s, o)
	req = retriever.Request{User: "haruka", Text: "ラーメン", Now: now, Recent: []retriever.Message{}, WithCandidates: true}
	if res, err = r.Retrieve(ctx, req); err != nil {
		t.Fatal(err)
	}
	st, err := r.WhyNot(ctx, req, res, lib)
	if err != nil {
		t.Fatal(err)
	}
	if want := "no search found it: bm25 q1 found 1, every episode holding its terms, and it holds none"; st.Why != want {
		t.Errorf("why %q, want %q", st.Why, want)
	}
}
