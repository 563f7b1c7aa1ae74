package omoide_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// hostileTexts are message texts that are FTS5 syntax, control bytes, or
// Unicode that text pipelines often mishandle. Each must be stored exactly
// and be searchable, or (invalid UTF-8 only) be rejected with a clear error.
var hostileTexts = []struct {
	name, text string
}{
	{"AND OR NOT", "ラーメン AND うどん OR そば NOT カレー"},
	{"bare operators", "AND OR NOT"},
	{"NEAR", "NEAR(味噌 ラーメン, 2) NEAR("},
	{"prefix star", "ラー* ramen* *"},
	{"caret", "^ラーメン ^start"},
	{"column filter", "user_text:ラーメン reply_text : x {user_text reply_text}: y -user_text:z"},
	{"quotes", `he said "味噌 and ' quote "" unbalanced "`},
	{"parentheses", "((ラーメン OR ) AND ( うどん"},
	{"sql", "'; DROP TABLE episodes; -- /* x */"},
	{"NUL", "ラーメン\x00食べた\x00"},
	{"only NUL", "\x00"},
	{"C0 and ANSI", "\x01\x02\x1b[31mred\x1b[0m\x7f\ttab"},
	{"emoji", "😀🍜 ラーメン👍🏽 family 👨‍👩‍👧‍👦 flag 🇯🇵"},
	{"combining marks", "cafe\u0301 e\u0301\u0301\u0301 か\u3099 Z\u0351\u0360\u0361\u035c\u035d\u035e\u035f"},
	{"zero-width", "ラー\u200bメン\u200d味\ufeff噌 \u200b\u200d\ufeff word\u2060joiner"},
	{"BOM first", "\ufeffラーメンを食べた"},
	{"Arabic", "أكلت الرامن في المحطة"},
	{"Hebrew", "אכלתי ראמן בתחנה"},
	{"RLO override", "\u202eنمار\u202c ラーメン \u202dLTR\u202c \u2067isolate\u2069"},
	{"mixed bidi", "ramen رامن ראמן ラーメン"},
	{"U+FFFD valid", "\uFFFD ラーメン \uFFFD"},
	{"noncharacters", "\U0010FFFF \uFFFE \uFDD0 ラーメン"},
	{"private use", "\uE000\uF8FF ラーメン"},
	{"ideographic space only", "\u3000\u3000"},
	{"punctuation only", "。、！？「」…"},
	{"long token", strings.Repeat("ラ", 2000)},
	{"1 MB", strings.Repeat("駅前の味噌ラーメンを食べた。", 1<<20/len("駅前の味噌ラーメンを食べた。"))},
}

// invalidUTF8 are byte strings that are not UTF-8.
var invalidUTF8 = []string{"ラーメン\xff", "\xc3\x28", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "abc\xe3\x81"}

// TestHostileInputs stores every hostile text through the Memory API, reads
// it back byte for byte, retrieves with it as the message and as the
// context, and checks that a BM25-only retrieval of a text with any query
// term finds the episode that holds it. Invalid UTF-8 must fail Add with an
// error saying so, storing nothing, and fail Retrieve cleanly.
func TestHostileInputs(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, preset := range []string{omoide.PresetDefault, omoide.PresetReference} {
		t.Run(preset, func(t *testing.T) {
			mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "h.db"), Preset: preset})
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			// A BM25-only retriever over the same store, without the
			// small-talk skip, time windows, common-term cut or echo
			// filter, so that finding an episode depends on its text alone.
			o := mem.Retriever.Options()
			o.Vector.K, o.SkipSmallTalk, o.TimeAware, o.Context.ExcludeRecent = 0, false, false, false
			o.BM25.MaxRows, o.BM25.MaxPostings, o.BM25.MaxTermShare = 0, 0, 0
			bm25, err := retriever.New(mem.Store, o)
			if err != nil {
				t.Fatal(err)
			}
			// Background episodes, so that BM25 has something else to rank.
			if _, err := mem.Add(ctx,
				episode.Episode{User: "u", UserText: "昨日は京都で湯豆腐を食べた", ReplyText: "いいね", OccurredAt: now.AddDate(0, 0, -3)},
				episode.Episode{User: "u", UserText: "週末は映画を見た", ReplyText: "何を見たの？", OccurredAt: now.AddDate(0, 0, -2)},
			); err != nil {
				t.Fatal(err)
			}
			for i, tc := range hostileTexts {
				t.Run(tc.name, func(t *testing.T) {
					big := len(tc.text) > 64<<10 // spare the slow paths a second megabyte
					reply := tc.text
					if big {
						reply = "長いね"
					}
					e := episode.Episode{User: "u", ExternalID: fmt.Sprintf("h%d", i), UserText: tc.text, ReplyText: reply,
						OccurredAt: now.Add(-time.Duration(i+1) * time.Hour)}
					if big { // over the bound: refused, naming it; its head is stored
						if _, err := mem.Add(ctx, e); !errors.Is(err, episode.ErrTooLong) || !strings.Contains(err.Error(), strconv.Itoa(episode.MaxTextBytes)) {
							t.Fatalf("Add of %d bytes = %v, want ErrTooLong naming %d", len(tc.text), err, episode.MaxTextBytes)
						}
						e.UserText = strings.ToValidUTF8(tc.text[:episode.MaxTextBytes-len(reply)], "")
					}
					ids, err := mem.Add(ctx, e)
					if err != nil {
						t.Fatalf("Add: %v", err)
					}
					got, err := mem.Store.Get(ctx, ids[0])
					if err != nil {
						t.Fatal(err)
					}
					if got.UserText != e.UserText || got.ReplyText != reply {
						t.Fatalf("stored text differs: got %d/%d bytes %q…, want %d bytes %q…",
							len(got.UserText), len(got.ReplyText), clip(got.UserText), len(e.UserText), clip(e.UserText))
					}
					// As the message, through the default pipeline, with and
					// without context; and as the context of another message.
					reqs := []retriever.Request{
						{User: "u", Text: tc.text, Now: now, WithCandidates: true},
						{User: "u", Text: "湯豆腐の話", Now: now, Recent: []retriever.Message{{Role: "user", Content: tc.text}}},
						{User: "u", Text: tc.text, Now: now, Recent: []retriever.Message{{Role: "user", Content: tc.text}, {Role: "assistant", Content: tc.text}}},
					}
					if big { // one retrieval over the megabyte: as the message, or as the context
						reqs = reqs[:1]
						if preset != omoide.PresetDefault {
							reqs = reqs[1:2]
						}
					}
					for _, req := range reqs {
						section, res, err := mem.Evidence(ctx, req)
						if err != nil {
							t.Fatalf("Evidence(text %q…, %d recent): %v", clip(req.Text), len(req.Recent), err)
						}
						if !utf8.ValidString(section) {
							t.Fatalf("evidence section is not valid UTF-8")
						}
						checkOwn(t, res, "u")
					}
					// Self-retrieval by BM25 alone, whenever the analyzer
					// leaves the message a query term. Under the reference
					// preset's raw analyzer a text is not always found by
					// itself, by design or by its defects: the query is
					// clipped to MaxQueryChars inside an unsegmented token
					// (long token, 1 MB), and MatchQuery deletes a NUL that
					// unicode61 reads as a separator, joining its neighbours
					// ("ラーメン\x00食べた" is indexed as two tokens and
					// queried as one). The default analyzer finds them all.
					if preset != omoide.PresetDefault {
						return
					}
					res, err := bm25.Retrieve(ctx, retriever.Request{User: "u", Text: tc.text, Now: now, Recent: []retriever.Message{}, WithCandidates: true})
					if err != nil {
						t.Fatalf("BM25 retrieval: %v", err)
					}
					checkOwn(t, res, "u")
					if match := res.Trace.BM25Match; len(match) > 0 && match[0] != "" && searchable(mem.Store.Analyzer(), tc.text) {
						if !slices.ContainsFunc(res.Candidates, func(h retriever.Hit) bool { return h.Episode.ID == ids[0] }) {
							t.Fatalf("BM25 query %s did not find the episode that holds the text (%d candidates)", clip(match[0]), len(res.Candidates))
						}
					}
				})
			}

			t.Run("invalid UTF-8", func(t *testing.T) {
				before, err := mem.Store.Stats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range invalidUTF8 {
					for _, e := range []episode.Episode{
						{User: "u", UserText: bad, OccurredAt: now},
						{User: "u", UserText: "ok", ReplyText: bad, OccurredAt: now},
						{User: bad, UserText: "ok", OccurredAt: now},
						{User: "u", ExternalID: bad, UserText: "ok", OccurredAt: now},
						{User: "u", UserText: "ok", Source: bad, OccurredAt: now},
					} {
						// In a batch behind a good episode: the whole batch fails.
						_, err := mem.Add(ctx, episode.Episode{User: "u", UserText: "good", OccurredAt: now}, e)
						if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") || !strings.Contains(err.Error(), "episode 1") {
							t.Errorf("Add(%q) = %v, want an error naming episode 1 as not valid UTF-8", bad, err)
						}
					}
					if _, err := mem.Retrieve(ctx, retriever.Request{User: "u", Text: bad, Now: now}); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
						t.Errorf("Retrieve(%q) = %v, want a not-valid-UTF-8 error", bad, err)
					}
					// Invalid bytes in the context or the user name are refused
					// too: replaced, two people's names would become one.
					res, err := mem.Retrieve(ctx, retriever.Request{User: "u", Text: "ラーメン", Now: now, WithCandidates: true,
						Recent: []retriever.Message{{Role: "user", Content: "ok"}, {Role: "assistant", Content: bad + "ラーメン"}}})
					if err == nil || !strings.Contains(err.Error(), "recent[1] is not valid UTF-8") || len(res.Candidates) != 0 {
						t.Errorf("Retrieve with context %q: %d candidates, %v; want an error naming recent[1]", bad, len(res.Candidates), err)
					}
					if res, err := mem.Retrieve(ctx, retriever.Request{User: bad, Text: "ラーメン", Now: now, WithCandidates: true}); err == nil || !strings.Contains(err.Error(), "user is not valid UTF-8") || len(res.Candidates) != 0 {
						t.Errorf("Retrieve for user %q: %d candidates, %v; want a not-valid-UTF-8 error", bad, len(res.Candidates), err)
					}
				}
				after, err := mem.Store.Stats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if after.Episodes != before.Episodes || after.FTSRows != before.FTSRows || after.VectorRows != before.VectorRows {
					t.Errorf("rejected batches changed the store: %+v -> %+v", before, after)
				}
			})

			t.Run("hostile users", func(t *testing.T) {
				for _, u := range []string{"\x00", "u\x00v", "..", "a/b", "mika "} { // the name rule (episode.CheckUser)
					if _, err := mem.Add(ctx, episode.Episode{User: u, UserText: "味噌ラーメンを食べた", OccurredAt: now}); !errors.Is(err, episode.ErrBadUser) {
						t.Errorf("Add for user %q: %v, want episode.ErrBadUser", u, err)
					}
				}
				users := []string{"NEAR(", `"`, "*", "%", "\u202eresu", "مستخدم", "👨‍👩‍👧", "e\u0301", "\u200b", strings.Repeat("u", episode.MaxUserLen)}
				for _, u := range users {
					ids, err := mem.Add(ctx, episode.Episode{User: u, UserText: "味噌ラーメンを食べた", OccurredAt: now})
					if err != nil {
						t.Fatalf("Add for user %q: %v", u, err)
					}
					res, err := mem.Retrieve(ctx, retriever.Request{User: u, Text: "味噌ラーメン", Now: now, Recent: []retriever.Message{}, WithCandidates: true})
					if err != nil {
						t.Fatalf("Retrieve for user %q: %v", u, err)
					}
					checkOwn(t, res, u)
					if len(res.Candidates) != 1 || res.Candidates[0].Episode.ID != ids[0] {
						t.Fatalf("user %q: candidates %d, want exactly the one episode %d", u, len(res.Candidates), ids[0])
					}
				}
				_, err := mem.Add(ctx, episode.Episode{User: strings.Repeat("u", episode.MaxUserLen+1), UserText: "x", OccurredAt: now})
				if err == nil || !strings.Contains(err.Error(), "longer than 256") {
					t.Errorf("over-long user: %v", err)
				}
			})

			t.Run("10k recent messages", func(t *testing.T) {
				recent := make([]retriever.Message, 10000)
				for i := range recent {
					tc := hostileTexts[i%(len(hostileTexts)-1)] // all but the 1 MB one
					recent[i] = retriever.Message{Role: []string{"user", "assistant", "system", "tool"}[i%4], Content: tc.text}
				}
				for _, text := range []string{"味噌ラーメンの話、覚えてる？", "NEAR( AND \x00 \u202e"} {
					res, err := mem.Retrieve(ctx, retriever.Request{User: "u", Text: text, Now: now, Recent: recent, WithCandidates: true})
					if err != nil {
						t.Fatalf("Retrieve with 10 000 recent messages: %v", err)
					}
					checkOwn(t, res, "u")
				}
			})

			if rep, err := mem.Store.Check(ctx); err != nil || len(rep.Problems) != 0 {
				t.Fatalf("check: %v, %v", rep.Problems, err)
			}
		})
	}
}

// searchable reports whether text has an analyzed term that FTS5's unicode61
// tokenizer keeps a token of: it indexes letters, numbers and private-use
// characters (categories L*, N*, Co), so a term of only punctuation, symbols
// or emoji indexes as nothing and can match nothing.
func searchable(a tokenize.Analyzer, text string) bool {
	for _, term := range a.Terms(text) {
		if strings.ContainsFunc(term, func(r rune) bool { return unicode.In(r, unicode.L, unicode.N, unicode.Co) }) {
			return true
		}
	}
	return false
}

func checkOwn(t *testing.T, res retriever.Result, user string) {
	t.Helper()
	for _, list := range [][]retriever.Hit{res.Hits, res.Candidates} {
		for _, h := range list {
			if h.Episode.User != user {
				t.Fatalf("retrieval for %q returned %q's episode %d", user, h.Episode.User, h.Episode.ID)
			}
		}
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60]
	}
	return s
}
