package tokenize

import (
	"slices"
	"testing"

	"github.com/omoide/omoide/lang"
)

func TestCJKTerms(t *testing.T) {
	checkTerms(t, CJK(), []termsCase{
		{"Japanese as KagomeSnowball", "昨日ラーメンを食べた", []string{"昨日", "ラーメン", "食べる"}},
		{"Japanese interrogatives left out", "前に誰とどこで何を食べたっけ", []string{"前", "食べる"}},
		{"English as KagomeSnowball", "What did Caroline research?", []string{"carolin", "research"}},
		{"Chinese bigrams and characters", "我的猫很可爱", []string{"我的", "的猫", "猫很", "很可", "可爱", "我", "的", "猫", "很", "可", "爱"}},
		{"Chinese punctuation splits runs", "北京，上海", []string{"北京", "北", "京", "上海", "上", "海"}},
		{"Chinese one character", "猫", []string{"猫"}},
		{"Chinese question bigrams left out", "他什么去的", []string{"他什", "么去", "去的", "他", "什", "么", "去", "的"}},
		{"Korean bigrams, a word's particle left out of a query", "학교에서 친구를", []string{"학교", "교에", "친구"}},
		{"Korean endings left out of a query", "남자가 기타를 치고 있다", []string{"남자", "기타", "치고", "있다"}},
		{"Korean question bigrams left out", "어디서 만났어?", []string{"만났", "났어"}},
		{"Korean with digits", "3월에", []string{"3월"}},
		{"Korean with English", "iPhone 샀어", []string{"iphon", "샀어"}},
		{"Hangul inside Japanese stays a word", "韓国語で안녕と言った", []string{"韓国", "語", "안녕", "言う"}},
		{"kinship: おかん is 母", "おかんが骨折した", []string{"母", "骨折", "する"}},
		{"kinship: dialect and everyday words", "おとんとばあちゃんとお兄ちゃん", []string{"父", "祖母", "兄"}},
	})
	if got := KagomeSnowball().Terms("おかんが骨折した"); slices.Contains(got, "母") {
		t.Errorf("KagomeSnowball().Terms = %q: stores built with it must keep their analysis", got)
	}
	// Han-only text is Chinese under CJK, Japanese under CJKFor(Japanese).
	if got, want := CJK().Terms("温泉旅行"), []string{"温泉", "泉旅", "旅行", "温", "泉", "旅", "行"}; !slices.Equal(got, want) {
		t.Errorf("CJK().Terms(温泉旅行) = %q, want %q", got, want)
	}
	ja := CJKFor(lang.Japanese)
	if got, want := ja.Terms("温泉旅行"), KagomeSnowball().Terms("温泉旅行"); !slices.Equal(got, want) || ja.Name() != "cjk+ja" {
		t.Errorf("CJKFor(Japanese): %s.Terms(温泉旅行) = %q, want kagome's %q", ja.Name(), got, want)
	}
	if got := CJKFor(lang.Korean).Name(); got != "cjk" {
		t.Errorf("CJKFor(Korean).Name() = %q: Han-only Korean is read as Chinese", got)
	}
	// A query's bigrams are the index's: Korean stems meet across endings.
	if got, want := CJK().Index("학교에서 학교는"), "학교 교에 에서 학교 교는"; got != want {
		t.Errorf("Index = %q, want %q", got, want)
	}
	// Japanese texts analyze exactly as under KagomeSnowball (stores and
	// suites built with it keep their figures), kinship words aside.
	for _, text := range []string{"弟と昨日話した", "おとうとと遊んだ", "東京タワーに行ったよ！ iPhone 15 を買った", "ｶﾀｶﾅとＡＢＣ"} {
		if got, want := CJK().Index(text), KagomeSnowball().Index(text); got != want {
			t.Errorf("Index(%q) = %q, KagomeSnowball's %q", text, got, want)
		}
		if got, want := CJK().Terms(text), KagomeSnowball().Terms(text); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, KagomeSnowball's %q", text, got, want)
		}
	}
}
