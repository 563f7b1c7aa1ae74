package paraphrase

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/thesaurus"
	"github.com/omoide/omoide/tokenize"
)

// fakeThesaurus is a small word table whose answers the test knows.
type fakeThesaurus struct {
	eq, kinds, sib map[string][]string
}

func (f fakeThesaurus) words() []string {
	var out []string
	for _, m := range []map[string][]string{f.eq, f.kinds, f.sib} {
		for k, v := range m {
			out = append(append(out, k), v...)
		}
	}
	return out
}

func (f fakeThesaurus) Has(w string) bool {
	return slices.Contains(f.words(), w) || slices.Contains(plain, w)
}
func (f fakeThesaurus) Relate(a, b string) thesaurus.Relation {
	switch {
	case a == b || slices.Contains(f.eq[a], b) || slices.Contains(f.eq[b], a):
		return thesaurus.Equivalent
	case slices.Contains(f.kinds[a], b) || slices.Contains(f.kinds[b], a):
		return thesaurus.KindOf
	case slices.Contains(f.sib[a], b) || slices.Contains(f.sib[b], a):
		return thesaurus.Sibling
	}
	return thesaurus.None
}
func (f fakeThesaurus) Equivalents(w string) []string { return f.eq[w] }
func (f fakeThesaurus) Synonyms(w string) []string    { return f.eq[w] }
func (f fakeThesaurus) Kinds(w string) []string       { return f.kinds[w] }
func (f fakeThesaurus) Siblings(w string) []string    { return f.sib[w] }

// plain are nouns the table knows with no relation: lexical and unrelated
// questions' words.
var plain = []string{"柴犬", "図書館", "美術館", "水族館", "動物園", "公園", "温泉", "料理", "自転車", "花火"}

var table = fakeThesaurus{
	eq:    map[string][]string{"アルバイト": {"バイト"}, "バイト": {"アルバイト"}, "試験": {"テスト"}, "テスト": {"試験"}},
	kinds: map[string][]string{"ビール": {"酒"}},
	sib:   map[string][]string{"野球": {"サッカー"}, "サッカー": {"野球"}, "ビール": {"ワイン"}, "ワイン": {"ビール"}},
}

// haystack makes two speakers' exchanges: one about the table's words, one
// about other things.
func haystack() []dataset.Episode {
	day := time.Date(2022, 8, 1, 10, 0, 0, 0, time.UTC)
	var out []dataset.Episode
	a := []string{"週末に野球を見に行きました", "来週は大事な試験があります", "アルバイトを新しく始めました", "柴犬を飼い始めて毎日散歩しています",
		"昨日はビールを飲みすぎました", "図書館で勉強していました", "美術館の展示がよかったです", "水族館に家族で出かけました"}
	b := []string{"温泉に行ってのんびりしました", "料理を作るのが好きです", "自転車で遠くまで走りました", "花火大会に行きたいです",
		"公園を散歩しました", "新しい自転車を買いました", "料理教室に通っています", "温泉の近くに泊まりました"}
	for i := range 8 {
		out = append(out, dataset.Episode{ID: fmt.Sprintf("a:%d", i), User: "spk-a", UserText: a[i%len(a)], ReplyText: "そうなんですね",
			OccurredAt: day.Add(time.Duration(i) * time.Hour)})
		out = append(out, dataset.Episode{ID: fmt.Sprintf("b:%d", i), User: "spk-b", UserText: b[i%len(b)], ReplyText: "いいですね",
			OccurredAt: day.Add(time.Duration(i) * time.Hour)})
	}
	// a third speaker, too short to be a person, names the words asked by
	for i, text := range []string{"テストとバイトで忙しい", "お酒ならワインが好き", "サッカーの試合を見た"} {
		out = append(out, dataset.Episode{ID: fmt.Sprintf("c:%d", i), User: "spk-c", UserText: text, ReplyText: "へえ", OccurredAt: day})
	}
	return out
}

// TestGenerate: the suite is what its categories claim, by the analyzer's
// own measure, and the same seed makes the same suite.
func TestGenerate(t *testing.T) {
	o := Options{People: 2, Memories: 8, Seed: 7, Thesaurus: table, MinCount: 1}
	eps, qs, st, err := Generate(haystack(), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.People != 2 || len(eps) != 16 {
		t.Fatalf("%d people, %d episodes; want 2 and 16", st.People, len(eps))
	}
	an := tokenize.CJK2()
	byID := map[string]dataset.Episode{}
	memory := map[string]map[string]bool{}
	for _, e := range eps {
		byID[e.ID] = e
		if memory[e.User] == nil {
			memory[e.User] = map[string]bool{}
		}
		for _, term := range strings.Fields(an.Index(e.UserText + " " + e.ReplyText)) {
			memory[e.User][term] = true
		}
		if !strings.HasPrefix(e.ID, e.User+":") || strings.HasPrefix(e.User, "spk-") {
			t.Errorf("episode %s of %s: a generated person must not carry the speaker's name", e.ID, e.User)
		}
	}
	for _, q := range qs {
		qt := an.Terms(q.Text)
		switch q.Category {
		case "paraphrase", "kind-of":
			if len(q.Relevant) != 1 {
				t.Fatalf("%s: relevant %v", q.ID, q.Relevant)
			}
			e := byID[q.Relevant[0]]
			held := strings.Fields(an.Index(e.UserText + " " + e.ReplyText))
			for _, term := range qt {
				if slices.Contains(held, term) {
					t.Errorf("%s %q shares %q with its memory %q", q.Category, q.Text, term, e.UserText)
				}
			}
		case "lexical":
			e := byID[q.Relevant[0]]
			if !slices.ContainsFunc(qt, func(term string) bool { return strings.Contains(an.Index(e.UserText), term) }) {
				t.Errorf("lexical %q shares nothing with %q", q.Text, e.UserText)
			}
		case "sibling", "unrelated":
			if len(q.Relevant) != 0 {
				t.Errorf("%s %q: relevant %v, want none", q.Category, q.Text, q.Relevant)
			}
		default:
			t.Errorf("%s: category %q", q.ID, q.Category)
		}
		if q.User == "" || q.Now.IsZero() || q.Context == nil {
			t.Errorf("%s: user %q, now %v, context %v", q.ID, q.User, q.Now, q.Context)
		}
	}
	for _, c := range []string{"paraphrase", "kind-of", "sibling", "lexical", "unrelated"} {
		if st.Queries[c] == 0 {
			t.Errorf("no %s question: %v", c, st.Queries)
		}
	}
	// a sibling is never a word of the person's memory
	for _, q := range qs {
		if q.Category == "sibling" && (strings.Contains(q.Text, "サッカー") || strings.Contains(q.Text, "ワイン")) == false {
			t.Errorf("sibling %q asks by no sibling", q.Text)
		}
	}

	shuffled := slices.Clone(haystack())
	slices.Reverse(shuffled)
	eps2, qs2, _, err := Generate(shuffled, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(eps, eps2) || !reflect.DeepEqual(qs, qs2) {
		t.Error("the same seed and exchanges in another order made another suite")
	}
	o.Seed = 8
	if _, qs3, _, _ := Generate(haystack(), o); reflect.DeepEqual(qs, qs3) {
		t.Error("another seed made the same questions")
	}
}

// TestGenerateRefuses: no table, or no speaker with memories enough, is an
// error that says so.
func TestGenerateRefuses(t *testing.T) {
	if _, _, _, err := Generate(haystack(), Options{}); err == nil || !strings.Contains(err.Error(), "thesaurus") {
		t.Errorf("no thesaurus: %v", err)
	}
	if _, _, _, err := Generate(haystack(), Options{Memories: 100, Thesaurus: table}); err == nil || !strings.Contains(err.Error(), "100 exchanges") {
		t.Errorf("too few exchanges: %v", err)
	}
}
