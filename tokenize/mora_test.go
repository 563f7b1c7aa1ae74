package tokenize

import (
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/lang"
)

// moraGoldens are the words kagome split inside a mora: each text's Index
// under "cjk" (which stores built with it keep, breakage and all) and under
// "cjk2" (the mora repair, mora.go).
var moraGoldens = []struct {
	name, text, cjk, cjk2 string
}{
	// A word split before a small kana.
	{"small kana: にゃんこ", "にゃんこ", "ゃんこ", "ニャンコ"},
	{"small kana: ran to the end of the hiragana run", "うちのにゃんこがかわいい", "うち ゃんこがかわいい", "うち ニャンコ かわいい"},
	{"small kana: before a particle", "にゃんこと遊んだ", "ゃんこ 遊ぶ", "ニャンコ 遊ぶ"},
	{"small kana: read as a verb", "きゅんとした", "くる ゅんとした", "キュン する"},
	{"small kana: reduplicated", "しゅわしゅわのサイダー", "する ゅわしゅわ サイダー", "シュワシュワ サイダー"},
	{"small kana: after a known word", "あしたはりょこうに行く", "あした はり ょこう 行く", "あした リョコウ 行く"},
	{"small kana: a whole word in hiragana", "じゅぎょうがおわった", "ゅぎょうがおわった", "ジュギョウ おわる"},
	{"small kana: the head's token segmented again", "ちゅうしゃがいたかった", "ちゅうする ゃがいたかった", "チュウシャ いる"},
	{"small vowel", "ふぁみちき買った", "ふる ぁみちき 買う", "ファミチキ 買う"},
	{"small vowel and っ", "うぃっす", "う ぃっす", "ウィッス"},
	{"one mora", "りょ", "ょ", "リョ"},
	// ー after a word kagome does not know, or after a small kana.
	{"long vowel: ぴゅー", "ぴゅー", "ぴゅ", "ピュー"},
	{"long vowel: before っと", "風がぴゅーっと吹いた", "風 ぴゅ 吹く", "風 ピュー 吹く"},
	{"long vowel: before って", "ぎゅーってしてほしい", "ぎゅ する ほしい", "ギュー する ほしい"},
	{"long vowel: after a particle's mora", "ねこがにゃーって鳴いた", "ねこ 鳴く", "ねこ ニャー 鳴く"},
	{"long vowel: the cat's cry was nothing", "にゃーにゃー", "", "ニャーニャー"},
	{"long vowel: and ん", "びょーんと跳ねた", "びょ ん 跳ねる", "ビョーン 跳ねる"},
	{"long vowel: after a small kana", "ちゅーしてきた", "ちる ゅ する くる", "チュー する くる"},
	{"long vowel: after a small vowel", "てぃーしゃつ", "ぃ す", "ティー シャツ"},
	// A contracted conditional that follows no verb.
	{"contraction: きゃりー", "きゃりー", "く", "キャリー"},
	{"contraction: before an unknown word", "きゃりーぱみゅぱみゅのライブ", "く ぱみゅぱみゅ ライブ", "キャリー ぱみゅぱみゅ ライブ"},
	{"contraction: しゃつ", "しゃつ", "す", "シャツ"},
	// A small vowel that repeats the vowel before it is a prolonged sound.
	{"prolonged: stray after a known word", "なるほどぉ", "なるほど ぉ", "なるほど"},
	{"prolonged: no longer glued to what follows", "いやぁもうめっちゃ眠い", "いや ぁもうめっちゃ 眠い", "いやー もう めっちゃ 眠い"},
	{"prolonged: repeated", "おぉぉかわいいね", "お ぉぉかわいいね", "お かわいい"},
	{"prolonged: after an inflected word", "すげぇな", "すげる ぇな", "すげる"},
	{"prolonged: a run of them", "うわぁぁぁ、びっくりした", "うわ ぁぁぁ びっくり する", "うわ びっくり する"},
}

// TestMoraGoldens: cjk keeps its terms; cjk2 joins the words kagome split
// inside a mora, and cjk2+ja does the same.
func TestMoraGoldens(t *testing.T) {
	for _, g := range moraGoldens {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range []struct {
				a    Analyzer
				want string
			}{{CJK(), g.cjk}, {CJKFor(lang.Japanese), g.cjk}, {CJK2(), g.cjk2}, {CJK2For(lang.Japanese), g.cjk2}} {
				if got := tc.a.Index(g.text); got != tc.want {
					t.Errorf("%s.Index(%q) = %q, want %q", tc.a.Name(), g.text, got, tc.want)
				}
			}
			// Terms are Index's words without repeats (no stop word here).
			if got, want := CJK2().Terms(g.text), uniq(strings.Fields(g.cjk2)); !slices.Equal(got, want) {
				t.Errorf("cjk2.Terms(%q) = %q, want %q", g.text, got, want)
			}
		})
	}
}

func uniq(s []string) []string {
	var out []string
	for _, w := range s {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// TestMoraUnchanged: text without a word split inside a mora has cjk's
// terms under cjk2, endings after a verb included (行かなきゃ, 見ちゃった,
// 書きゃ), and a stray ー after a known word stays dropped (わかったー,
// かわいー). ワンちゃん stays ワン + ちゃん: ちゃん is the suffix of names
// (名詞-接尾-人名), whose split lets ゆうちゃん meet ゆう, and a query for
// ワンちゃん is split as the index is.
func TestMoraUnchanged(t *testing.T) {
	for _, text := range []string{
		"昨日は友達とラーメンを食べに行った", "来週の土曜日に京都へ旅行する予定です", "ちょっと相談したいことがあるんだけど",
		"じゃあまた明日ね", "もう寝なきゃ", "行かなきゃいけない", "食べちゃった", "見ちゃだめ", "書きゃいいのに",
		"めっちゃ楽しかった", "しょっぱいラーメン", "ぎゅうぎゅうの電車", "ちゃんと薬を飲んでね", "じゃーね",
		"わかったー", "かわいー", "すっごいおいしかったー", "ありがとー", "シャワー浴びてくる", "ウィスキーを飲んだ",
		"ワンちゃんの散歩に行った", "ゆうちゃんとカラオケ", "おかんが骨折した", "お兄ちゃんと遊んだ",
		"我的猫很可爱", "학교에서 친구를", "What did Caroline research?",
	} {
		if got, want := CJK2().Index(text), CJK().Index(text); got != want {
			t.Errorf("cjk2.Index(%q) = %q, cjk's %q", text, got, want)
		}
	}
	if got, want := CJK2().Terms("ゆうちゃん"), []string{"ゆう", "ちゃん"}; !slices.Equal(got, want) {
		t.Errorf("cjk2.Terms(ゆうちゃん) = %q, want %q", got, want)
	}
}

// TestMoraQueryMeetsIndex: the word a person writes alone, in hiragana or in
// katakana, is a term of every message that holds it.
func TestMoraQueryMeetsIndex(t *testing.T) {
	for query, texts := range map[string][]string{
		"にゃんこ": {"うちのにゃんこがかわいい", "にゃんこと遊んだ", "にゃんこ、寝てる", "ニャンコの写真"},
		"ぴゅー":  {"風がぴゅーっと吹いた", "ピューって音がした"},
		"きゃりー": {"きゃりーのライブ", "キャリーが好き"},
	} {
		terms := CJK2().Terms(query)
		if len(terms) != 1 {
			t.Fatalf("cjk2.Terms(%q) = %q, want one term", query, terms)
		}
		for _, text := range texts {
			if index := strings.Fields(CJK2().Index(text)); !slices.Contains(index, terms[0]) {
				t.Errorf("cjk2: %q's term %q is not in Index(%q) = %q", query, terms[0], text, index)
			}
		}
	}
}

// TestCJK2Names: the versions keep their names through ByName and a
// request's language hint (ForLanguage), and say how they read Han-only
// text (Language).
func TestCJK2Names(t *testing.T) {
	for _, tc := range []struct {
		a    Analyzer
		want string
	}{
		{CJK2(), "cjk2"}, {CJK2For(lang.Japanese), "cjk2+ja"}, {CJK2For(lang.Korean), "cjk2"},
		{CJK2().(LanguageReader).ForLanguage(lang.Japanese), "cjk2+ja"},
		{CJK2For(lang.Japanese).(LanguageReader).ForLanguage(lang.Other), "cjk2"},
		{CJK().(LanguageReader).ForLanguage(lang.Japanese), "cjk+ja"},
	} {
		if got := tc.a.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
		wantLang := lang.Chinese // the hint the analyzer gives lang.Detect
		if strings.HasSuffix(tc.want, "+ja") {
			wantLang = lang.Japanese
		}
		if got := tc.a.(LanguageReader).Language(); got != wantLang {
			t.Errorf("%s: Language() = %q, want %q", tc.want, got, wantLang)
		}
		if b, err := ByName(tc.want); err != nil || b.Name() != tc.want {
			t.Errorf("ByName(%q) = %v, %v", tc.want, b, err)
		}
	}
	if _, ok := CJK2().(Thesaurus); !ok {
		t.Error("cjk2 is not a Thesaurus")
	}
}

// BenchmarkMoraRepair is the cost of cjk2's mora repair against cjk on the
// same text: an ordinary sentence, which it leaves alone, and its worst
// cases, text that kagome splits inside a mora everywhere (each chunk is
// segmented again, at most 4 times).
func BenchmarkMoraRepair(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	for _, text := range []struct{ name, text string }{
		{"ordinary", benchText},
		{"small kana", strings.Repeat("にゃんこときゅんとしたしゅわしゅわ", 100)},
		{"long vowels", strings.Repeat("にゃー", 1300)},
	} {
		for _, a := range []Analyzer{CJK(), CJK2()} {
			b.Run(text.name+"/"+a.Name(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					a.Index(text.text)
				}
			})
		}
	}
}
