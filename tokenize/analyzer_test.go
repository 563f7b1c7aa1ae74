package tokenize

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ikawaha/kagome/v2/tokenizer"
)

type termsCase struct {
	name string
	text string
	want []string // Terms(text); nil for none
}

func checkTerms(t *testing.T, a Analyzer, tests []termsCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.Terms(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("%s.Terms(%q) = %q, want %q", a.Name(), tt.text, got, tt.want)
			}
		})
	}
}

func TestRawTerms(t *testing.T) {
	checkTerms(t, Raw(), []termsCase{
		{"spaced Japanese", "ラーメン を 食べた", []string{"ラーメン", "を", "食べた"}},
		{"unspaced Japanese is one term", "昨日ラーメンを食べた", []string{"昨日ラーメンを食べた"}},
		{"ideographic space splits", "東京\u3000大阪", []string{"東京", "大阪"}},
		{"not deduplicated, case kept", " Hello  hello\r\nHELLO\t", []string{"Hello", "hello", "HELLO"}},
		{"information separator splits", "a\x1fb", []string{"a", "b"}},
		{"no normalization", "ＡＢＣ", []string{"ＡＢＣ"}},
		{"empty", "", nil},
		{"whitespace", " \u3000\n", nil},
	})
}

func TestRawIndex(t *testing.T) {
	for _, text := range []string{"", "昨日ラーメンを食べた", " a\r\nb ", "ＡＢＣ"} {
		if got := Raw().Index(text); got != text {
			t.Errorf("Raw().Index(%q) = %q, want it unchanged", text, got)
		}
	}
}

func TestBigramTerms(t *testing.T) {
	checkTerms(t, Bigram(), []termsCase{
		{"katakana and han", "東京タワー", []string{"東京", "京タ", "タワ", "ワー"}},
		{"mixed", "東京 tower", []string{"東京", "tower"}},
		{"single CJK char", "猫", []string{"猫"}},
		{"latin adjacent", "iPhoneを買った", []string{"iphone", "を買", "買っ", "った"}},
		{"NFKC and lower", "ＡＢＣ１２３ ﾗｰﾒﾝ", []string{"abc123", "ラー", "ーメ", "メン"}},
		{"hangul is words", "안녕하세요 친구", []string{"안녕하세요", "친구"}},
		{"deduplicated", "東京と東京", []string{"東京", "京と", "と東"}},
		{"punctuation separates", "東京、大阪。", []string{"東京", "大阪"}},
		{"empty", "", nil},
		{"whitespace", " \u3000\t", nil},
	})
}

func TestBigramIndex(t *testing.T) {
	tests := []struct{ text, want string }{
		{"東京と東京", "東京 京と と東 東京"},
		{"Tokyo tokyo", "tokyo tokyo"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Bigram().Index(tt.text); got != tt.want {
			t.Errorf("Bigram().Index(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestKagomeSnowballTerms(t *testing.T) {
	checkTerms(t, KagomeSnowball(), []termsCase{
		{"inflections share a stem", "Painting paints, painted", []string{"paint"}},
		{"stop words left out of queries", "What did Caroline research?", []string{"carolin", "research"}},
		{"Japanese as under Kagome", "昨日ラーメンを食べた", []string{"昨日", "ラーメン", "食べる"}},
		{"mixed scripts", "iPhoneを買ったreviews", []string{"iphon", "買う", "review"}},
		{"short words and digits kept", "Ok, we go 42 running2", []string{"ok", "go", "42", "running2"}},
		{"non-ASCII Latin kept", "cafés naïve", []string{"cafés", "naïve"}},
		{"interrogatives left out of queries", "前に誰とどこで何を食べたっけ", []string{"前", "食べる"}},
		{"more interrogatives", "いつ、どんな店にどうして行ったの？なぜ？", []string{"店", "行く"}},
		{"only a question word", "何？", nil},
	})
	// The index keeps interrogatives, which queries leave out; the unstemmed
	// analyzer keeps them in queries too (the hash embedder's word features
	// come from it).
	if got, want := KagomeSnowball().Index("どこで何を食べた"), "どこ 何 食べる"; got != want {
		t.Errorf("Index = %q, want %q", got, want)
	}
	if got, want := Kagome().Terms("どこで何を食べた"), []string{"どこ", "何", "食べる"}; !slices.Equal(got, want) {
		t.Errorf("Kagome (unstemmed) Terms = %q, want %q", got, want)
	}
	// The index and the query agree, so an inflected query finds the stem;
	// the index keeps the stop words, which queries leave out.
	if got, want := KagomeSnowball().Index("She reminds me"), "she remind me"; got != want {
		t.Errorf("Index = %q, want %q", got, want)
	}
	if got := Kagome().Terms("what did she say"); !slices.Equal(got, []string{"what", "did", "she", "say"}) {
		t.Errorf("Kagome (unstemmed) Terms = %q: its queries keep stop words, as stores built with it always did", got)
	}
	if got := Kagome().Terms("painting"); !slices.Equal(got, []string{"painting"}) {
		t.Errorf("Kagome (unstemmed) Terms = %q, want [painting]", got)
	}
}

func TestKagomeTerms(t *testing.T) {
	checkTerms(t, Kagome(), []termsCase{
		{"sentence: base forms, particles and auxiliaries dropped", "昨日ラーメンを食べた", []string{"昨日", "ラーメン", "食べる"}},
		{"one word", "ラーメン", []string{"ラーメン"}},
		{"full-width NFKC", "ＡＢＣ１２３", []string{"abc123"}},
		{"half-width katakana NFKC", "ﾗｰﾒﾝ", []string{"ラーメン"}},
		{"latin word whole and lower-cased", "iPhoneを買った", []string{"iphone", "買う"}},
		{"hangul words", "안녕하세요 친구", []string{"안녕하세요", "친구"}},
		{"digits are one term", "2024年に12345円", []string{"2024", "年", "12345", "円"}},
		{"punctuation dropped", "東京、大阪。「京都」!", []string{"東京", "大阪", "京都"}},
		{"deduplicated", "ラーメンとラーメン", []string{"ラーメン"}},
		{"compound split (search mode)", "関西国際空港", []string{"関西", "国際", "空港"}},
		{"unknown hiragana word", "ぴえん", []string{"ぴえん"}},
		{"unknown kanji guessed as symbol", "𠮷", []string{"𠮷"}},
		{"only particles", "を", nil},
		{"only marks", "ーー々", nil},
		{"empty", "", nil},
		{"whitespace", " \u3000\r\n\t", nil},
		{"emoji and ZWJ separate", "猫👨\u200d👩\u200d👧犬", []string{"猫", "犬"}},
	})
}

// TestKagomeUnknownRuns checks that Han and kana runs the dictionary cannot
// place still yield terms.
func TestKagomeUnknownRuns(t *testing.T) {
	for _, text := range []string{"ぽにょぺにょ", "にゃんにゃんぴょん", "ゎゎ", "鼗", "𠮷", "ヴョヮ", "ぁぃぅ"} {
		if got := Kagome().Terms(text); len(got) == 0 {
			t.Errorf("Kagome().Terms(%q) is empty", text)
		}
	}
}

func TestKagomeIndex(t *testing.T) {
	tests := []struct{ text, want string }{
		{"昨日ラーメンを食べた", "昨日 ラーメン 食べる"},
		// Repeats survive, so that BM25 sees term frequency.
		{"ラーメンとラーメン", "ラーメン ラーメン"},
		{"Go言語のGoroutine", "go 言語 goroutine"},
		{"", ""},
		{"を", ""},
	}
	for _, tt := range tests {
		if got := Kagome().Index(tt.text); got != tt.want {
			t.Errorf("Kagome().Index(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestKagomeSearchModeRecall is the measurement behind kagomeMode: a query for
// part of a compound noun finds the compound in search mode, not in normal
// mode.
func TestKagomeSearchModeRecall(t *testing.T) {
	pairs := []struct{ doc, query string }{
		{"関西国際空港に着いた", "空港"},
		{"日本経済新聞を読む", "新聞"},
		{"東京大学の学生", "大学"},
		{"国立国会図書館へ行く", "図書館"},
		{"株式会社を作った", "会社"},
		{"自然言語処理を学ぶ", "言語"},
		{"携帯電話をなくした", "電話"},
	}
	found := func(a kagomeAnalyzer) int {
		n := 0
		for _, p := range pairs {
			doc := strings.Fields(a.Index(p.doc))
			if q := a.Terms(p.query); len(q) > 0 && !slices.ContainsFunc(q, func(s string) bool { return !slices.Contains(doc, s) }) {
				n++
			}
		}
		return n
	}
	normal := found(kagomeAnalyzer{mode: tokenizer.Normal})
	search := found(kagomeAnalyzer{mode: tokenizer.Search})
	t.Logf("compound-part recall: normal %d/%d, search %d/%d", normal, len(pairs), search, len(pairs))
	if search != len(pairs) || normal >= search {
		t.Errorf("recall normal %d, search %d of %d: search mode should find all and beat normal", normal, search, len(pairs))
	}
	if kagomeMode != tokenizer.Search {
		t.Errorf("kagomeMode = %v, want search", kagomeMode)
	}
}

// TestFTS5FindsWordInsideSentence is the defect being fixed: unicode61 makes
// 昨日ラーメンを食べた one token, so under Raw a query for ラーメン finds nothing.
// Kagome (and Bigram) index the words separately.
func TestFTS5FindsWordInsideSentence(t *testing.T) {
	docs := []string{
		"昨日ラーメンを食べた",                   // 1
		"明日は渋谷で友達と映画を見る予定です",           // 2
		"I bought an iPhone yesterday", // 3
		"今日は雨が降っている",                   // 4
	}
	tests := []struct {
		analyzer Analyzer
		query    string
		want     []int64
	}{
		{Kagome(), "ラーメン", []int64{1}},
		{Bigram(), "ラーメン", []int64{1}},
		{Raw(), "ラーメン", nil}, // the defect
		{Kagome(), "ラーメンを食べる", []int64{1}},
		{Raw(), "ラーメンを食べる", nil},
		{Kagome(), "映画", []int64{2}},
		{Raw(), "映画", nil},
		{Kagome(), "渋谷", []int64{2}},
		{Kagome(), "iphone", []int64{3}},
		{Raw(), "iphone", []int64{3}}, // spaced English worked all along
		{Kagome(), "IPHONE", []int64{3}},
		{Kagome(), "雨", []int64{4}},
		{Raw(), "雨", nil},
	}
	dbs := map[string]*sql.DB{}
	for _, a := range []Analyzer{Kagome(), Bigram(), Raw()} {
		indexed := make([]string, len(docs))
		for i, d := range docs {
			indexed[i] = a.Index(d)
		}
		dbs[a.Name()] = openFTS(t, indexed...)
	}
	for _, tt := range tests {
		name := tt.analyzer.Name()
		t.Run(fmt.Sprintf("%s/%s", name, tt.query), func(t *testing.T) {
			expr := MatchQuery(tt.analyzer.Terms(tt.query))
			var got []int64
			if expr != "" {
				var err error
				if got, err = search(dbs[name], expr); err != nil {
					t.Fatalf("MATCH %q: %v", expr, err)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: query %q (MATCH %q) found rows %v, want %v", name, tt.query, expr, got, tt.want)
			}
		})
	}
}

func TestByName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"kagome", "kagome"},
		{"bigram", "bigram"},
		{"raw", "raw"},
		{"unicode61-raw", "raw"},
		{"kagome+snowball", "kagome+snowball"},
		{"cjk", "cjk"},
		{"cjk+ja", "cjk+ja"},
		{"cjk2", "cjk2"},
		{"cjk2+ja", "cjk2+ja"},
		{DefaultAnalyzer, "cjk2"},
	}
	for _, tt := range tests {
		a, err := ByName(tt.name)
		if err != nil {
			t.Fatalf("ByName(%q): %v", tt.name, err)
		}
		if a.Name() != tt.want {
			t.Errorf("ByName(%q).Name() = %q, want %q", tt.name, a.Name(), tt.want)
		}
	}
	for _, bad := range []string{"", "Kagome", " kagome", "mecab"} {
		a, err := ByName(bad)
		if err == nil {
			t.Errorf("ByName(%q) = %v, want an error", bad, a)
			continue
		}
		msg := err.Error()
		for _, want := range []string{fmt.Sprintf("%q", bad), "cjk", "cjk+ja", "cjk2", "cjk2+ja", "kagome", "bigram", "raw", "unicode61-raw"} {
			if !strings.Contains(msg, want) {
				t.Errorf("ByName(%q) error %q does not mention %s", bad, msg, want)
			}
		}
	}
}

func TestWarm(t *testing.T) {
	if err := Warm(); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	if err := Warm(); err != nil {
		t.Fatalf("second Warm: %v", err)
	}
}

// TestConcurrentTerms runs every analyzer from 8 goroutines at once; run it
// with -race. Kagome is not warmed first, so the goroutines also race to load
// the dictionary unless an earlier test did.
func TestConcurrentTerms(t *testing.T) {
	texts := []string{
		"昨日ラーメンを食べた",
		"明日は渋谷で友達と映画を見る予定です",
		"iPhoneを買った ＡＢＣ１２３",
		"안녕하세요 친구",
		"関西国際空港から東京タワーへ",
		"ぽにょぺにょ𠮷野家",
		"うちのにゃんこがぴゅーっと走った",
	}
	analyzers := []Analyzer{Kagome(), Bigram(), Raw(), CJK2()}
	const workers = 8
	got := make([][][]string, workers) // got[worker][analyzer*len(texts)+text]
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for _, a := range analyzers {
				for _, text := range texts {
					got[w] = append(got[w], a.Terms(text))
				}
			}
		})
	}
	wg.Wait()
	i := 0
	for _, a := range analyzers {
		for _, text := range texts {
			want := a.Terms(text)
			for w := range workers {
				if !slices.Equal(got[w][i], want) {
					t.Errorf("worker %d: %s.Terms(%q) = %q, want %q", w, a.Name(), text, got[w][i], want)
				}
			}
			i++
		}
	}
}

// benchText is a 99-character Japanese sentence of the kind a chat turn holds.
const benchText = "昨日は友達と一緒に渋谷の新しいラーメン屋に行って、とても美味しい味噌ラーメンを食べました。" +
	"その後、駅前のカフェでコーヒーを飲みながら、来週の京都旅行の計画について話しました。" +
	"本当に楽しい一日だった。"

func BenchmarkKagomeTerms(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	a := Kagome()
	b.ReportAllocs()
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		a.Terms(benchText)
	}
}

func BenchmarkKagomeIndex(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	a := Kagome()
	b.ReportAllocs()
	for b.Loop() {
		a.Index(benchText)
	}
}

func BenchmarkBigramTerms(b *testing.B) {
	a := Bigram()
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(benchText)
	}
}

func TestCutRun(t *testing.T) {
	rep := strings.Repeat
	tests := []struct {
		name     string
		run      string
		wantHead int // characters in head
	}{
		{"short run whole", "昨日ラーメンを食べた", 10},
		{"exactly the limit", rep("ゎ", maxKagomeRun), maxKagomeRun},
		{"hard cut", rep("ゎ", 300), maxKagomeRun},
		{"hiragana before katakana preferred", rep("漢", 100) + rep("ひ", 10) + rep("カ", 50), 110},
		{"any script change", rep("ひ", 70) + rep("ー", 100), 70},
		{"change in first half ignored", rep("ひ", 10) + rep("漢", 200), maxKagomeRun},
		// Rune 128 would be a combining mark: the cut moves past it.
		{"mark stays with base", "ゎ" + rep("か\u3099", 100), maxKagomeRun + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, rest := cutRun(tt.run)
			if head+rest != tt.run {
				t.Fatalf("head+rest != run")
			}
			if got := utf8.RuneCountInString(head); got != tt.wantHead {
				t.Errorf("head has %d characters, want %d", got, tt.wantHead)
			}
		})
	}
}

// BenchmarkKagomeLongRun is kagome's worst case, a long run of one character
// class; cutRun keeps it linear.
func BenchmarkKagomeLongRun(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("ゎ", 10000)
	a := Kagome()
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(text)
	}
}
