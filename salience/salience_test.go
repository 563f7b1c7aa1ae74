package salience

import (
	"math"
	"testing"
)

// TestFeaturesParts checks that each part of an exchange is read where it
// is: a life event, a name, a number, a told past, a question, small talk,
// the companion's congratulation, in each language.
func TestFeaturesParts(t *testing.T) {
	tests := []struct {
		name, user, reply string
		want              map[string]float64 // features that must have these values; the rest of the named ones 0
	}{
		{"ja event", "来月引っ越すことになった", "", map[string]float64{"event": 1, "plan": 1, "past": 1}},
		{"ja surgery and name", "美咲さんが手術するんだって", "", map[string]float64{"event": 1, "names": 1}},
		{"ja greeting", "おはよう！", "おはよう", map[string]float64{"greeting": 1, "smalltalk": 1}},
		{"zh event", "我下个月搬家", "", map[string]float64{"event": 1, "plan": 1}},
		{"ko passed", "드디어 합격했어!", "축하해!", map[string]float64{"event": 1, "past": 1, "cares": 1}},
		{"en name", "Took Biscuit to the vet, she has an allergy", "", map[string]float64{"names": 1, "pet": 1, "health": 1}},
		{"en word boundary", "quite a day", "", map[string]float64{"event": 0}},
		{"en question", "what do you think?", "", map[string]float64{"question": 1}},
		{"numbers", "ran 10km in 52 minutes", "", map[string]float64{"numbers": 2}},
		{"weather", "今日めっちゃ寒い", "", map[string]float64{"weather": 1}},
	}
	idx := map[string]int{}
	for i, n := range FeatureNames {
		idx[n] = i
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := Features(tt.user, tt.reply, nil)
			if len(x) != NumFeatures {
				t.Fatalf("%d features, want %d", len(x), NumFeatures)
			}
			for f, v := range tt.want {
				if got := x[idx[f]]; got != v {
					t.Errorf("%s = %v, want %v (features %v)", f, got, v, x)
				}
			}
		})
	}
}

// TestFeatureNames checks that the names and the constant agree.
func TestFeatureNames(t *testing.T) {
	if len(FeatureNames) != NumFeatures {
		t.Fatalf("len(FeatureNames) = %d, NumFeatures = %d", len(FeatureNames), NumFeatures)
	}
}

// TestDefaultModelOrders checks that the shipped model loads and puts a
// life event above a plan above a greeting, in every language: what the
// ratings say, and what a model fitted wrong would not.
func TestDefaultModelOrders(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Features) != NumFeatures {
		t.Errorf("the shipped model reads %d features of %d: refit it (bench salience -o salience/model.json)", len(m.Features), NumFeatures)
	}
	tests := []struct{ lang, event, plain, greeting string }{
		{"ja", "父が入院して、来週手術することになった", "今日は駅前のカフェで作業した", "おやすみ〜"},
		{"zh", "我妈妈住院了，下周要做手术", "今天在咖啡店待了一下午", "晚安"},
		{"ko", "아빠가 입원하셔서 다음 주에 수술하셔", "오늘 카페에서 공부했어", "잘자~"},
		{"en", "My dad was hospitalized and has surgery next week", "spent the afternoon at a cafe today", "night!"},
	}
	for _, tt := range tests {
		e, p, g := Score(tt.event, ""), Score(tt.plain, ""), Score(tt.greeting, "")
		if !(e > p && p > g) {
			t.Errorf("%s: event %.3f, plain %.3f, greeting %.3f: want them in that order", tt.lang, e, p, g)
		}
		for _, v := range []float64{e, p, g} {
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Errorf("%s: salience %v outside [0, 1]", tt.lang, v)
			}
		}
	}
}

// TestExplainSums checks that an explanation's parts and the bias make its
// salience.
func TestExplainSums(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	e := m.Explain("来月、娘が結婚する", "おめでとう！")
	z := m.Bias
	for _, p := range e.Parts {
		z += p.LogOdds
	}
	if got := sigmoid(z); math.Abs(got-e.Salience) > 1e-9 {
		t.Errorf("parts give %.6f, salience %.6f", got, e.Salience)
	}
	for i := 1; i < len(e.Parts); i++ {
		if math.Abs(e.Parts[i].LogOdds) > math.Abs(e.Parts[i-1].LogOdds) {
			t.Errorf("parts not largest first: %+v", e.Parts)
		}
	}
}

// TestFitRecovers checks that Fit finds the sign of a feature that decides
// the targets, and refuses bad input.
func TestFitRecovers(t *testing.T) {
	var xs [][]float64
	var ys []float64
	for i := range 200 {
		x := make([]float64, NumFeatures)
		x[0] = float64(i % 2)
		x[1] = float64(i%3) / 2
		xs = append(xs, x)
		ys = append(ys, 0.1+0.8*x[0])
	}
	m, err := Fit(xs, ys, nil, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if m.Weights[0] < 2 || math.Abs(m.Weights[1]) > 0.5 {
		t.Errorf("weights %v: want a large positive first and a small second", m.Weights[:2])
	}
	if _, err := Fit(xs, append(ys[:199:199], 2), nil, 0); err == nil {
		t.Error("a target of 2 was accepted")
	}
	if _, err := Fit(nil, nil, nil, 0); err == nil {
		t.Error("no rows was accepted")
	}
}

// TestAUC checks the rank statistic on small cases, ties included.
func TestAUC(t *testing.T) {
	if got := AUC([]float64{0.1, 0.2, 0.8, 0.9}, []bool{false, false, true, true}); got != 1 {
		t.Errorf("perfect: %v", got)
	}
	if got := AUC([]float64{0.5, 0.5}, []bool{false, true}); got != 0.5 {
		t.Errorf("tie: %v", got)
	}
	if got := AUC([]float64{0.9, 0.1}, []bool{false, true}); got != 0 {
		t.Errorf("reversed: %v", got)
	}
	if !math.IsNaN(AUC([]float64{1}, []bool{true})) {
		t.Error("one class: want NaN")
	}
}

// TestLoadModelRefuses checks that a model of other features or a missing
// weight does not load.
func TestLoadModelRefuses(t *testing.T) {
	for _, bad := range []string{`{"features":["nope"],"weights":[1]}`, `{"features":["event","health"],"weights":[1]}`, `{`} {
		if _, err := LoadModel([]byte(bad)); err == nil {
			t.Errorf("%s loaded", bad)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	for b.Loop() {
		Score("田中課長にまた資料作り直せって言われた…今日だけで3回目。最初に言ってよ", "3回は心折れるね…お疲れさま。")
	}
}
