package omoide_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// isolationUsers are the people of the isolation test: ordinary names, and
// names that differ from another only by case, a trailing space, a zero-width
// character, Unicode normalization (NFC é / NFD e+U+0301, full-width /
// half-width kana) or that hold SQL LIKE wildcards, so that any comparison
// looser than byte equality (COLLATE NOCASE, LIKE, NFKC, trimming) would mix
// their memories.
var isolationUsers = []string{
	"haruka", "Haruka", "haru ka", "haruka\u200b", "haru%", "haru_a", "%", "_",
	"u1", "u10", "line:U1", "line:U10",
	"ユーザー", "ﾕｰｻﾞｰ", "caf\u00e9", "cafe\u0301", "ＡＢＣ", "ABC",
	"مستخدم", "👩‍💻",
}

// Words the episodes and the queries are drawn from: few, so that every person
// shares most words with every other and a search that leaked across people
// would find plenty to return.
var (
	isoJA = []string{"ラーメン", "味噌", "駅前", "猫", "膝", "病院", "キャンプ", "週末", "仕事", "会議", "映画", "旅行",
		"京都", "カレー", "コーヒー", "雨", "散歩", "誕生日", "プレゼント", "電車", "遅刻", "試験", "ピアノ", "姉"}
	isoEN   = []string{"ramen", "miso", "station", "cat", "knee", "hospital", "camping", "weekend", "work", "meeting", "movie", "trip"}
	isoGlue = []string{"を食べた", "に行った", "が好き", "の話", "はどうだった", "で会った", "、", "。", " and ", " "}
)

// isoText returns a random text of n words with Japanese glue between them.
func isoText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if r.IntN(3) == 0 {
			b.WriteString(isoEN[r.IntN(len(isoEN))])
		} else {
			b.WriteString(isoJA[r.IntN(len(isoJA))])
		}
		if i < n-1 || r.IntN(2) == 0 {
			b.WriteString(isoGlue[r.IntN(len(isoGlue))])
		}
	}
	return b.String()
}

// isoSecret is a word only user i's episodes hold, so that a rendered
// evidence section can be checked for other people's words. No secret is a
// substring of another.
func isoSecret(i int) string { return fmt.Sprintf("zq%02dqz", i) }

// TestIsolationProperty stores random episodes of 20 people who share almost
// every word, then runs random retrievals (with the whole candidate list) and
// checks that no hit, no candidate and no rendered evidence belongs to
// another person; then forgets some people, deletes some episodes, and checks
// again. Both presets, each with its own store.
func TestIsolationProperty(t *testing.T) {
	for _, preset := range []string{omoide.PresetDefault, omoide.PresetReference} {
		t.Run(preset, func(t *testing.T) { testIsolation(t, preset) })
	}
}

func testIsolation(t *testing.T, preset string) {
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "iso.db"), Preset: preset})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	now := time.Date(2025, 12, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(6, 20))

	// Ingest in mixed batches: each batch holds several people's episodes.
	owner := map[int64]string{} // episode id -> user
	secretOf := map[string]string{}
	for i, u := range isolationUsers {
		secretOf[u] = isoSecret(i)
	}
	var pending []episode.Episode
	flush := func() {
		ids, err := mem.Add(ctx, pending...)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			// An id is never given twice, not even a deleted episode's.
			if prev, ok := owner[id]; ok {
				t.Fatalf("id %d returned for %q and %q", id, prev, pending[i].User)
			}
			owner[id] = pending[i].User
		}
		pending = pending[:0]
	}
	for range 20 * 25 {
		u := isolationUsers[r.IntN(len(isolationUsers))]
		pending = append(pending, episode.Episode{
			User:       u,
			UserText:   isoText(r, 2+r.IntN(5)),
			ReplyText:  isoText(r, 1+r.IntN(3)) + " " + secretOf[u],
			OccurredAt: now.Add(-time.Duration(1+r.IntN(300*24)) * time.Hour),
		})
		if len(pending) == 1+r.IntN(16) {
			flush()
		}
	}
	if len(pending) > 0 {
		flush()
	}

	queries, candidates := 0, 0
	check := func(phase string, rounds int, gone map[string]bool) {
		t.Helper()
		empty := 0
		for range rounds {
			u := isolationUsers[r.IntN(len(isolationUsers))]
			req := retriever.Request{User: u, Text: isoText(r, 1+r.IntN(4)), Now: now, WithCandidates: true}
			switch r.IntN(3) {
			case 0: // nil: the person's own last stored episodes are the context
			case 1:
				req.Recent = []retriever.Message{}
			case 2: // context taken from another person's words
				other := isolationUsers[r.IntN(len(isolationUsers))]
				req.Recent = []retriever.Message{
					{Role: "user", Content: isoText(r, 3) + " " + secretOf[other]},
					{Role: "assistant", Content: isoText(r, 2)},
				}
			}
			if r.IntN(4) == 0 { // sometimes the message names another person's secret word
				req.Text += " " + secretOf[isolationUsers[r.IntN(len(isolationUsers))]]
			}
			section, res, err := mem.Evidence(ctx, req)
			if err != nil {
				t.Fatalf("%s: retrieve %q for %q: %v", phase, req.Text, u, err)
			}
			queries++
			if len(res.Candidates) == 0 {
				empty++
			}
			for _, list := range [][]retriever.Hit{res.Hits, res.Candidates} {
				for _, h := range list {
					candidates++
					if h.Episode.User != u || owner[h.Episode.ID] != u {
						t.Fatalf("%s: retrieval for %q (%q) returned episode %d of %q (stored for %q)",
							phase, u, req.Text, h.Episode.ID, h.Episode.User, owner[h.Episode.ID])
					}
				}
			}
			for other, secret := range secretOf {
				if other != u && strings.Contains(section, secret) {
					t.Fatalf("%s: evidence for %q holds %q's word %s:\n%s", phase, u, other, secret, section)
				}
			}
			if gone[u] && len(res.Candidates) != 0 {
				t.Fatalf("%s: forgotten %q still has %d candidates", phase, u, len(res.Candidates))
			}
		}
		// The property must not hold vacuously.
		if empty > rounds/2 {
			t.Fatalf("%s: %d of %d retrievals had no candidate at all", phase, empty, rounds)
		}
	}
	check("after ingest", 200, nil)

	// Forget four people, delete a tenth of the rest, add new episodes for
	// two forgotten people: nothing old of theirs may come back, and nobody
	// else's episodes may surface for them.
	gone := map[string]bool{}
	for _, u := range []string{"haruka", "ﾕｰｻﾞｰ", "%", "cafe\u0301"} {
		if _, err := mem.Store.Forget(ctx, u); err != nil {
			t.Fatal(err)
		}
		gone[u] = true
	}
	var del []int64
	for id, u := range owner {
		if !gone[u] && r.IntN(10) == 0 {
			del = append(del, id)
		}
	}
	if _, err := mem.Store.Delete(ctx, del...); err != nil {
		t.Fatal(err)
	}
	for _, id := range del {
		owner[id] = "(deleted)"
	}
	for id, u := range owner {
		if gone[u] {
			owner[id] = "(forgotten)"
		}
	}
	check("after forget", 100, gone)
	for _, u := range []string{"haruka", "%"} {
		delete(gone, u)
		for range 5 {
			pending = append(pending, episode.Episode{User: u, UserText: isoText(r, 4), ReplyText: secretOf[u], OccurredAt: now.Add(-time.Hour)})
		}
	}
	flush()
	check("after re-adding", 100, gone)

	if rep, err := mem.Store.Check(ctx); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("check: %v, %v", rep.Problems, err)
	}
	t.Logf("%s: %d episodes of %d people, %d retrievals, %d hits and candidates checked", preset, len(owner), len(isolationUsers), queries, candidates)
}
