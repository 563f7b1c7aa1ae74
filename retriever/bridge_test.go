//go:build cgo

package retriever_test

import (
	"strings"
	"testing"

	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/thesaurus"
	"github.com/omoide/omoide/tokenize"
)

// mikaStore is a cjk2 store of mika's three memories: a part-time job, a
// baseball game and the rain.
func mikaStore(t *testing.T) *sqlite.Store {
	s := newStore(t, tokenize.CJK2())
	add(t, s,
		ep("mika", "駅前でアルバイトを始めたよ", "どんなお店？", 30),
		ep("mika", "週末に野球を見に行った", "どっちが勝った？", 20),
		ep("mika", "雨で洗濯物が乾かない", "部屋干しだね", 10),
	)
	return s
}

// TestBridges: a candidate's Parts.Bridge is what package thesaurus says of
// the message's words and the episode's other words — equivalent for a
// word said in other words, sibling for the thing beside the one asked
// about — only with Options.Bridges and only for a message with kana.
func TestBridges(t *testing.T) {
	s := mikaStore(t)
	on := retriever.DefaultOptions()
	off := on
	off.Bridges = false
	for _, tt := range []struct {
		name string
		opts retriever.Options
		text string
		of   string // the candidate whose bridge is checked, by its text
		want thesaurus.Relation
	}{
		{"equivalent", on, "バイトは最近どうなの？", "駅前でアルバイトを始めたよ", thesaurus.Equivalent},
		{"sibling", on, "サッカーの試合はどうだった？", "週末に野球を見に行った", thesaurus.Sibling},
		{"nothing related", on, "バイトは最近どうなの？", "雨で洗濯物が乾かない", thesaurus.None},
		{"off", off, "バイトは最近どうなの？", "駅前でアルバイトを始めたよ", thesaurus.None},
		{"no kana", on, "打工", "駅前でアルバイトを始めたよ", thesaurus.None},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRetriever(t, s, tt.opts)
			res, err := r.Retrieve(ctx, retriever.Request{User: "mika", Text: tt.text, Recent: []retriever.Message{}, Now: now, WithCandidates: true})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range res.Ranked {
				if c.UserText == tt.of {
					found = true
					if c.Bridge != tt.want {
						t.Errorf("%q → %q: bridge %v, want %v", tt.text, tt.of, c.Bridge, tt.want)
					}
				}
			}
			if !found && tt.want != thesaurus.None {
				t.Errorf("%q: %q is no candidate", tt.text, tt.of)
			}
		})
	}
}

// TestEquivalents: with Options.Equivalents the BM25 query of a message
// with kana holds its terms' equivalents that some episode holds
// (アルバイト for バイト), so the memory said in other words is a candidate
// of the full-text search; without, or for a message without kana, not.
func TestEquivalents(t *testing.T) {
	s := mikaStore(t)
	on := retriever.DefaultOptions()
	off := on
	off.Equivalents = false
	for _, tt := range []struct {
		name string
		opts retriever.Options
		text string
		want bool
	}{
		{"on", on, "バイトは最近どうなの？", true},
		{"off", off, "バイトは最近どうなの？", false},
		{"no kana", on, "打工", false},
	} {
		res, err := newRetriever(t, s, tt.opts).Retrieve(ctx, retriever.Request{User: "mika", Text: tt.text, Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(res.Trace.BM25Match, " "), "アルバイト"); got != tt.want {
			t.Errorf("%s: %q searches %q; want アルバイト in it: %v", tt.name, tt.text, res.Trace.BM25Match, tt.want)
		}
	}
}
