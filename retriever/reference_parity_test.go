package retriever

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/tokenize"
)

// parityCase is one case of testdata/reference/oracle.json: the original
// retriever's own outputs for one input (testdata/reference/README.md).
type parityCase struct {
	Label      string `json:"label"` // an edge case's name; "" for a generated case
	Now        int64  `json:"now"`
	Candidates []struct {
		ID         int64  `json:"id"`
		UserText   string `json:"user_text"`
		ReplyText  string `json:"reply_text"`
		OccurredAt int64  `json:"occurred_at"`
	} `json:"candidates"`
	Lists     [][]int64   `json:"lists"`
	Messages  [][2]string `json:"messages"`
	Message   string      `json:"message"`
	Context   string      `json:"context"` // the formatted recent conversation
	Query     string      `json:"query"`
	BM25Query string      `json:"bm25_query"`
	Fused     [][2]any    `json:"fused"`
	Scored    [][5]any    `json:"scored"`
	Picks     []int64     `json:"picks"`
	Reasons   []string    `json:"reasons"`
}

type rawStore struct{ Store }

func (rawStore) Analyzer() tokenize.Analyzer { return tokenize.Raw() }

func (rawStore) Embedder() embed.Embedder { return nil }

func pyFloat(t *testing.T, v any) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(v.(string), 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReferenceParity checks the reference preset against the original
// retriever's outputs float for float: context formatting, the BM25 query, RRF
// with its tie order, the rerank's parts and order, the selection and the
// reasons.
func TestReferenceParity(t *testing.T) {
	b, err := os.ReadFile("../testdata/reference/oracle.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []parityCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	r, err := New(rawStore{}, ReferenceOptions())
	if err != nil {
		t.Fatal(err)
	}
	o := r.opts
	for i, c := range cases {
		var msgs []Message
		for _, m := range c.Messages {
			msgs = append(msgs, Message{Role: m[0], Content: m[1]})
		}
		name := fmt.Sprintf("case %d", i)
		if c.Label != "" {
			name += " (" + c.Label + ")"
		}
		q := r.queries(r.store.Analyzer(), c.Message, msgs)
		if want := c.Message; c.Context != "" {
			want = c.Context + ContextSeparator + c.Message
			if c.Query != want {
				t.Fatalf("%s: the oracle's query %q is not its context and message", name, c.Query)
			}
		}
		if got := q.rerank; got != c.Query {
			t.Fatalf("%s: query %q, original %q", name, got, c.Query)
		}
		terms := q.terms[len(q.terms)-1]
		if got := tokenize.MatchQuery(terms[:min(len(terms), o.BM25.MaxTerms)]); got != c.BM25Query {
			t.Fatalf("%s: bm25 query %q, original %q", name, got, c.BM25Query)
		}

		lists := make([]rerank.List, len(c.Lists))
		for j, l := range c.Lists {
			lists[j] = rerank.List{IDs: l, Vector: j < len(c.Lists)/2} // the vector lists first, as the retriever fuses them
		}
		fused := o.Rank.Fusion.Fuse(lists, false)
		if len(fused) != len(c.Fused) {
			t.Fatalf("%s: %d fused, original %d", name, len(fused), len(c.Fused))
		}
		var cands []rerank.Candidate
		for j, f := range fused {
			if f.ID != int64(c.Fused[j][0].(float64)) || f.Score != pyFloat(t, c.Fused[j][1]) {
				t.Fatalf("%s: fused[%d] = %v, original %v", name, j, f, c.Fused[j])
			}
			for _, e := range c.Candidates {
				if e.ID == f.ID {
					at := time.Time{}
					if e.OccurredAt > 0 {
						at = time.Unix(e.OccurredAt, 0)
					}
					cands = append(cands, rerank.Candidate{ID: e.ID, UserText: e.UserText, ReplyText: e.ReplyText, OccurredAt: at, Parts: rerank.Parts{RRF: f.Score}})
				}
			}
		}
		scored := rerank.Score(rerank.Query{Grams: o.Rank.Ngrams.Query(q.rerank)}, cands, time.Unix(c.Now, 0), o.Rank)
		if len(scored) != len(c.Scored) {
			t.Fatalf("%s: %d scored, original %d", name, len(scored), len(c.Scored))
		}
		for j, s := range scored {
			want := c.Scored[j]
			got := [5]float64{float64(s.ID), s.Final, s.RRFNorm, s.Lex, s.Rec}
			for k := 1; k < 5; k++ {
				// rrf_norm and lex are exact; rec goes through exp, where Go's
				// math.Exp and C's libm may differ in the last bit, and final
				// inherits that.
				ulps := 0.0
				if k == 1 || k == 4 {
					ulps = 2
				}
				if w := pyFloat(t, want[k]); math.Abs(got[k]-w) > ulps*ulp(w) {
					t.Fatalf("%s: scored[%d] = %v, original %v", name, j, got, want)
				}
			}
			if s.ID != int64(want[0].(float64)) {
				t.Fatalf("%s: scored[%d] is %d, original %v", name, j, s.ID, want[0])
			}
		}
		var picks []int64
		var reasons []string
		for _, p := range rerank.Select(scored, o.Rank.Select) {
			picks = append(picks, p.ID)
			reasons = append(reasons, p.Reason())
		}
		if !slices.Equal(picks, c.Picks) || !slices.Equal(reasons, c.Reasons) {
			t.Fatalf("%s: picks %v %q, original %v %q", name, picks, reasons, c.Picks, c.Reasons)
		}
	}
}

func ulp(x float64) float64 { return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x) }
