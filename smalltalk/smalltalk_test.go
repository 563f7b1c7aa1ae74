package smalltalk

import (
	"testing"

	"github.com/omoide/omoide/lang"
)

func TestNeedsMemory(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		// Japanese small talk.
		{"おはよう", false},
		{"おはようございます", false},
		{"おはよー！！", false},
		{"おはよーございます〜", false},
		{"こんにちは", false},
		{"こんばんは。", false},
		{"おやすみ", false},
		{"おやすみなさい🌙", false},
		{"ありがとう", false},
		{"ありがと", false},
		{"ありがとう〜😊", false},
		{"ありがとうううう！", false},
		{"ありがとうございます！", false},
		{"ｻﾝｷｭｰ", false},
		{"サンキュー", false},
		{"どうも", false},
		{"うん", false},
		{"うんうん", false},
		{"ええ", false},
		{"はい", false},
		{"はい。", false},
		{"そうだね", false},
		{"そうだね〜", false},
		{"そうだよね", false},
		{"そっか", false},
		{"そっかー", false},
		{"なるほど", false},
		{"なるほどね", false},
		{"了解", false},
		{"りょうかい！", false},
		{"おけ", false},
		{"オッケー", false},
		{"笑", false},
		{"草", false},
		{"www", false},
		{"ｗｗｗ", false},
		{"お疲れ様です", false},
		{"よろしくお願いします！", false},
		{"また明日ね", false},

		// English small talk.
		{"OK", false},
		{"ok", false},
		{"okay!", false},
		{"thanks", false},
		{"Thank you!", false},
		{"thx", false},
		{"hi", false},
		{"Hello!", false},
		{"hey hey", false},
		{"Good morning :)", false},
		{"good night", false},
		{"yes", false},
		{"yeah", false},
		{"yep", false},
		{"lol", false},
		{"hahaha", false},
		{"yesss", false},

		// Chinese small talk.
		{"嗯", false},
		{"嗯嗯", false},
		{"好的", false},
		{"好的啊", false},
		{"谢谢", false},
		{"你好", false},
		{"晚安", false},
		{"谢谢你！", false},
		{"嗯嗯好的", false},

		// Korean small talk.
		{"안녕", false},
		{"안녕하세요!", false},
		{"고마워!", false},
		{"감사합니다~", false},
		{"응", false},
		{"응 알겠어", false},
		{"ㅋㅋㅋㅋ", false},
		{"네네", false},
		{"잘 자", false},

		// Emoji, punctuation, nothing.
		{"👍", false},
		{"😊", false},
		{"👍🏻✨", false},
		{"！？", false},
		{"", false},
		{"   ", false},

		// Memory cues, however short.
		{"覚えてる", true},
		{"覚えてる？", true},
		{"前に", true},
		{"この前", true},
		{"こないだ", true},
		{"以前", true},
		{"あの時", true},
		{"あのとき", true},
		{"続き", true},
		{"続きは？", true},
		{"昨日", true},
		{"先週", true},
		{"3日前", true},
		{"remember?", true},
		{"last time", true},
		{"again?", true},
		{"before", true},
		{"yesterday", true},
		{"还记得吗", true},
		{"上次", true},
		{"기억나?", true},
		{"지난번에 말한 거", true},
		{"안녕, 오늘 병원 다녀왔어", true},
		{"고마워! 근데 나비 사료 바꿨어", true},
		{"上周", true},
		{"ありがとう、あの時の話覚えてる？", true},
		{"うん、この前の件", true},
		{"はい、先週の件です", true},
		{"おはよう！昨日の面接どうだったと思う？", true},

		// A topic needs memory.
		{"おはよう、今日は健康診断", true},
		{"ok google", true},
		{"ありがとう、ラーメン美味しかった", true},
		{"はい、そうです。犬を飼っています", true},
		{"thanks for the recipe", true},
		{"hello, I got the job", true},
		{"hi there, my cat is sick", true},
		{"谢谢你的建议", true},
		{"好吃", true},
		{"ラーメン", true},
		{"猫", true},

		// Word boundaries of English cues and phrases.
		{"against", true},    // a topic, not the cue "again"
		{"history", true},    // "hi" + a topic
		{"okinawa", true},    // "ok" + a topic
		{"hiiii", false},     // "hi" + repeats
		{"おやすみ、また明日", false}, // 明日 is no window
	}
	for _, tt := range tests {
		if got := NeedsMemory(tt.text); got != tt.want {
			t.Errorf("NeedsMemory(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestCue(t *testing.T) {
	tests := []struct {
		text string
		cue  string // "" for none
	}{
		{"ありがとう、あの時の話覚えてる？", "あの時"},
		{"覚えてる？", "覚えてる"},
		{"はい、先週の件です", "先週"},
		{"先週のこと覚えてる？", "先週"},
		{"この前の週末どうだった？", "この前の週末"}, // the longer time expression
		{"この前はありがとう", "この前"},
		{"Remember what I said LAST TIME?", "remember"},
		{"what did we do last weekend", "last weekend"},
		{"we did that before.", "before"},
		{"you said it again!", "you said"},
		{"还记得上次吗", "还记得"},
		{"３日前の話", "3日前"},
		{"おはよう", ""},
		{"against the wind", ""},
		{"beforehand", ""},
		{"おはよう、今日は健康診断", "今日"},
		{"ラーメン美味しかった", ""},
	}
	for _, tt := range tests {
		cue, ok := Cue(tt.text)
		if cue != tt.cue || ok != (tt.cue != "") {
			t.Errorf("Cue(%q) = %q, %v, want %q", tt.text, cue, ok, tt.cue)
		}
	}
}

func BenchmarkNeedsMemory(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"smalltalk-ja", "ありがとう〜😊"},
		{"smalltalk-en", "Good morning!!"},
		{"cue", "ありがとう、あの時の話覚えてる？"},
		{"topic-ja", "おはよう！今朝はコーヒーを飲みながら、猫と一緒にのんびりしてたよ。"},
		{"topic-en", "I finally finished the book you recommended, it was great."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				NeedsMemory(bc.text)
			}
		})
	}
}

func BenchmarkCue(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Cue("おはよう！昨日の面接どうだったと思う？")
	}
}

// TestCueLang: the hint reaches the time expression (timeexpr.ParseLang): a
// Japanese person's 週末予定確認 asks about the weekend's plans, no past
// weekend, where the text read as Chinese names last weekend; 週末要確認
// the other way round. A message with a topic needs memory by any hint.
func TestCueLang(t *testing.T) {
	for _, tc := range []struct {
		text string
		hint lang.Language
		cue  string // "" for none
	}{
		{"週末予定確認", lang.Other, "週末"},
		{"週末予定確認", lang.Chinese, "週末"},
		{"週末予定確認", lang.Japanese, ""},
		{"週末要確認", lang.Other, ""},
		{"週末要確認", lang.Japanese, "週末"},
		{"今日予定", lang.Japanese, ""},
		{"今日はありがとう", lang.Japanese, "今日"},
		{"覚えてる？", lang.Korean, "覚えてる"},
		{"last week's trip", lang.Japanese, "last week"},
	} {
		cue, ok := CueLang(tc.text, tc.hint)
		if cue != tc.cue || ok != (tc.cue != "") {
			t.Errorf("CueLang(%q, %q) = %q, %v; want %q", tc.text, tc.hint, cue, ok, tc.cue)
		}
		if !NeedsMemoryLang(tc.text, tc.hint) {
			t.Errorf("NeedsMemoryLang(%q, %q) = false", tc.text, tc.hint)
		}
		if tc.hint == lang.Other {
			if c, ok2 := Cue(tc.text); c != cue || ok2 != ok {
				t.Errorf("Cue(%q) = %q, %v; CueLang without a hint %q, %v", tc.text, c, ok2, cue, ok)
			}
		}
	}
}

func TestCueWord(t *testing.T) {
	for _, tt := range []struct {
		text, want string
		ok         bool
	}{
		{"あのカフェの名前なんだっけ", "っけ", true},
		{"뭐였더라", "더라", true},
		{"ok, remember the cafe?", "remember", true},
		{"上次那家店叫什么", "上次", true},
		{"昨日のカフェよかった", "", false}, // a time expression is no cue word
		{"against the wind", "", false},
		{"今日の晩飯、鍋にした", "", false},
	} {
		got, ok := CueWord(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CueWord(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}
