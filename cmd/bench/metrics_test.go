package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/rerank"
)

func set(ids ...string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Two relevant episodes, r1 at rank 2 and r2 at rank 6.
var (
	ranked   = []string{"x1", "r1", "x2", "x3", "x4", "r2", "x5", "x6", "x7", "x8", "x9"}
	relevant = set("r1", "r2")
)

func TestRecallAt(t *testing.T) {
	for _, c := range []struct {
		k    int
		want float64
	}{
		{1, 0},   // neither in the top 1
		{5, 0.5}, // r1 of the two in the top 5
		{10, 1},  // both in the top 10
	} {
		if got := recallAt(ranked, relevant, c.k); !near(got, c.want) {
			t.Errorf("R@%d = %v, want %v", c.k, got, c.want)
		}
	}
	if got := recallAt(ranked, set(), 5); got != 0 {
		t.Errorf("R@5 with nothing relevant = %v, want 0", got)
	}
	if got := recallAt([]string{"r2"}, relevant, 5); !near(got, 0.5) {
		t.Errorf("R@5 of a short list = %v, want 0.5", got)
	}
}

func TestMRRAt(t *testing.T) {
	if got := mrrAt(ranked, relevant, 10); !near(got, 0.5) { // first relevant at rank 2
		t.Errorf("MRR@10 = %v, want 1/2", got)
	}
	if got := mrrAt([]string{"a", "b", "r2"}, relevant, 10); !near(got, 1.0/3) {
		t.Errorf("MRR@10 = %v, want 1/3", got)
	}
	if got := mrrAt(ranked, set("x9"), 10); got != 0 { // rank 11: outside the top 10
		t.Errorf("MRR@10 beyond rank 10 = %v, want 0", got)
	}
}

func TestNDCGAt(t *testing.T) {
	// DCG = 1/log2(2+1) + 1/log2(6+1) = 0.6309297535714575 + 0.3562071871080222
	// IDCG (two relevant at ranks 1 and 2) = 1/log2(2) + 1/log2(3) = 1 + 0.6309297535714575
	want := (0.6309297535714575 + 0.3562071871080222) / (1 + 0.6309297535714575) // 0.6052602440527057
	if got := ndcgAt(ranked, relevant, 10); !near(got, want) || !near(got, 0.6052602440527057) {
		t.Errorf("nDCG@10 = %v, want %v", got, want)
	}
	// One relevant at rank 3: (1/log2(4)) / 1 = 0.5.
	if got := ndcgAt([]string{"a", "b", "r"}, set("r"), 10); !near(got, 0.5) {
		t.Errorf("nDCG@10 = %v, want 0.5", got)
	}
	// Both at the top: 1.
	if got := ndcgAt([]string{"r2", "r1", "x"}, relevant, 10); !near(got, 1) {
		t.Errorf("nDCG@10 = %v, want 1", got)
	}
	// The ideal DCG counts at most k relevant: 12 relevant, all in the top 10 that exist.
	many := set("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l")
	if got := ndcgAt([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, many, 10); !near(got, 1) {
		t.Errorf("nDCG@10 with more relevant than k = %v, want 1", got)
	}
}

func TestAggregate(t *testing.T) {
	outs := []outcome{
		// Relevant in the top 5 and among the picks, injected.
		{relevant: set("r"), ranked: []string{"r", "x"}, picked: []string{"r"}, inject: true},
		// Relevant at rank 6, injected with a wrong pick.
		{relevant: set("r"), ranked: []string{"a", "b", "c", "d", "e", "r"}, picked: []string{"a"}, inject: true},
		// Relevant at rank 1, not injected.
		{relevant: set("r"), ranked: []string{"r"}, inject: false},
		// Nothing relevant: one of four injected.
		{relevant: set(), ranked: []string{"a"}, picked: []string{"a"}, inject: true},
		{relevant: set(), ranked: []string{"a"}},
		{relevant: set(), ranked: []string{"a"}},
		{relevant: set()},
	}
	q := aggregate(outs)
	if q.N != 3 || q.N0 != 4 || q.Queries != 7 {
		t.Fatalf("counts: %+v", q)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"R@1", q.R1, 2.0 / 3},
		{"R@5", q.R5, 2.0 / 3},
		{"R@10", q.R10, 1},
		{"MRR@10", q.MRR10, (1 + 1.0/6 + 1) / 3},
		{"inject", q.Inject, 2.0 / 3},
		{"inject among top-5 hits", q.InjectTop5, 1.0 / 2}, // queries 1 and 3 have r in the top 5; 1 injected
		{"inject with a relevant pick", q.InjectHit, 1.0 / 3},
		{"false inject", q.FalseInject, 1.0 / 4},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if q.NTop5 != 2 {
		t.Errorf("NTop5 = %d, want 2", q.NTop5)
	}
	if z := aggregate(nil); z.N != 0 || z.FalseInject != 0 || z.Inject != 0 {
		t.Errorf("empty aggregate: %+v", z)
	}
}

// TestDelivered checks the figures of what the companion receives: the
// injected episodes are the picks of a query whose section is injected, none
// of one whose section is not.
func TestDelivered(t *testing.T) {
	var (
		// 2 relevant, 1 of them among the 3 injected.
		halfDelivered = outcome{relevant: set("r1", "r2"), ranked: []string{"r1", "x", "y", "r2"}, picked: []string{"r1", "x", "y"}, inject: true}
		// Relevant among the picks, but the section is not injected: its
		// picks count nowhere.
		notInjected = outcome{relevant: set("r"), ranked: []string{"r", "x"}, picked: []string{"r", "x"}}
		// Nothing relevant, 2 injected: only mean_injected counts them.
		noRelevant = outcome{relevant: set(), ranked: []string{"a", "b"}, picked: []string{"a", "b"}, inject: true}
	)
	for _, c := range []struct {
		name                        string
		outs                        []outcome
		recall, precision, injected float64
	}{
		{"2 relevant, 1 of the 3 injected", []outcome{halfDelivered}, 1.0 / 2, 1.0 / 3, 3},
		{"section not injected", []outcome{notInjected}, 0, 0, 0}, // precision 0/0: 0
		{"no relevant episode", []outcome{noRelevant}, 0, 0, 2},   // no query with a relevant episode: 0
		{"the three together", []outcome{halfDelivered, notInjected, noRelevant},
			(1.0/2 + 0) / 2, // over the 2 queries with relevant episodes
			1.0 / 3,         // 1 relevant of the 3 injected on them; notInjected's 2 picks are not injected
			(3 + 0 + 2) / 3.0},
		{"empty group", nil, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := aggregate(c.outs)
			if !near(q.DeliveredRecall, c.recall) || !near(q.EvidencePrecision, c.precision) || !near(q.MeanInjected, c.injected) {
				t.Errorf("delivered recall %v, evidence precision %v, mean injected %v; want %v, %v, %v",
					q.DeliveredRecall, q.EvidencePrecision, q.MeanInjected, c.recall, c.precision, c.injected)
			}
			// The JSON is valid (no NaN) and names the three figures.
			b, err := json.Marshal(q)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]float64{"delivered_recall": c.recall, "evidence_precision": c.precision, "mean_injected": c.injected} {
				if got, ok := m[k].(float64); !ok || !near(got, want) {
					t.Errorf("JSON %s = %v, want %v", k, m[k], want)
				}
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	var ten, hundred []time.Duration
	for i := 10; i >= 1; i-- { // unsorted on purpose
		ten = append(ten, time.Duration(i)*time.Millisecond)
	}
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		{ten, 50, 5 * time.Millisecond},  // ceil(0.50·10) = 5th
		{ten, 95, 10 * time.Millisecond}, // ceil(0.95·10) = 10th
		{ten, 99, 10 * time.Millisecond},
		{ten, 10, 1 * time.Millisecond},
		{hundred, 50, 50 * time.Millisecond},
		{hundred, 95, 95 * time.Millisecond},
		{hundred, 99, 99 * time.Millisecond},
		{hundred, 100, 100 * time.Millisecond},
		{[]time.Duration{7}, 99, 7},
		{nil, 50, 0},
	} {
		if got := percentile(c.ds, c.p); got != c.want {
			t.Errorf("p%v of %d values = %v, want %v", c.p, len(c.ds), got, c.want)
		}
	}
	if ten[0] != 10*time.Millisecond {
		t.Error("percentile sorted its input")
	}
}

func TestParseRange(t *testing.T) {
	got, err := parseRange("0.30:0.90:0.02")
	if err != nil || len(got) != 31 || got[0] != 0.30 || got[30] != 0.90 || got[1] != 0.32 {
		t.Fatalf("parseRange = %v, %v", got, err)
	}
	if got, err := parseRange("0.3, 0.5"); err != nil || len(got) != 2 || got[1] != 0.5 {
		t.Fatalf("parseRange list = %v, %v", got, err)
	}
	if _, err := parseRange("0.9:0.3:0.1"); err == nil {
		t.Fatal("a backwards range parsed")
	}
	base := rerank.Weights{Coverage: 0.35, Proximity: 0.15, Window: 0.1}
	ws, err := parseWeights("0.55/0.35/0.10,0.4/0.5/0.1/0.2,0.4/0.5/0.1/0.2/0.3", base)
	w := func(rrf, lex, rec, cov, prox float64) rerank.Weights {
		return rerank.Weights{RRF: rrf, Lex: lex, Recency: rec, Coverage: cov, Proximity: prox, Window: 0.1}
	}
	if err != nil || len(ws) != 3 || ws[0] != w(0.55, 0.35, 0.10, 0.35, 0.15) || ws[1] != w(0.4, 0.5, 0.1, 0.2, 0.15) ||
		ws[2] != w(0.4, 0.5, 0.1, 0.2, 0.3) {
		t.Fatalf("parseWeights = %v, %v", ws, err)
	}
	if _, err := parseWeights("0.5/0.5", base); err == nil {
		t.Fatal("two weights parsed")
	}
}

// TestAgreement checks a person's agreement with what is injected: an
// expected episode and nothing outside the expected and acceptable ones, or
// nothing where nothing is expected.
func TestAgreement(t *testing.T) {
	for _, c := range []struct {
		name   string
		o      outcome
		agrees bool
	}{
		{"relevant injected", outcome{relevant: set("r"), picked: []string{"r"}, inject: true}, true},
		{"relevant and acceptable", outcome{relevant: set("r"), acceptable: set("a"), picked: []string{"a", "r"}, inject: true}, true},
		{"relevant and a stranger", outcome{relevant: set("r"), acceptable: set("a"), picked: []string{"r", "x"}, inject: true}, false},
		{"only acceptable where one is expected", outcome{relevant: set("r"), acceptable: set("a"), picked: []string{"a"}, inject: true}, false},
		{"silent where one is expected", outcome{relevant: set("r"), picked: []string{"r"}}, false},
		{"silent where none is", outcome{relevant: set(), picked: []string{"x"}}, true},
		{"a stranger where none is", outcome{relevant: set(), picked: []string{"x"}, inject: true}, false},
		{"acceptable where none is", outcome{relevant: set(), acceptable: set("a"), picked: []string{"a"}, inject: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.o.agrees(); got != c.agrees {
				t.Errorf("agrees = %v, want %v", got, c.agrees)
			}
		})
	}
	both := []outcome{{relevant: set("r"), picked: []string{"r"}, inject: true}, {relevant: set(), picked: []string{"x"}, inject: true}}
	if q := aggregate(both); !near(q.Agreement, 0.5) {
		t.Errorf("agreement of one agreeing and one not = %v, want .5", q.Agreement)
	}
}

func TestSuiteWeight(t *testing.T) {
	for _, tt := range []struct {
		list, suite string
		want        int
		bad         bool
	}{
		{"", "chat-ja", 1, false},
		{"chat-*=8", "chat-ja", 8, false},
		{"chat-*=8", "jsquad-ja-dev", 1, false},
		{"chat-ja=3,chat-*=8", "chat-ja", 3, false},
		{"chat-ja=3, chat-*=8", "chat-zh", 8, false},
		{"chat-*=0", "chat-ja", 0, true},
		{"chat-*", "chat-ja", 0, true},
	} {
		got, err := suiteWeight(tt.list, tt.suite)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("suiteWeight(%q, %q) = %d, %v; want %d (error: %v)", tt.list, tt.suite, got, err, tt.want, tt.bad)
		}
	}
}

// TestSuiteDirsOfSeveralEvals: every -eval folder's suites are read, not
// only the last one's.
func TestSuiteDirsOfSeveralEvals(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(a, "s1"), filepath.Join(a, "s2"), filepath.Join(b, "s3"), filepath.Join(b, "no-queries")} {
		os.MkdirAll(d, 0o755)
		if filepath.Base(d) != "no-queries" {
			os.WriteFile(filepath.Join(d, "queries.jsonl"), nil, 0o644)
		}
	}
	var f listFlag
	f.Set(a)
	f.Set(b)
	got, err := suiteDirs([]string{"x"}, f)
	want := []string{"x", filepath.Join(a, "s1"), filepath.Join(a, "s2"), filepath.Join(b, "s3")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("suiteDirs = %q, %v; want %q", got, err, want)
	}
}

// TestKeepHalf: -half keeps the judged people's queries or the others', and
// every query of a suite that names no halves.
func TestKeepHalf(t *testing.T) {
	suite := func(judged ...string) *dataset.Suite {
		return &dataset.Suite{Judged: judged, Queries: []dataset.Query{{ID: "a1", User: "a"}, {ID: "b1", User: "b"}, {ID: "a2", User: "a"}}}
	}
	ids := func(s *dataset.Suite) (out []string) {
		for _, q := range s.Queries {
			out = append(out, q.ID)
		}
		return out
	}
	for _, tt := range []struct {
		half   string
		judged []string
		want   []string
	}{
		{"", []string{"b"}, []string{"a1", "b1", "a2"}},
		{"judged", []string{"b"}, []string{"b1"}},
		{"fit", []string{"b"}, []string{"a1", "a2"}},
		{"judged", nil, []string{"a1", "b1", "a2"}}, // no halves named: all
	} {
		s := suite(tt.judged...)
		if err := keepHalf(s, tt.half); err != nil || !slices.Equal(ids(s), tt.want) {
			t.Errorf("-half %q of judged %q: %q, %v; want %q", tt.half, tt.judged, ids(s), err, tt.want)
		}
	}
	if err := keepHalf(suite("b"), "held"); err == nil {
		t.Error("-half held: no error")
	}
}
