package ngram

import (
	"math"
	"testing"
)

func TestNewCounts(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want int
	}{
		{"", 3, 0},
		{"a", 3, 1},
		{"ab", 3, 1},
		{"abc", 3, 1},
		{"abcd", 3, 2},
		{"ラーメン", 3, 2},           // ラーメ, ーメン
		{"aaaa", 3, 1},           // aaa twice
		{"abab", 2, 2},           // ab, ba, ab
		{"今日は晴れ", 1, 5},          // code points, not bytes
		{"😀😀😀😀", 3, 1},           // astral plane code points
		{"e\u0301e\u0301", 3, 2}, // combining marks are code points of their own
	}
	for _, tt := range tests {
		if got := New(tt.text, tt.n).Len(); got != tt.want {
			t.Errorf("New(%q, %d).Len() = %d, want %d", tt.text, tt.n, got, tt.want)
		}
	}
}

func TestShortTextIsItsOwnGramAndDistinct(t *testing.T) {
	// "ab" (a text of length 2) must not equal any trigram, e.g. of "abc".
	if got := Intersection(New("ab", 3), New("abc", 3)); got != 0 {
		t.Fatalf("short gram collided with a trigram: %d", got)
	}
	if got := Intersection(New("ab", 3), New("ab", 3)); got != 1 {
		t.Fatalf("identical short texts share %d grams, want 1", got)
	}
	// Keys are exact: two different trigrams of maximal code points differ.
	a := New("\U0010FFFF\U0010FFFF\U0010FFFF", 3)
	b := New("\U0010FFFF\U0010FFFF\U0010FFFE", 3)
	if Intersection(a, b) != 0 {
		t.Fatal("distinct trigrams share a key")
	}
}

func TestDice(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		// abcd → {abc, bcd}; bcde → {bcd, cde}: 2·1/(2+2)
		{"abcd", "bcde", 0.5},
		{"abcd", "abcd", 1},
		{"abcd", "", 0},
		{"", "", 0},
		// 昨日ラーメン → 昨日ラ 日ラー ラーメ ーメン (4); ラーメン → ラーメ ーメン (2): 2·2/6
		{"昨日ラーメン", "ラーメン", 2.0 / 3},
		{"xyz", "abc", 0},
	}
	for _, tt := range tests {
		got := Dice(New(tt.a, 3), New(tt.b, 3))
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Dice(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestAppendReusesStorage(t *testing.T) {
	buf := New("abcdefgh", 3)
	got := Append(buf, "xyz", 3)
	if got.Len() != 1 || Intersection(got, New("xyz", 3)) != 1 {
		t.Fatalf("Append did not reset dst: %v", got)
	}
}

var sink float64

func BenchmarkTrigramDice(b *testing.B) {
	q := "User: 最近ずっと膝が痛くてさ\nPersona: 無理しないでね。病院には行った？\n---\nハーフマラソンの練習、再開してもいいかな？"
	e := "膝の痛みがまだ少しある。来月のハーフマラソンに出られるか不安\n焦らなくて大丈夫。まずは整形外科で診てもらって、ゆっくりジョグから再開しよう。"
	qs := New(q, 3)
	var buf Set
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf, e, 3)
		sink = Dice(qs, buf)
	}
}

func FuzzNew(f *testing.F) {
	for _, s := range []string{"", "a", "ラーメン", "\xff\xfe", "😀x", "e\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set := New(s, 3)
		for i := 1; i < len(set); i++ {
			if set[i-1] >= set[i] {
				t.Fatalf("set not strictly sorted at %d", i)
			}
		}
		if s != "" && set.Len() == 0 {
			t.Fatal("non-empty text has no grams")
		}
		if d := Dice(set, set); s != "" && d != 1 {
			t.Fatalf("Dice(s, s) = %v", d)
		}
	})
}
