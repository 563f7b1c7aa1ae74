package thesaurus

import (
	"bytes"
	"compress/gzip"
	"slices"
	"sync"
	"testing"

	"github.com/omoide/omoide/tokenize"
)

func table(t testing.TB) *Table {
	t.Helper()
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// pairs are everyday pairs and what the table says of them (docs/thesaurus.md
// lists them with what one would expect where the two differ).
var pairs = []struct {
	a, b string
	want Relation
}{
	{"アルバイト", "バイト", Equivalent}, // through the gloss "part-time job", no WordNet noun
	{"試験", "テスト", Equivalent},
	{"車", "自動車", Equivalent},
	{"先生", "教師", Equivalent},
	{"旅行", "旅", Equivalent},
	{"医者", "医師", Equivalent},
	{"野球", "サッカー", Sibling},
	{"夏", "冬", Sibling},
	{"ビール", "ワイン", Sibling},
	{"犬", "猫", Sibling},
	{"東京", "大阪", Sibling}, // instances of city, and of national_capital
	{"朝食", "夕食", Sibling},
	{"電車", "バス", Sibling},
	{"母", "父", Sibling},
	{"ピアノ", "ギター", Sibling},
	{"コーヒー", "お茶", Sibling},
	{"彼氏", "恋人", KindOf},
	{"犬", "動物", None}, // 'animal' is general, as 'event' (行事) and 'time period' (期間) are: a kind of them says nothing
	{"柴犬", "犬", None}, // 柴犬 is no (P) word
	{"りんご", "行事", None},
	{"りんご", "果物", KindOf},
	{"熱", "体調", None},
	{"会社", "仕事", None},
	{"雨", "本", None},
	{"猫", "車", None},
	{"薬", "病院", None},
	// wanted Sibling, but WordNet's only "Nara" is the National Archives
	// and Records Administration, and banana's first sense is the plant
	{"京都", "奈良", None},
	{"りんご", "バナナ", None},
}

func TestRelate(t *testing.T) {
	tb := table(t)
	for _, p := range pairs {
		if got := tb.Relate(p.a, p.b); got != p.want {
			t.Errorf("Relate(%s, %s) = %v, want %v", p.a, p.b, got, p.want)
		}
		if got, back := tb.Relate(p.a, p.b), tb.Relate(p.b, p.a); got != back {
			t.Errorf("Relate(%s, %s) = %v but Relate(%s, %s) = %v", p.a, p.b, got, p.b, p.a, back)
		}
	}
	for _, w := range []string{"犬", "見知らぬ語", ""} {
		if got := tb.Relate(w, w); got != Equivalent {
			t.Errorf("Relate(%q, itself) = %v, want equivalent", w, got)
		}
	}
	for _, w := range []string{"見知らぬ語", "", "dog"} {
		if tb.Has(w) {
			t.Errorf("Has(%q), want not", w)
		}
		if got := tb.Relate("犬", w); got != None {
			t.Errorf("Relate(犬, %q) = %v, want none for a word the table does not know", w, got)
		}
	}
}

// TestSymmetric relates every word to its neighbours in the sorted list and
// to words far off, both ways round.
func TestSymmetric(t *testing.T) {
	tb := table(t)
	n := tb.Len()
	for i := range n {
		for _, j := range []int{(i + 1) % n, (i * 7919) % n} {
			a, b := tb.words[i], tb.words[j]
			if x, y := tb.Relate(a, b), tb.Relate(b, a); x != y {
				t.Fatalf("Relate(%s, %s) = %v but Relate(%s, %s) = %v", a, b, x, b, a, y)
			}
		}
	}
}

func TestLists(t *testing.T) {
	tb := table(t)
	tests := []struct {
		word, list string
		got        []string
		has        []string
		hasNot     []string
	}{
		{"アルバイト", "Equivalents", tb.Equivalents("アルバイト"), []string{"バイト"}, []string{"アルバイト"}},
		{"試験", "Equivalents", tb.Equivalents("試験"), []string{"テスト"}, []string{"試験"}},
		{"彼氏", "Kinds", tb.Kinds("彼氏"), []string{"恋人"}, []string{"彼氏"}},
		{"犬", "Kinds", tb.Kinds("犬"), nil, []string{"犬", "猫", "いぬ", "動物"}},
		{"りんご", "Kinds", tb.Kinds("りんご"), []string{"果物"}, []string{"りんご"}},
		{"野球", "Siblings", tb.Siblings("野球"), []string{"サッカー"}, []string{"野球"}},
		{"犬", "Siblings", tb.Siblings("犬"), []string{"猫"}, []string{"犬", "いぬ", "動物"}},
		{"見知らぬ語", "Siblings", tb.Siblings("見知らぬ語"), nil, nil},
	}
	for _, tt := range tests {
		for _, w := range tt.has {
			if !slices.Contains(tt.got, w) {
				t.Errorf("%s(%s) = %q, want %s among them", tt.list, tt.word, tt.got, w)
			}
		}
		for _, w := range tt.hasNot {
			if slices.Contains(tt.got, w) {
				t.Errorf("%s(%s) = %q, holds %s", tt.list, tt.word, tt.got, w)
			}
		}
		if tt.list != "Kinds" && !slices.IsSorted(tt.got) {
			t.Errorf("%s(%s) = %q, not sorted", tt.list, tt.word, tt.got)
		}
		if tt.has == nil && tt.got != nil {
			t.Errorf("%s(%s) = %q, want none", tt.list, tt.word, tt.got)
		}
	}
	// the lists say what Relate says
	for _, w := range []string{"犬", "夏", "会社"} {
		for rel, list := range map[Relation][]string{Equivalent: tb.Equivalents(w), KindOf: tb.Kinds(w), Sibling: tb.Siblings(w)} {
			for _, x := range list {
				if got := tb.Relate(w, x); got != rel {
					t.Errorf("%s is listed as %v of %s, but Relate says %v", x, rel, w, got)
				}
			}
		}
	}
}

// TestKeysAreQueryTerms checks that every word of the table is exactly one
// query term of the default analyzer in Japanese text, spelled as it spells
// it: a table generated before the analyzer changed would hold words no
// message has (run make thesaurus again).
func TestKeysAreQueryTerms(t *testing.T) {
	a, err := tokenize.ByName(tokenize.DefaultAnalyzer + "+ja")
	if err != nil {
		t.Fatal(err)
	}
	tb := table(t)
	if tb.Len() < 10000 {
		t.Fatalf("the table has %d words, want the common nouns of EDICT (over 10,000)", tb.Len())
	}
	bad := 0
	for _, w := range tb.words {
		if got := a.Terms(w); len(got) != 1 || got[0] != w {
			if bad++; bad <= 20 {
				t.Errorf("%s.Terms(%q) = %q, want exactly it", a.Name(), w, got)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d words are not one query term", bad, tb.Len())
	}
}

func TestString(t *testing.T) {
	for r, want := range map[Relation]string{None: "none", Sibling: "sibling", KindOf: "kind-of", Equivalent: "equivalent", 9: "Relation(9)"} {
		if got := r.String(); got != want {
			t.Errorf("Relation(%d).String() = %q, want %q", r, got, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for name, text := range map[string]string{
		"no header":         "synsets 0\nwords 0\n",
		"bad count":         "omoide-thesaurus 1\nsynsets x\n",
		"bad flag":          "omoide-thesaurus 1\nsynsets 1\nz\tdog\t\nwords 0\n",
		"id out of range":   "omoide-thesaurus 1\nsynsets 1\n-\tdog\t1\nwords 0\n",
		"word out of range": "omoide-thesaurus 1\nsynsets 1\n-\tdog\t\nwords 1\n犬\t1\n",
		"unsorted":          "omoide-thesaurus 1\nsynsets 1\n-\tdog\t\nwords 2\n犬\t0\nいぬ\t0\n",
		"extra line":        "omoide-thesaurus 1\nsynsets 1\n-\tdog\t\nwords 1\n犬\t0\n猫\t0\n",
		"no synsets":        "omoide-thesaurus 1\nsynsets 1\n-\tdog\t\nwords 1\n犬\t\n",
	} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(text))
		zw.Close()
		if _, err := Parse(b.Bytes()); err == nil {
			t.Errorf("%s: Parse accepted %q", name, text)
		}
	}
	if _, err := Parse([]byte("not gzip")); err == nil {
		t.Error("Parse accepted data that is not gzip")
	}
}

// TestConcurrent loads and reads the table from many goroutines at once (run
// with -race).
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			tb, err := Default()
			if err != nil {
				t.Error(err)
				return
			}
			if got := tb.Relate("犬", "猫"); got != Sibling {
				t.Errorf("Relate(犬, 猫) = %v", got)
			}
			tb.Siblings("犬")
		})
	}
	wg.Wait()
}

// TestRelateAllocates nothing: it runs over message terms × candidate terms.
func TestRelateAllocatesNothing(t *testing.T) {
	tb := table(t)
	if n := testing.AllocsPerRun(100, func() { tb.Relate("試験", "テスト"); tb.Relate("犬", "猫"); tb.Relate("x", "犬") }); n != 0 {
		t.Errorf("Relate allocates %v times a run", n)
	}
}

func BenchmarkRelate(b *testing.B) {
	tb := table(b)
	var words []string
	for _, p := range pairs {
		words = append(words, p.a, p.b)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tb.Relate(words[i%len(words)], words[(i*7+3)%len(words)])
	}
}

// BenchmarkParse is the cost of the first Default: reading the embedded table.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
