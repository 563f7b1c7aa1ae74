package tokenize

import (
	"slices"
	"testing"
)

// TestKoreanNounParticle: a query's one-syllable noun with its particle is
// the noun (눈은: 눈), whose forms hold the index's bigram of any particle
// (눈이); two syllables that are no noun and particle stay whole, and longer
// words lose their particle as before.
func TestKoreanNounParticle(t *testing.T) {
	a := CJK2()
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"눈은 그쳤어?", []string{"눈", "그쳤", "쳤어"}},
		{"눈이", []string{"눈"}},
		{"가방은", []string{"가방"}},
		{"비가", []string{"비"}},
		{"집에", []string{"집"}},
		{"차를", []string{"차"}},
		{"물을", []string{"물"}},
		{"물로", []string{"물"}},
		{"나이", []string{"나이"}},         // 이 follows a consonant: no particle here
		{"사과", []string{"사과"}},         // so does 과
		{"치고", []string{"치고"}},         // 고 is an ending, not a noun's particle
		{"있다", []string{"있다"}},         // nor is 다
		{"3월에", []string{"3월"}},        // three characters, as before
		{"학교에서", []string{"학교", "교에"}}, // as before
	} {
		if got := a.Terms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	// The index is as it was: a name keeps its terms.
	if got, want := a.Index("눈이 와서 비가"), "눈이 와서 비가"; got != want {
		t.Errorf("Index = %q, want %q", got, want)
	}
	lx := a.(Lexicon)
	for _, tt := range []struct {
		term string
		want []string
	}{
		{"눈", []string{"눈이", "눈은", "눈을", "눈과", "눈으", "눈에", "눈의", "눈도", "눈만"}},
		{"비", []string{"비가", "비는", "비를", "비와", "비로", "비랑", "비에", "비의", "비도", "비만"}},
		{"물", []string{"물이", "물은", "물을", "물과", "물로", "물에", "물의", "물도", "물만"}},
		{"가방", nil},
		{"猫", nil},
		{"熱", nil},
	} {
		if got := lx.Forms(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("Forms(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
}

// TestLight: function words, light verbs and chat's vague words of the four
// languages are light, by part of speech, by list or by rule (a Korean
// bigram after the past 었, a Chinese bigram with a final particle); content
// words are not.
func TestLight(t *testing.T) {
	lx := CJK2().(Lexicon)
	for _, tt := range []struct {
		term string
		want bool
	}{
		// Japanese: light verbs by list, the rest by part of speech
		{"なる", true}, {"する", true}, {"ある", true}, {"いる", true}, {"できる", true}, {"思う", true}, {"言う", true},
		{"こと", true}, {"これ", true}, {"この", true}, {"でも", true}, {"さん", true}, {"しまう", true},
		{"いい", true}, // 天気いいね: an evaluation that fits any topic
		{"てる", true}, // してる, 出てる: ている contracted, an aspect and no topic (最近どうしてる？)
		{"熱", false}, {"病院", false}, {"引っ越し", false}, {"来月", false}, {"プレゼン", false}, {"資料", false}, {"下がる", false},
		{"天気", false}, {"三鷹", false}, // a topic and a place name beside the light words of 天気いいね, 三鷹で熱が出てる
		{"一", true}, {"三", true}, // 一日中 is 一 日 中: a count is no topic
		// Chinese: function characters and their bigrams
		{"了", true}, {"吗", true}, {"的", true}, {"是", true}, {"好", true}, {"了吗", true}, {"我们", true},
		{"吃饭", false}, {"医院", false}, {"考试", false}, {"猫", false}, {"自行", false},
		// Korean: pronouns, light verbs and endings
		{"했어", true}, {"하다", true}, {"있어", true}, {"나", true}, {"우리", true},
		{"눈", false}, {"가방", false}, {"출근", false}, {"게임", false},
		// Japanese: spoken auxiliaries, verbs after a verb's stem, and chat's hedges
		{"でる", true}, {"ちゃう", true}, {"じゃう", true}, {"とく", true}, {"おく", true}, // 読んでる, 寝ちゃった, 飲んじゃった, 予約しといた
		{"みたい", true}, {"やすい", true}, {"にくい", true}, {"すぎる", true}, // 雨みたい, 住みやすい, 読みにくい, しすぎる
		{"始める", true}, {"続ける", true}, {"終わる", true}, // say only that something begins, goes on, ends
		{"られる", true}, {"っぽい", true}, // 動詞-接尾, 形容詞-接尾 by part of speech
		{"めっちゃ", true}, {"やっぱり", true}, {"たぶん", true}, {"最近", true}, {"知る", true}, {"覚える", true}, {"笑", true},
		{"出る", false}, {"置く", false}, {"安い", false}, {"ボルダリング", false}, {"楽しい", false}, {"寝不足", false}, {"忘れる", false},
		// Chinese: a bigram with a sentence-final particle, time characters alone, words of thinking
		{"冷啊", true}, {"雨吗", true}, {"山吧", true}, {"病了", true}, {"酒吧", true},
		{"今", true}, {"天", true}, {"年", true}, {"月", true}, {"觉得", true}, {"知道", true}, {"东西", true},
		{"今天", false}, {"好冷", false}, {"冷", false}, {"下雨", false}, {"天气", false},
		// Korean: endings after the past and future, the copula, shall, jamo laughter
		{"었지", true}, {"였지", true}, {"았던", true}, {"었던", true}, {"겠다", true}, {"셨어", true}, {"잖아", true},
		{"이었", true}, {"을까", true}, {"할까", true}, {"갈까", true}, {"데요", true}, {"는데", true},
		{"갔던", true}, {"있었", true}, {"기억", true}, {"그때", true}, {"ᄏᄏ", true}, {"ㅋㅋ", true}, {"ᅲᅲ", true},
		{"토익", false}, {"점수", false}, {"먹었", false}, {"카페", false}, {"습관", false}, {"은행", false},
		// English: light verbs and their irregular forms, vague words, fillers, as stemmed
		{"get", true}, {"got", true}, {"go", true}, {"went", true}, {"gone", true}, {"make", true}, {"made", true},
		{"someth", true}, {"thing", true}, {"stuff", true}, {"realli", true}, {"still", true}, {"lol", true}, {"yeah", true},
		{"gonna", true}, {"wanna", true}, {"kinda", true}, {"feel", true}, {"felt", true}, {"think", true}, {"thought", true},
		{"know", true}, {"knew", true}, {"want", true}, {"like", true}, {"good", true}, {"better", true}, {"best", true},
		{"okay", true}, {"saw", true}, {"seen", true}, {"said", true}, {"told", true}, {"took", true}, {"came", true},
		{"rememb", true}, {"start", true}, {"began", true}, {"w", true},
		{"day", true}, {"new", true}, {"long", true}, {"final", true}, // how's your day going, whats new: no topic
		{"research", false}, {"tire", false}, {"biscuit", false}, {"eat", false}, {"ate", false}, {"sock", false},
		{"today", false}, {"pretti", false}, {"quit", false}, {"", false},
	} {
		if got := lx.Light(tt.term); got != tt.want {
			t.Errorf("Light(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
}
