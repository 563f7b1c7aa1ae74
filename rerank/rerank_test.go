package rerank

import (
	"math"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2025, 12, 21, 0, 0, 0, 0, time.UTC)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestScoreParts(t *testing.T) {
	o := ReferenceOptions()
	// "  abc\r\ndef " compacts to "abc def": abc, "bc ", "c d", " de", def → 5 grams, strength 5/30.
	q := o.Ngrams.Query("  abc\r\ndef ")
	if q.Len() != 5 {
		t.Fatalf("query grams = %d, want 5", q.Len())
	}
	cands := []Candidate{
		// "abc def" exactly (user + "\n" + "" compacts to "abc def"): Dice 1.
		{ID: 1, Parts: Parts{RRF: 1.0 / 61}, UserText: "abc def", OccurredAt: now.Add(-45 * 24 * time.Hour)},
		// "xyz": Dice 0, never stored (no recency).
		{ID: 2, Parts: Parts{RRF: 2.0 / 61}, UserText: "xyz"},
	}
	got := Score(Query{Grams: q}, cands, now, o)
	if got[0].ID != 2 || got[1].ID != 1 {
		t.Fatalf("order = %d,%d, want 2,1", got[0].ID, got[1].ID)
	}
	// Candidate 2: rrf_norm 1, lex 0, rec 0 → 0.55.
	if !near(got[0].Final, 0.55) || got[0].Lex != 0 || got[0].Rec != 0 {
		t.Errorf("cand 2 = %+v", got[0])
	}
	// Candidate 1: rrf_norm 0.5, lex 1·5/30, rec e^-1.
	c := got[1]
	if !near(c.RRFNorm, 0.5) || !near(c.Lex, 5.0/30) || !near(c.Rec, math.Exp(-1)) {
		t.Errorf("cand 1 parts = %v %v %v", c.RRFNorm, c.Lex, c.Rec)
	}
	if want := 0.55*0.5 + 0.35*5.0/30 + 0.10*math.Exp(-1); !near(c.Final, want) {
		t.Errorf("cand 1 final = %v, want %v", c.Final, want)
	}
	if c.Reason() != "heuristic rerank: score=0.370 rrf=0.500 lex=0.167 rec=0.368" {
		t.Errorf("reason = %q", c.Reason())
	}
}

// TestScoreUsesGivenGrams: a candidate's precomputed n-grams are the ones
// scored and returned; without them Score makes them from the texts.
func TestScoreUsesGivenGrams(t *testing.T) {
	o := ReferenceOptions()
	q := o.Ngrams.Query("abc def")
	given := o.Ngrams.Episode("abc def", "")
	got := Score(Query{Grams: q}, []Candidate{
		{ID: 1, Parts: Parts{RRF: 1}, UserText: "xyz", Grams: given},
		{ID: 2, Parts: Parts{RRF: 1}, UserText: "abc def"},
	}, now, o)
	for _, s := range got {
		if !near(s.Lex, 5.0/30) {
			t.Errorf("candidate %d: lex %v, want the full Dice × 5/30", s.ID, s.Lex)
		}
		if s.Grams.Len() != given.Len() {
			t.Errorf("candidate %d: %d grams, want %d", s.ID, s.Grams.Len(), given.Len())
		}
	}
}

func TestScoreFutureEpisodeHasFullRecency(t *testing.T) {
	o := ReferenceOptions()
	got := Score(Query{Grams: o.Ngrams.Query("x")}, []Candidate{{ID: 1, Parts: Parts{RRF: 1}, UserText: "y", OccurredAt: now.Add(time.Hour)}}, now, o)
	if got[0].Rec != 1 {
		t.Fatalf("rec = %v, want 1 (age clamps at 0)", got[0].Rec)
	}
}

func TestScoreTiesKeepRRFOrder(t *testing.T) {
	o := ReferenceOptions()
	cands := []Candidate{{ID: 5, Parts: Parts{RRF: 1}, UserText: "a"}, {ID: 3, Parts: Parts{RRF: 1}, UserText: "b"}, {ID: 4, Parts: Parts{RRF: 1}, UserText: "c"}}
	got := Score(Query{Grams: o.Ngrams.Query("zzz")}, cands, now, o)
	for i, want := range []int64{5, 3, 4} {
		if got[i].ID != want {
			t.Fatalf("position %d = %d, want %d", i, got[i].ID, want)
		}
	}
}

func TestSelect(t *testing.T) {
	o := ReferenceOptions()
	long := "昨日は駅前の新しいラーメン屋で味噌ラーメンを食べたよ、スープが濃厚でおいしかった"
	tests := []struct {
		name  string
		cands []Candidate
		want  []int64
	}{
		{
			name: "near-copy is skipped, distinct one kept",
			cands: []Candidate{
				{ID: 1, Parts: Parts{RRF: 3}, UserText: long, ReplyText: "いいね！"},
				{ID: 2, Parts: Parts{RRF: 3}, UserText: long, ReplyText: "いいね!"}, // Dice ≥ 0.9 with 1
				{ID: 3, Parts: Parts{RRF: 3}, UserText: "週末は膝が痛くて走れなかった", ReplyText: "無理しないでね"},
			},
			want: []int64{1, 3},
		},
		{
			name: "below medium skipped",
			cands: []Candidate{
				{ID: 1, Parts: Parts{RRF: 10}, UserText: "a"},
				{ID: 2, Parts: Parts{RRF: 1}, UserText: "b"}, // rrf_norm 0.1 → 0.055 < 0.28
			},
			want: []int64{1},
		},
		{
			name: "max results",
			cands: []Candidate{
				{ID: 1, Parts: Parts{RRF: 1}, UserText: "a1"}, {ID: 2, Parts: Parts{RRF: 1}, UserText: "b2"}, {ID: 3, Parts: Parts{RRF: 1}, UserText: "c3"},
				{ID: 4, Parts: Parts{RRF: 1}, UserText: "d4"}, {ID: 5, Parts: Parts{RRF: 1}, UserText: "e5"}, {ID: 6, Parts: Parts{RRF: 1}, UserText: "f6"},
			},
			want: []int64{1, 2, 3, 4, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			picks := Select(Score(Query{Grams: o.Ngrams.Query("ラーメン")}, tt.cands, now, o), o.Select)
			if len(picks) != len(tt.want) {
				t.Fatalf("got %d picks, want %v", len(picks), tt.want)
			}
			for i, p := range picks {
				if p.ID != tt.want[i] {
					t.Errorf("pick %d = %d, want %d", i, p.ID, tt.want[i])
				}
				if (p.Relevance == High) != (i == 0) {
					t.Errorf("pick %d relevance = %v", i, p.Relevance)
				}
			}
		})
	}
}

func TestSelectHighGate(t *testing.T) {
	o := ReferenceOptions()
	o.Select.High = 0.6 // the top candidate scores 0.55 (rrf_norm 1, no lex, no rec)
	scored := Score(Query{Grams: o.Ngrams.Query("zzz")}, []Candidate{{ID: 1, Parts: Parts{RRF: 1}, UserText: "a"}}, now, o)
	if picks := Select(scored, o.Select); picks != nil {
		t.Fatalf("picks = %v, want none below the high threshold", picks)
	}
	o.Select.High = DefaultHigh
	if picks := Select(scored, o.Select); len(picks) != 1 {
		t.Fatalf("reference gate said no to rrf_norm 1: %v", picks)
	}
}

func BenchmarkScore60(b *testing.B) {
	o := ReferenceOptions()
	q := o.Ngrams.Query("User: 最近ずっと膝が痛くてさ\nPersona: 無理しないでね。病院には行った？\n---\nハーフマラソンの練習、再開してもいいかな？")
	cands := make([]Candidate, 60)
	for i := range cands {
		cands[i] = Candidate{ID: int64(i), Parts: Parts{RRF: 1 / float64(61+i)}, UserText: "膝の痛みがまだ少しある。来月のハーフマラソンに出られるか不安", ReplyText: "焦らなくて大丈夫。まずは整形外科で診てもらって、ゆっくりジョグから再開しよう。", OccurredAt: now.Add(-time.Duration(i) * 24 * time.Hour)}
	}
	b.ReportAllocs()
	for b.Loop() {
		Select(Score(Query{Grams: q}, cands, now, o), o.Select)
	}
}

// TestScoreCoverage: WeightCoverage adds the candidate's coverage to Final,
// which can reorder candidates the fused rank put the other way, and the
// reason then shows it; the reference (weight 0) ignores coverage.
func TestScoreCoverage(t *testing.T) {
	q := ReferenceOptions().Ngrams.Query("xyz")
	cands := []Candidate{
		{ID: 1, UserText: "abc", Parts: Parts{RRF: 2, Coverage: 0.1}},
		{ID: 2, UserText: "def", Parts: Parts{RRF: 1.5, Coverage: 0.9}},
	}
	ref := Score(Query{Grams: q}, cands, now, ReferenceOptions())
	if ref[0].ID != 1 || !near(ref[0].Final, 0.55) || ref[0].Reason() != "heuristic rerank: score=0.550 rrf=1.000 lex=0.000 rec=0.000" {
		t.Fatalf("reference: first %d final %v reason %q, want 1, 0.55 and no coverage", ref[0].ID, ref[0].Final, ref[0].Reason())
	}
	o := ReferenceOptions()
	o.Weights.Coverage = 0.35
	got := Score(Query{Grams: q}, cands, now, o)
	// 1: 0.55 + 0.35·0.1 = 0.585; 2: 0.55·0.75 + 0.35·0.9 = 0.7275.
	if got[0].ID != 2 || !near(got[0].Final, 0.55*0.75+0.35*0.9) || !near(got[1].Final, 0.55+0.35*0.1) {
		t.Fatalf("with coverage: %d %v, %d %v; want 2 first at 0.7275", got[0].ID, got[0].Final, got[1].ID, got[1].Final)
	}
	if want := "heuristic rerank: score=0.728 rrf=0.750 lex=0.000 rec=0.000 cov=0.900"; got[0].Reason() != want {
		t.Errorf("reason = %q, want %q", got[0].Reason(), want)
	}
}

// TestScoreProximity: WeightProximity adds the candidate's proximity to
// Final, and the reason then shows it beside the coverage; the reference
// (weight 0) ignores proximity.
func TestScoreProximity(t *testing.T) {
	q := ReferenceOptions().Ngrams.Query("xyz")
	cands := []Candidate{
		{ID: 1, UserText: "abc", Parts: Parts{RRF: 2, Coverage: 0.5, Proximity: 0}},
		{ID: 2, UserText: "def", Parts: Parts{RRF: 1.8, Coverage: 0.5, Proximity: 1}},
	}
	if ref := Score(Query{Grams: q}, cands, now, ReferenceOptions()); ref[0].ID != 1 || strings.Contains(ref[0].Reason(), "prox=") {
		t.Fatalf("reference: first %d, reason %q; want 1 and no proximity", ref[0].ID, ref[0].Reason())
	}
	o := ReferenceOptions()
	o.Weights.Coverage, o.Weights.Proximity = 0.35, 0.2
	got := Score(Query{Grams: q}, cands, now, o)
	// 1: 0.55 + 0.175 = 0.725; 2: 0.55·0.9 + 0.175 + 0.2 = 0.87.
	if got[0].ID != 2 || !near(got[0].Final, 0.55*0.9+0.35*0.5+0.2) || !near(got[1].Final, 0.55+0.35*0.5) {
		t.Fatalf("with proximity: %d %v, %d %v; want 2 first at 0.87", got[0].ID, got[0].Final, got[1].ID, got[1].Final)
	}
	if want := "heuristic rerank: score=0.870 rrf=0.900 lex=0.000 rec=0.000 cov=0.500 prox=1.000"; got[0].Reason() != want {
		t.Errorf("reason = %q, want %q", got[0].Reason(), want)
	}
}

// cand is a candidate with a fused score and a text.
func cand(id int64, rrf float64, text string) Candidate {
	return Candidate{ID: id, UserText: text, Parts: Parts{RRF: rrf}}
}

// TestFuse: BM25 lists weigh 1, vector lists the semantic or the lexical
// weight, and a list of weight 0 brings nothing.
func TestFuse(t *testing.T) {
	f := Fusion{K: 60, KNNWeight: 1, LexicalKNNWeight: 0.1}
	lists := []List{{IDs: []int64{1, 2}, Vector: true}, {IDs: []int64{3, 1}}}
	sem := f.Fuse(lists, false)
	if len(sem) != 3 || sem[0].ID != 1 || !near(sem[0].Score, 1.0/61+1.0/62) || !near(sem[1].Score, 1.0/61) || sem[1].ID != 3 {
		t.Fatalf("semantic: %v", sem)
	}
	lex := f.Fuse(lists, true)
	if lex[0].ID != 1 || !near(lex[0].Score, 0.1/61+1.0/62) || lex[1].ID != 3 || !near(lex[2].Score, 0.1/62) {
		t.Fatalf("lexical: %v", lex)
	}
	f.LexicalKNNWeight = 0
	if got := f.Fuse(lists, true); len(got) != 2 || f.VectorWeight(true) != 0 {
		t.Fatalf("weight 0: %v, want the BM25 list's ids only", got)
	}
	f.MaxCandidates = 1
	if got := f.Fuse(lists, false); len(got) != 1 {
		t.Fatalf("MaxCandidates 1: %v", got)
	}
}

// TestFinalAndRescore: Final is the weighted sum of the parts plus the window
// weight inside the window; Rescore under other weights gives what Score
// gives under them, in the same order, raises undone.
func TestFinalAndRescore(t *testing.T) {
	w := Weights{RRF: 0.5, Lex: 0.2, Recency: 0.1, Coverage: 0.3, Proximity: 0.2, Window: 0.15}
	p := Parts{RRFNorm: 0.5, Lex: 0.25, Rec: 1, Coverage: 0.4, Proximity: 0.5}
	if got, want := w.Final(p), 0.5*0.5+0.2*0.25+0.1+0.3*0.4+0.2*0.5; !near(got, want) {
		t.Errorf("Final %v, want %v", got, want)
	}
	p.InWindow = true
	if got, want := w.Final(p), 0.5*0.5+0.2*0.25+0.1+0.3*0.4+0.2*0.5+0.15; !near(got, want) {
		t.Errorf("Final in the window %v, want %v", got, want)
	}
	o := ReferenceOptions()
	q := Query{Grams: o.Ngrams.Query("駅前のラーメン屋")}
	cands := []Candidate{cand(1, 3, "駅前のラーメン屋に行った"), cand(2, 2, "ラーメン"), cand(3, 1, "天気がいい"), cand(4, 1, "駅前")}
	cands[2].Coverage, cands[3].InWindow = 1, true
	scored := Score(q, cands, now, o)
	scored[2].Final, scored[2].Raised = 9, true // as a neighbour's raise would
	other := o
	other.Weights = Weights{RRF: 0.1, Lex: 0.1, Coverage: 1, Window: 0.5}
	want := Score(q, cands, now, other)
	got := Rescore(scored, other.Weights)
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Final != want[i].Final || got[i].Raised {
			t.Fatalf("position %d: rescored %d %v raised %v, scored %d %v", i, got[i].ID, got[i].Final, got[i].Raised, want[i].ID, want[i].Final)
		}
	}
	if got[0].ID != 4 && got[0].ID != 3 {
		t.Errorf("with coverage and window weights, first %d: want 3 or 4", got[0].ID)
	}
}

// TestNeighbors: the neighbours of the anchors within the gap rise to the
// share of their anchor's score, anchors never do, and the neighbours of the
// first Fetch anchors that are not candidates are wanted, then added at their
// floor when near.
func TestNeighbors(t *testing.T) {
	at := func(min int) time.Time { return now.Add(time.Duration(min) * time.Minute) }
	mk := func(id int64, final float64, min int) Scored {
		return Scored{Candidate: Candidate{ID: id, OccurredAt: at(min)}, Final: final}
	}
	nb := Neighbors{Share: 0.9, Fetch: 1, Gap: time.Hour}
	scored := []Scored{mk(1, 1.0, 0), mk(2, 0.8, 500), mk(3, 0.2, 2), mk(4, 0.1, 600), mk(5, 0.1, 502)}
	if n := nb.Anchors(scored, 2); n != 2 {
		t.Fatalf("anchors %d, want 2", n)
	}
	// 1's neighbours: 3 (2 minutes on) and 9 (not a candidate); 2's: 1 (an
	// anchor), 4 (100 minutes away) and 5 (2 minutes on).
	want := nb.Raise(scored, [][2]int64{{9, 3}, {1, 4}})
	if scored[2].Final != 0.9 || !scored[2].Raised || scored[0].Final != 1 || scored[3].Raised {
		t.Fatalf("raised: %+v", scored)
	}
	if len(want) != 1 || want[0].ID != 9 || want[0].Floor != 0.9 || !want[0].Anchor.Equal(at(0)) {
		t.Fatalf("wanted %+v, want 9 at floor 0.9", want)
	}
	fetched := []Scored{mk(9, 0.3, -3), mk(8, 0.5, 1)} // 8 was not wanted
	out := nb.Add(scored, want, fetched)
	if len(out) != 6 || out[0].ID != 1 || out[1].ID != 3 || out[2].ID != 9 || !out[2].Added || out[2].Final != 0.9 || out[3].ID != 2 {
		t.Fatalf("added: %+v", out)
	}
	// A wanted neighbour more than the gap from its anchor is not added.
	if out := nb.Add(scored[:2], want, []Scored{mk(9, 0.3, -90)}); len(out) != 2 {
		t.Fatalf("a neighbour 90 minutes away was added: %+v", out)
	}
	// Share 0 raises and wants nothing.
	if w := (Neighbors{Fetch: 1}).Raise([]Scored{mk(1, 1, 0), mk(3, 0.1, 1)}, [][2]int64{{9, 3}}); w != nil {
		t.Fatalf("share 0 wanted %v", w)
	}
}

// TestGateDecline: the gate admits on coverage, cosine or the time window
// among the first Depth candidates, declines names the memory never held,
// and the zero Gate admits everything.
func TestGateDecline(t *testing.T) {
	mk := func(cov, cos float64, in bool) Scored {
		return Scored{Candidate: Candidate{Parts: Parts{Coverage: cov, Cosine: cos, InWindow: in}}}
	}
	weak := []Scored{mk(0.1, 0.1, false), mk(0.2, 0.2, false), mk(0.5, 0.6, false)}
	tests := []struct {
		name    string
		g       Gate
		scored  []Scored
		unknown []string
		decline bool
	}{
		{"zero gate", Gate{}, weak, nil, false},
		{"zero gate, unknown names unchecked", Gate{}, weak, []string{"carolin"}, false},
		{"coverage within depth", Gate{MinCoverage: 0.4, Depth: 3}, weak, nil, false},
		{"coverage beyond depth", Gate{MinCoverage: 0.4, Depth: 2}, weak, nil, true},
		{"depth 0 looks at all", Gate{MinCoverage: 0.4}, weak, nil, false},
		{"cosine", Gate{MinCosine: 0.55, Depth: 3}, weak, nil, false},
		{"neither", Gate{MinCoverage: 0.9, MinCosine: 0.9}, weak, nil, true},
		{"the window admits", Gate{MinCoverage: 0.9}, append([]Scored{mk(0, 0, true)}, weak...), nil, false},
		{"unknown names", Gate{UnknownNames: true}, weak, []string{"carolin"}, true},
		{"nothing to decline", Gate{MinCoverage: 0.9, UnknownNames: true}, nil, []string{"carolin"}, false},
	}
	for _, tt := range tests {
		if why := tt.g.Decline(tt.scored, tt.unknown); (why != "") != tt.decline {
			t.Errorf("%s: Decline = %q, want decline %v", tt.name, why, tt.decline)
		}
	}
	if why := (Gate{MinCoverage: 0.9, Depth: 2}).Decline(weak, nil); !strings.Contains(why, "first 2") {
		t.Errorf("reason %q does not say how deep the gate looked", why)
	}
}

// TestSelectZeroRule: zero thresholds and a zero dedupe pick everything up to
// MaxResults, near-copies included.
func TestSelectZeroRule(t *testing.T) {
	o := ReferenceOptions()
	cands := []Candidate{cand(1, 1, "同じ文章です"), cand(2, 1, "同じ文章です"), cand(3, 0.01, "違う")}
	scored := Score(Query{Grams: o.Ngrams.Query("x")}, cands, now, o)
	if got := Select(scored, o.Select); len(got) != 1 {
		t.Fatalf("reference: %d picks, want 1 (the copy deduped, the weak one below medium)", len(got))
	}
	if got := Select(scored, Selection{MaxResults: 2}); len(got) != 2 || got[1].ID != 2 || got[1].Relevance != Medium {
		t.Fatalf("zero thresholds and dedupe: %+v, want the first two", got)
	}
}

// TestValidate: negative values and unset required fields are named; the
// presets are valid.
func TestValidate(t *testing.T) {
	for _, o := range []Options{ReferenceOptions(), DefaultOptions()} {
		if err := o.Validate(); err != nil {
			t.Errorf("preset: %v", err)
		}
	}
	bad := DefaultOptions()
	bad.Gate.Depth = -1
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "Gate.Depth") {
		t.Errorf("negative depth: %v", err)
	}
	bad = DefaultOptions()
	bad.Select.MaxResults = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "Select.MaxResults") {
		t.Errorf("no results: %v", err)
	}
}

// TestZeroStrength: FullStrength 0 gives a short query full strength.
func TestZeroStrength(t *testing.T) {
	o := ReferenceOptions()
	o.Ngrams.FullStrength = 0
	got := Score(Query{Grams: o.Ngrams.Query("abc def")}, []Candidate{cand(1, 1, "abc def")}, now, o)
	if !near(got[0].Lex, 1) {
		t.Fatalf("lex %v, want the full Dice 1", got[0].Lex)
	}
}
