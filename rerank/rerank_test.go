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
	o := DefaultOptions()
	// "  abc\r\ndef " compacts to "abc def": abc, "bc ", "c d", " de", def → 5 grams, strength 5/30.
	q := o.QueryGrams("  abc\r\ndef ")
	if q.Len() != 5 {
		t.Fatalf("query grams = %d, want 5", q.Len())
	}
	cands := []Candidate{
		// "abc def" exactly (user + "\n" + "" compacts to "abc def"): Dice 1.
		{ID: 1, RRF: 1.0 / 61, UserText: "abc def", OccurredAt: now.Add(-45 * 24 * time.Hour)},
		// "xyz": Dice 0, never stored (no recency).
		{ID: 2, RRF: 2.0 / 61, UserText: "xyz"},
	}
	got := Score(q, cands, now, o)
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
	o := DefaultOptions()
	q := o.QueryGrams("abc def")
	given := o.EpisodeGrams("abc def", "")
	got := Score(q, []Candidate{
		{ID: 1, RRF: 1, UserText: "xyz", Grams: given},
		{ID: 2, RRF: 1, UserText: "abc def"},
	}, now, o)
	for _, s := range got {
		if !near(s.Lex, 5.0/30) {
			t.Errorf("candidate %d: lex %v, want the full Dice × 5/30", s.ID, s.Lex)
		}
		if s.Grams().Len() != given.Len() {
			t.Errorf("candidate %d: %d grams, want %d", s.ID, s.Grams().Len(), given.Len())
		}
	}
}

func TestScoreFutureEpisodeHasFullRecency(t *testing.T) {
	o := DefaultOptions()
	got := Score(o.QueryGrams("x"), []Candidate{{ID: 1, RRF: 1, UserText: "y", OccurredAt: now.Add(time.Hour)}}, now, o)
	if got[0].Rec != 1 {
		t.Fatalf("rec = %v, want 1 (age clamps at 0)", got[0].Rec)
	}
}

func TestScoreTiesKeepRRFOrder(t *testing.T) {
	o := DefaultOptions()
	cands := []Candidate{{ID: 5, RRF: 1, UserText: "a"}, {ID: 3, RRF: 1, UserText: "b"}, {ID: 4, RRF: 1, UserText: "c"}}
	got := Score(o.QueryGrams("zzz"), cands, now, o)
	for i, want := range []int64{5, 3, 4} {
		if got[i].ID != want {
			t.Fatalf("position %d = %d, want %d", i, got[i].ID, want)
		}
	}
}

func TestSelect(t *testing.T) {
	o := DefaultOptions()
	long := "昨日は駅前の新しいラーメン屋で味噌ラーメンを食べたよ、スープが濃厚でおいしかった"
	tests := []struct {
		name  string
		cands []Candidate
		want  []int64
	}{
		{
			name: "near-copy is skipped, distinct one kept",
			cands: []Candidate{
				{ID: 1, RRF: 3, UserText: long, ReplyText: "いいね！"},
				{ID: 2, RRF: 3, UserText: long, ReplyText: "いいね!"}, // Dice ≥ 0.9 with 1
				{ID: 3, RRF: 3, UserText: "週末は膝が痛くて走れなかった", ReplyText: "無理しないでね"},
			},
			want: []int64{1, 3},
		},
		{
			name: "below medium skipped",
			cands: []Candidate{
				{ID: 1, RRF: 10, UserText: "a"},
				{ID: 2, RRF: 1, UserText: "b"}, // rrf_norm 0.1 → 0.055 < 0.28
			},
			want: []int64{1},
		},
		{
			name: "max results",
			cands: []Candidate{
				{ID: 1, RRF: 1, UserText: "a1"}, {ID: 2, RRF: 1, UserText: "b2"}, {ID: 3, RRF: 1, UserText: "c3"},
				{ID: 4, RRF: 1, UserText: "d4"}, {ID: 5, RRF: 1, UserText: "e5"}, {ID: 6, RRF: 1, UserText: "f6"},
			},
			want: []int64{1, 2, 3, 4, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			picks := Select(Score(o.QueryGrams("ラーメン"), tt.cands, now, o), o)
			if len(picks) != len(tt.want) {
				t.Fatalf("got %d picks, want %v", len(picks), tt.want)
			}
			for i, p := range picks {
				if p.ID != tt.want[i] {
					t.Errorf("pick %d = %d, want %d", i, p.ID, tt.want[i])
				}
				if p.High != (i == 0) {
					t.Errorf("pick %d high = %v", i, p.High)
				}
			}
		})
	}
}

func TestSelectHighGate(t *testing.T) {
	o := DefaultOptions()
	o.High = 0.6 // the top candidate scores 0.55 (rrf_norm 1, no lex, no rec)
	scored := Score(o.QueryGrams("zzz"), []Candidate{{ID: 1, RRF: 1, UserText: "a"}}, now, o)
	if picks := Select(scored, o); picks != nil {
		t.Fatalf("picks = %v, want none below the high threshold", picks)
	}
	o.High = DefaultHigh
	if picks := Select(scored, o); len(picks) != 1 {
		t.Fatalf("reference gate said no to rrf_norm 1: %v", picks)
	}
}

func BenchmarkScore60(b *testing.B) {
	o := DefaultOptions()
	q := o.QueryGrams("User: 最近ずっと膝が痛くてさ\nPersona: 無理しないでね。病院には行った？\n---\nハーフマラソンの練習、再開してもいいかな？")
	cands := make([]Candidate, 60)
	for i := range cands {
		cands[i] = Candidate{ID: int64(i), RRF: 1 / float64(61+i), UserText: "膝の痛みがまだ少しある。来月のハーフマラソンに出られるか不安", ReplyText: "焦らなくて大丈夫。まずは整形外科で診てもらって、ゆっくりジョグから再開しよう。", OccurredAt: now.Add(-time.Duration(i) * 24 * time.Hour)}
	}
	b.ReportAllocs()
	for b.Loop() {
		Select(Score(q, cands, now, o), o)
	}
}

// TestScoreCoverage: WeightCoverage adds the candidate's coverage to Final,
// which can reorder candidates the fused rank put the other way, and the
// reason then shows it; the reference (weight 0) ignores coverage.
func TestScoreCoverage(t *testing.T) {
	q := DefaultOptions().QueryGrams("xyz")
	cands := []Candidate{
		{ID: 1, RRF: 2, UserText: "abc", Coverage: 0.1},
		{ID: 2, RRF: 1.5, UserText: "def", Coverage: 0.9},
	}
	ref := Score(q, cands, now, DefaultOptions())
	if ref[0].ID != 1 || !near(ref[0].Final, 0.55) || ref[0].Reason() != "heuristic rerank: score=0.550 rrf=1.000 lex=0.000 rec=0.000" {
		t.Fatalf("reference: first %d final %v reason %q, want 1, 0.55 and no coverage", ref[0].ID, ref[0].Final, ref[0].Reason())
	}
	o := DefaultOptions()
	o.WeightCoverage = 0.35
	got := Score(q, cands, now, o)
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
	q := DefaultOptions().QueryGrams("xyz")
	cands := []Candidate{
		{ID: 1, RRF: 2, UserText: "abc", Coverage: 0.5, Proximity: 0},
		{ID: 2, RRF: 1.8, UserText: "def", Coverage: 0.5, Proximity: 1},
	}
	if ref := Score(q, cands, now, DefaultOptions()); ref[0].ID != 1 || strings.Contains(ref[0].Reason(), "prox=") {
		t.Fatalf("reference: first %d, reason %q; want 1 and no proximity", ref[0].ID, ref[0].Reason())
	}
	o := DefaultOptions()
	o.WeightCoverage, o.WeightProximity = 0.35, 0.2
	got := Score(q, cands, now, o)
	// 1: 0.55 + 0.175 = 0.725; 2: 0.55·0.9 + 0.175 + 0.2 = 0.87.
	if got[0].ID != 2 || !near(got[0].Final, 0.55*0.9+0.35*0.5+0.2) || !near(got[1].Final, 0.55+0.35*0.5) {
		t.Fatalf("with proximity: %d %v, %d %v; want 2 first at 0.87", got[0].ID, got[0].Final, got[1].ID, got[1].Final)
	}
	if want := "heuristic rerank: score=0.870 rrf=0.900 lex=0.000 rec=0.000 cov=0.500 prox=1.000"; got[0].Reason() != want {
		t.Errorf("reason = %q, want %q", got[0].Reason(), want)
	}
}
