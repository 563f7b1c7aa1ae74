package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

// addEpisodes stores eps one Add each, in the order given, and returns
// them with their ids and their times to the second, as the store holds them.
func addEpisodes(t testing.TB, s *Store, eps ...episode.Episode) []episode.Episode {
	t.Helper()
	out := make([]episode.Episode, len(eps))
	for i, e := range eps {
		ids, err := s.Add(ctx, []episode.Episode{e})
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = s.Get(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sensitive(e episode.Episode, v episode.Sensitivity) episode.Episode {
	e.Sensitivity = v
	return e
}

func episodeIDs(eps []episode.Episode) []int64 {
	ids := make([]int64, len(eps))
	for i, e := range eps {
		ids[i] = e.ID
	}
	return ids
}

// TestNewest pages through haruka's 7 episodes 3 at a time, newest first,
// equal times by id descending, each episode once; the ceiling leaves the
// private and secret ones out, and mio's episodes, added in between at the
// same times, never appear.
func TestNewest(t *testing.T) {
	s := newStore(t)
	h := func(text string, hours int) episode.Episode {
		return ep("haruka", text, "", day.Add(time.Duration(hours)*time.Hour))
	}
	m := func(text string, hours int) episode.Episode {
		return ep("mio", text, "", day.Add(time.Duration(hours)*time.Hour))
	}
	// Ids rise in the order added, which is not the order in time: hours 1
	// and 2 hold three and two episodes whose ids are not adjacent.
	stored := addEpisodes(t, s,
		h("あ", 2), m("い", 2), h("う", 1), sensitive(h("え", 3), episode.SensitivitySecret),
		h("お", 1), m("か", 1), sensitive(h("き", 2), episode.SensitivityPrivate), h("く", 0),
		sensitive(h("け", 1), episode.SensitivityPrivate), m("こ", 3))
	want := func(ceiling episode.Sensitivity) []int64 {
		var w []episode.Episode
		for _, e := range stored {
			if e.User == "haruka" && e.Sensitivity <= ceiling {
				w = append(w, e)
			}
		}
		slices.SortFunc(w, func(a, b episode.Episode) int {
			if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
				return c
			}
			return int(b.ID - a.ID)
		})
		return episodeIDs(w)
	}
	for _, tc := range []struct {
		ceiling episode.Sensitivity
		pages   []int // the pages' sizes at limit 3
	}{
		{episode.SensitivitySecret, []int{3, 3, 1}},
		{episode.SensitivityPrivate, []int{3, 3}},
		{episode.SensitivityNormal, []int{3, 1}},
	} {
		t.Run(tc.ceiling.String(), func(t *testing.T) {
			var got []int64
			var sizes []int
			var after Cursor
			for page := 0; ; page++ {
				if page > 10 {
					t.Fatalf("still paging after %d pages: %v", page, got)
				}
				eps, err := s.Newest(ctx, "haruka", after, tc.ceiling, 3)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range eps {
					if e.User != "haruka" || e.Sensitivity > tc.ceiling {
						t.Fatalf("page %d holds %+v", page, e)
					}
				}
				if len(eps) == 0 {
					break
				}
				got = append(got, episodeIDs(eps)...)
				sizes = append(sizes, len(eps))
				// The next page's cursor, through its text form as a URL carries it.
				text := CursorOf(eps[len(eps)-1]).String()
				if after, err = ParseCursor(text); err != nil {
					t.Fatal(err)
				}
			}
			if w := want(tc.ceiling); !slices.Equal(got, w) {
				t.Errorf("episodes %v, want %v", got, w)
			}
			if !slices.Equal(sizes, tc.pages) {
				t.Errorf("pages of %v episodes, want %v", sizes, tc.pages)
			}
		})
	}
	if eps, err := s.Newest(ctx, "nobody", Cursor{}, episode.SensitivitySecret, 3); err != nil || eps != nil {
		t.Errorf("Newest of nobody = %v, %v; want nil, nil", eps, err)
	}
	for _, limit := range []int{0, -1} {
		if _, err := s.Newest(ctx, "haruka", Cursor{}, episode.SensitivitySecret, limit); err == nil || !strings.Contains(err.Error(), "limit "+strconv.Itoa(limit)) {
			t.Errorf("limit %d: error %v, want one naming the limit", limit, err)
		}
	}
	if _, err := s.Newest(ctx, "haru\xffka", Cursor{}, episode.SensitivitySecret, 3); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8 user: error %v, want one saying so", err)
	}
}

// TestNewestPlan: a page of Newest walks down episodes_user_time from the
// cursor in the order asked for, without sorting the person's episodes; so
// does a page of people for each person's newest time.
func TestNewestPlan(t *testing.T) {
	s := newStore(t)
	addEpisodes(t, s, ep("haruka", "あ", "", day), ep("mio", "い", "", day))
	for _, tc := range []struct {
		q    string
		args []any
	}{
		{newestSQL, []any{"haruka", day.Unix(), 5, 0, 50}},
		{peopleWithSQL, []any{0, "", "a", 50}},
	} {
		all := queryPlan(t, s, tc.q, tc.args...)
		if !strings.Contains(all, "INDEX episodes_user_time (user=?") || strings.Contains(all, "TEMP B-TREE") {
			t.Errorf("plan:\n%s\nwant a search of episodes_user_time by user, and no sort", all)
		}
	}
}

// TestSensitivePlan: a count under each ceiling, a person's or everyone's
// and in a page of people, reads the episodes above it from the partial
// index episodes_sensitive alone (a person's normal episodes, most of them,
// are not read: nothing else of the episodes is scanned), and the page of
// people is grouped without a sort. SQLite compares a bound value with the
// index's term, so ceiling 0 alone would use the index without the term's
// literal copy in the query; 1 and 2 need it.
func TestSensitivePlan(t *testing.T) {
	s := newStore(t)
	addEpisodes(t, s, ep("haruka", "あ", "", day), sensitive(ep("haruka", "い", "", day), episode.SensitivitySecret), ep("mio", "う", "", day))
	for ceiling := episode.SensitivityNormal; ceiling <= episode.SensitivitySecret; ceiling++ {
		for _, tc := range []struct {
			q    string
			args []any
			want string
		}{
			{countUpToSQL, []any{"haruka", int(ceiling)}, "COVERING INDEX episodes_sensitive (user=? AND sensitivity>?)"},
			{countAllUpToSQL, []any{int(ceiling)}, "SCAN episodes USING COVERING INDEX episodes_sensitive"},
			{peopleWithSQL, []any{int(ceiling), "", "", 50}, "COVERING INDEX episodes_sensitive (user=? AND sensitivity>?)"},
		} {
			all := queryPlan(t, s, tc.q, tc.args...)
			scans := false
			for line := range strings.Lines(all) {
				line = strings.TrimSpace(line)
				scans = scans || strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "episodes_sensitive") &&
					line != "SCAN CONSTANT ROW" && line != "SCAN partitions" // a row a person, for everyone's count
			}
			if !strings.Contains(all, tc.want) || strings.Contains(all, "TEMP B-TREE") || scans {
				t.Errorf("ceiling %v, plan:\n%s\nwant %s, no other scan of the episodes and no sort", ceiling, all, tc.want)
			}
		}
	}
}

// queryPlan returns the details of q's EXPLAIN QUERY PLAN, a line each.
func queryPlan(t *testing.T, s *Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.db.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	t.Logf("plan of %.40q…:\n%s", q, all)
	return all
}

// TestParseCursor: a cursor's text reads back as the cursor; any other text
// is refused, naming it.
func TestParseCursor(t *testing.T) {
	for _, c := range []Cursor{
		{day, 42},
		{time.Unix(0, 0).UTC(), 1},
		{episode.MinOccurredAt, 7}, // before 1970: negative seconds
		{episode.MaxOccurredAt, 1 << 62},
	} {
		text := c.String()
		got, err := ParseCursor(text)
		if err != nil || got != c {
			t.Errorf("ParseCursor(%q) = %v, %v; want %v", text, got, err, c)
		}
	}
	if got := (Cursor{day, 42}).String(); got != "1748779200.42" {
		t.Errorf("String = %q, want 1748779200.42", got)
	}
	if got := (Cursor{}).String(); got != "" {
		t.Errorf("the zero Cursor's String = %q, want \"\"", got)
	}
	for _, bad := range []string{"", "x", "1.", ".2", "1.2.3", "1.0", "1.-2", "+1.2", "01.2", "1.02", "-0.2", " 1.2", "1.2 ", "1,2", "9223372036854775808.1"} {
		if c, err := ParseCursor(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParseCursor(%q) = %v, %v; want an error naming %q", bad, c, err, bad)
		}
	}
}

// TestSearch finds a person's episodes by a Japanese word, up to the
// ceiling; a text of no terms finds nothing, and FTS5 syntax in a text is
// text.
func TestSearch(t *testing.T) {
	s := newStore(t)
	stored := addEpisodes(t, s,
		ep("haruka", "昨日ラーメンを食べた", "いいね！", day),
		sensitive(ep("haruka", "ラーメン屋で彼に会ったのは秘密", "", day.Add(time.Hour)), episode.SensitivitySecret),
		ep("haruka", "図書館で本を借りた", "何の本？", day.Add(2*time.Hour)),
		ep("mio", "ラーメンが好き", "", day.Add(3*time.Hour)))
	normal, secret, library := stored[0].ID, stored[1].ID, stored[2].ID
	for _, tc := range []struct {
		user, text string
		ceiling    episode.Sensitivity
		want       []int64 // in any order when several
	}{
		{"haruka", "ラーメン", episode.SensitivityNormal, []int64{normal}},
		{"haruka", "ラーメン", episode.SensitivityPrivate, []int64{normal}},
		{"haruka", "ラーメン", episode.SensitivitySecret, []int64{normal, secret}},
		{"haruka", "図書館で", episode.SensitivitySecret, []int64{library}},
		{"haruka", "本を借りたい", episode.SensitivitySecret, []int64{library}},
		// Han alone is Chinese to a "cjk2" store's analyzer: 図書館's bigrams,
		// which the Japanese text's word 図書館 does not hold.
		{"haruka", "図書館", episode.SensitivitySecret, nil},
		{"haruka", "温泉", episode.SensitivitySecret, nil},
		{"nobody", "ラーメン", episode.SensitivitySecret, nil},
		{"mio", "ラーメン", episode.SensitivitySecret, []int64{stored[3].ID}},
		// FTS5 syntax is searched as text.
		{"haruka", `"ラーメン"`, episode.SensitivityNormal, []int64{normal}},
		{"haruka", `ラーメン*`, episode.SensitivityNormal, []int64{normal}},
		{"haruka", `-ラーメン`, episode.SensitivityNormal, []int64{normal}},
		{"haruka", `NEAR(ラーメン 図書館)`, episode.SensitivityNormal, []int64{normal, library}},
		{"haruka", `ラーメン" OR "図書館`, episode.SensitivityNormal, []int64{normal, library}},
		{"haruka", `user_text: ラーメン`, episode.SensitivityNormal, []int64{normal}},
		{"haruka", `person : "p6d696f"`, episode.SensitivitySecret, nil}, // mio's person token
	} {
		got, err := s.Search(ctx, tc.user, tc.text, tc.ceiling, 10)
		if err != nil {
			t.Errorf("Search(%q, %q, %v): %v", tc.user, tc.text, tc.ceiling, err)
			continue
		}
		for _, e := range got {
			if e.User != tc.user || e.Sensitivity > tc.ceiling {
				t.Errorf("Search(%q, %q, %v) found %+v", tc.user, tc.text, tc.ceiling, e)
			}
		}
		ids := episodeIDs(got)
		slices.Sort(ids)
		if !slices.Equal(ids, tc.want) {
			t.Errorf("Search(%q, %q, %v) = %v, want %v", tc.user, tc.text, tc.ceiling, ids, tc.want)
		}
	}
	// Only punctuation, or only FTS5's operators: no error, whatever they analyze to.
	for _, text := range []string{"", "  ", "！？。、…", `"`, `*`, `NEAR(`, `OR`, `-`, `AND NOT`, `^`, `:`, `{`, `"""`, "(", ")"} {
		got, err := s.Search(ctx, "haruka", text, episode.SensitivitySecret, 10)
		if err != nil {
			t.Errorf("Search(%q): %v", text, err)
		}
		if len(tokenize.MatchPhrases(s.analyzer.Terms(text))) == 0 && got != nil {
			t.Errorf("Search(%q), a text of no terms, = %v, want nil", text, got)
		}
	}
	if got, err := s.Search(ctx, "haruka", "！？。、…", episode.SensitivitySecret, 10); got != nil || err != nil {
		t.Errorf("Search of punctuation = %v, %v; want nil, nil", got, err)
	}
	if _, err := s.Search(ctx, "haruka", "ラーメン", episode.SensitivitySecret, 0); err == nil || !strings.Contains(err.Error(), "limit 0") {
		t.Errorf("limit 0: error %v, want one naming the limit", err)
	}
	// Best first: the episode holding both words comes before those holding one.
	both := addEpisodes(t, s, ep("haruka", "図書館の帰りにラーメン", "", day.Add(5*time.Hour)))[0].ID
	if got, err := s.Search(ctx, "haruka", "図書館 ラーメン", episode.SensitivityNormal, 10); err != nil || len(got) != 3 || got[0].ID != both {
		t.Errorf("Search(図書館 ラーメン) = %v, %v; want %d first of 3", episodeIDs(got), err, both)
	}
	if got, err := s.Search(ctx, "haruka", "図書館 ラーメン", episode.SensitivityNormal, 1); err != nil || len(got) != 1 || got[0].ID != both {
		t.Errorf("Search(図書館 ラーメン, limit 1) = %v, %v; want [%d]", episodeIDs(got), err, both)
	}
}

// TestPeopleWith pages through the people in name order, filters their
// names by a substring, % and _ among its characters, and tells each
// person's newest episode.
func TestPeopleWith(t *testing.T) {
	s := newStore(t)
	newest := map[string]time.Time{}
	for i, u := range []string{"haruka", "mio", "山田花子", "山本", "100%off", "100xoff", "a_b", "axb", "line:U1"} {
		for j := range i%3 + 1 {
			at := day.Add(time.Duration(10*i+j) * time.Hour)
			if j == 1 { // the newest is not the last added
				at = day.Add(time.Duration(10*i+5) * time.Hour)
			}
			addEpisodes(t, s, ep(u, fmt.Sprintf("話 %d", j), "", at))
			if at.After(newest[u]) {
				newest[u] = at
			}
		}
	}
	addEpisodes(t, s, ep("gone", "さようなら", "", day))
	if _, err := s.Forget(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		contains string
		want     []string
	}{
		{"", []string{"100%off", "100xoff", "a_b", "axb", "haruka", "line:U1", "mio", "山本", "山田花子"}},
		{"%", []string{"100%off"}},
		{"_", []string{"a_b"}},
		{"0%o", []string{"100%off"}},
		{"山", []string{"山本", "山田花子"}},
		{"田花", []string{"山田花子"}},
		{"a", []string{"a_b", "axb", "haruka"}},
		{"A", nil}, // case counts
		{"gone", nil},
		{"ラーメン", nil},
	} {
		for _, limit := range []int{2, 100} {
			var got []string
			after := ""
			for page := 0; ; page++ {
				if page > 10 {
					t.Fatalf("%q: still paging after %d pages", tc.contains, page)
				}
				ps, err := s.PeopleWith(ctx, PeopleQuery{After: after, Contains: tc.contains, Limit: limit})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					got = append(got, p.User)
					n, _ := s.Count(ctx, p.User)
					if !p.Newest.Equal(newest[p.User]) || p.Episodes != n {
						t.Errorf("%s: %d episodes, newest %v; want %d, %v", p.User, p.Episodes, p.Newest, n, newest[p.User])
					}
				}
				if len(ps) < limit {
					break
				}
				after = ps[len(ps)-1].User
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Contains %q, limit %d: %q, want %q", tc.contains, limit, got, tc.want)
			}
		}
	}
	if _, err := s.PeopleWith(ctx, PeopleQuery{Limit: 0}); err == nil || !strings.Contains(err.Error(), "limit 0") {
		t.Errorf("limit 0: error %v, want one naming the limit", err)
	}
	if _, err := s.PeopleWith(ctx, PeopleQuery{Contains: "\xff", Limit: 5}); err == nil {
		t.Error("a name filter of invalid UTF-8: no error")
	}
	// People is as it was.
	if ps, err := s.People(ctx, "line:U1", 2); err != nil || fmt.Sprint(ps) != "[{mio 2} {山本 1}]" {
		t.Errorf("People(line:U1, 2) = %v, %v", ps, err)
	}
}

// TestPeopleWithCeiling: under each ceiling PeopleWith lists only the
// people with an episode at or below it, each with those episodes' count
// and newest time: kenji, whose episodes are all secret, is not there below
// secret, and haruka's newest under normal is her newest normal episode,
// not the private and secret ones after it. Pages of one or two step over
// the people hidden between the others, and the name filter keeps to the
// ceiling too.
func TestPeopleWithCeiling(t *testing.T) {
	s := newStore(t)
	at := func(hours int) time.Time { return day.Add(time.Duration(hours) * time.Hour) }
	nanaNormal := ep("nana", "く", "", at(1))
	nanaNormal.ExternalID = "n1"
	addEpisodes(t, s,
		ep("haruka", "あ", "", at(0)), ep("haruka", "い", "", at(1)),
		sensitive(ep("haruka", "う", "", at(2)), episode.SensitivityPrivate),
		sensitive(ep("haruka", "え", "", at(3)), episode.SensitivitySecret),
		sensitive(ep("kenji", "お", "", at(6)), episode.SensitivitySecret),
		sensitive(ep("kenji", "か", "", at(5)), episode.SensitivitySecret),
		sensitive(ep("mio", "き", "", at(4)), episode.SensitivityPrivate),
		nanaNormal,
		sensitive(ep("nana", "け", "", at(7)), episode.SensitivitySecret))
	pa := func(user string, n, hours int) PersonActivity { return PersonActivity{Person{user, n}, at(hours)} }
	for _, tc := range []struct {
		ceiling  episode.Sensitivity
		contains string
		want     []PersonActivity
	}{
		{episode.SensitivityNormal, "", []PersonActivity{pa("haruka", 2, 1), pa("nana", 1, 1)}},
		{episode.SensitivityPrivate, "", []PersonActivity{pa("haruka", 3, 2), pa("mio", 1, 4), pa("nana", 1, 1)}},
		{episode.SensitivitySecret, "", []PersonActivity{pa("haruka", 4, 3), pa("kenji", 2, 6), pa("mio", 1, 4), pa("nana", 2, 7)}},
		{episode.SensitivitySecret + 1, "", []PersonActivity{pa("haruka", 4, 3), pa("kenji", 2, 6), pa("mio", 1, 4), pa("nana", 2, 7)}},
		{episode.SensitivityNormal - 1, "", nil},
		{episode.SensitivityNormal, "k", []PersonActivity{pa("haruka", 2, 1)}},
		{episode.SensitivityPrivate, "k", []PersonActivity{pa("haruka", 3, 2)}},
		{episode.SensitivitySecret, "k", []PersonActivity{pa("haruka", 4, 3), pa("kenji", 2, 6)}},
		{episode.SensitivityNormal, "i", nil}, // mio's and kenji's alone, above normal
	} {
		for _, limit := range []int{1, 2, 100} {
			var got []PersonActivity
			after := ""
			for page := 0; ; page++ {
				if page > 10 {
					t.Fatalf("%v %q: still paging after %d pages", tc.ceiling, tc.contains, page)
				}
				ps, err := s.PeopleWith(ctx, PeopleQuery{After: after, Contains: tc.contains, MaxSensitivity: tc.ceiling, Limit: limit})
				if err != nil {
					t.Fatal(err)
				}
				if len(ps) > limit {
					t.Errorf("%v %q: a page of %d, limit %d", tc.ceiling, tc.contains, len(ps), limit)
				}
				got = append(got, ps...)
				if len(ps) < limit {
					break
				}
				after = ps[len(ps)-1].User
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%v, Contains %q, limit %d: %v, want %v", tc.ceiling, tc.contains, limit, got, tc.want)
			}
		}
	}
	// nana's normal episode, replaced by a secret one, leaves her nothing
	// below secret.
	nanaNormal.Sensitivity = episode.SensitivitySecret
	if _, err := s.Update(ctx, []episode.Episode{nanaNormal}); err != nil {
		t.Fatal(err)
	}
	if ps, err := s.PeopleWith(ctx, PeopleQuery{Limit: 10}); err != nil || !slices.Equal(ps, []PersonActivity{pa("haruka", 2, 1)}) {
		t.Errorf("after nana's update, at normal: %v, %v; want only haruka", ps, err)
	}
	if ps, err := s.PeopleWith(ctx, PeopleQuery{After: "mio", MaxSensitivity: episode.SensitivitySecret, Limit: 10}); err != nil ||
		!slices.Equal(ps, []PersonActivity{pa("nana", 2, 7)}) {
		t.Errorf("after nana's update, at secret: %v, %v; want nana's 2", ps, err)
	}
}

// TestCountUpTo counts each person's episodes at or below each ceiling,
// and everyone's: the same as Count at secret and above, none below normal.
func TestCountUpTo(t *testing.T) {
	s := newStore(t)
	addEpisodes(t, s,
		ep("haruka", "あ", "", day), ep("haruka", "い", "", day),
		sensitive(ep("haruka", "う", "", day), episode.SensitivityPrivate),
		sensitive(ep("haruka", "え", "", day), episode.SensitivitySecret),
		sensitive(ep("kenji", "お", "", day), episode.SensitivitySecret),
		sensitive(ep("mio", "か", "", day), episode.SensitivityPrivate),
		ep("nana", "き", "", day))
	gone := addEpisodes(t, s, sensitive(ep("nana", "く", "", day), episode.SensitivitySecret))
	if _, err := s.Delete(ctx, episodeIDs(gone)...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user string
		want [3]int // at normal, private, secret
	}{
		{"haruka", [3]int{2, 3, 4}},
		{"kenji", [3]int{0, 0, 1}},
		{"mio", [3]int{0, 1, 1}},
		{"nana", [3]int{1, 1, 1}},
		{"nobody", [3]int{0, 0, 0}},
		{"", [3]int{3, 5, 7}}, // everyone
	} {
		all, err := s.Count(ctx, tc.user)
		if err != nil {
			t.Fatal(err)
		}
		for ceiling, want := range map[episode.Sensitivity]int{
			episode.SensitivityNormal - 1: 0,
			episode.SensitivityNormal:     tc.want[0],
			episode.SensitivityPrivate:    tc.want[1],
			episode.SensitivitySecret:     tc.want[2],
			episode.SensitivitySecret + 1: all,
		} {
			if n, err := s.CountUpTo(ctx, tc.user, ceiling); n != want || err != nil {
				t.Errorf("CountUpTo(%q, %v) = %d, %v; want %d", tc.user, ceiling, n, err, want)
			}
		}
		if all != tc.want[2] {
			t.Errorf("Count(%q) = %d, want %d, CountUpTo at secret", tc.user, all, tc.want[2])
		}
	}
	if _, err := s.CountUpTo(ctx, "haru\xffka", episode.SensitivitySecret); err == nil || !strings.Contains(err.Error(), "count: user is not valid UTF-8") {
		t.Errorf("invalid UTF-8 user: error %v, want one saying so", err)
	}
}

// BenchmarkNewest100k reads a page of 50 of a person's 100,000 episodes
// (store100k), newest first: the first page, and one from the middle of
// their history; and a page of people, one of whom has those episodes, at
// the normal ceiling.
func BenchmarkNewest100k(b *testing.B) {
	const n = 100_000
	s := store100k(b, n)
	mid, err := s.Newest(ctx, "haruka", Cursor{}, episode.SensitivityNormal, n/2)
	if err != nil || len(mid) == 0 {
		b.Fatal(len(mid), err)
	}
	for _, bc := range []struct {
		name  string
		after Cursor
	}{{"first", Cursor{}}, {"middle", CursorOf(mid[len(mid)-1])}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				page, err := s.Newest(ctx, "haruka", bc.after, episode.SensitivityNormal, 50)
				if err != nil || len(page) != 50 {
					b.Fatal(len(page), err)
				}
			}
		})
	}
	// The people page beside them: the newest of 100,000 is one index lookup.
	b.Run("people", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ps, err := s.PeopleWith(ctx, PeopleQuery{Limit: 50})
			if err != nil || len(ps) != 2 {
				b.Fatal(ps, err)
			}
		}
	})
}

// BenchmarkCountUpTo100k counts a person's 100,000 episodes (store100k, a
// tenth of them private; here a tenth of those made secret) under each
// ceiling, and reads the page of people under the lowest and the highest,
// beside one person of secrets alone: what the inspector's pages read. The
// count at normal reads the 10,000 sensitive entries of the partial index,
// at private the 1,000 secret ones; a scan of the person's rows, which the
// setup times once, reads all 100,000.
func BenchmarkCountUpTo100k(b *testing.B) {
	const n = 100_000
	s := store100k(b, n)
	if _, err := s.db.ExecContext(ctx, `UPDATE episodes SET sensitivity = 2 WHERE user = 'haruka' AND id % 100 = 0`); err != nil {
		b.Fatal(err)
	}
	addEpisodes(b, s, sensitive(ep("kenji", "ひみつ", "", day), episode.SensitivitySecret))
	for ceiling := episode.SensitivityNormal; ceiling <= episode.SensitivitySecret; ceiling++ {
		start := time.Now()
		var want int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM episodes WHERE user = 'haruka' AND sensitivity <= ?`, int(ceiling)).Scan(&want); err != nil {
			b.Fatal(err)
		}
		b.Logf("%v: %d episodes, counted by a scan of the person's rows in %v", ceiling, want, time.Since(start).Round(time.Microsecond))
		b.Run("count-"+ceiling.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c, err := s.CountUpTo(ctx, "haruka", ceiling); err != nil || c != want {
					b.Fatal(c, want, err)
				}
			}
		})
	}
	for _, bc := range []struct {
		ceiling episode.Sensitivity
		people  int
	}{{episode.SensitivityNormal, 2}, {episode.SensitivitySecret, 3}} {
		b.Run("people-"+bc.ceiling.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ps, err := s.PeopleWith(ctx, PeopleQuery{MaxSensitivity: bc.ceiling, Limit: 50})
				if err != nil || len(ps) != bc.people {
					b.Fatal(ps, err)
				}
			}
		})
	}
}

// store100k opens a store of n episodes of haruka's and one of mio's. Add
// stores 1,000 of haruka's (about 500 a second at 50,000 episodes: too slow
// for the rest), two a minute and every tenth private; the others are their
// copies, later in time, written into the episodes table in one statement,
// which the triggers count in partitions (the pages read nothing else; the
// text and vector indexes do not hold the copies).
func store100k(b *testing.B, n int) *Store {
	const base = 1000
	s := openStore(b, filepath.Join(b.TempDir(), "omoide.db"), Options{Analyzer: tokenize.Raw(), Embedder: hashEmbedder(b, 64)})
	start := time.Now()
	eps := make([]episode.Episode, base)
	for k := range eps {
		// Two episodes a minute, so that times tie; every tenth private.
		eps[k] = ep("haruka", fmt.Sprintf("%d回目の話", k), "うんうん", day.Add(time.Duration(k/2)*time.Minute))
		eps[k].Sensitivity = episode.Sensitivity(min(1, k%10/9))
	}
	if _, err := s.Add(ctx, eps); err != nil {
		b.Fatal(err)
	}
	span := int64(base / 2 * 60) // the seconds the base episodes cover
	if _, err := s.db.ExecContext(ctx, `WITH RECURSIVE copies(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM copies WHERE k < ?)
		INSERT INTO episodes (user, user_text, reply_text, occurred_at, kind, state, sensitivity, source, vq)
		SELECT user, user_text, reply_text, occurred_at + k * ?, kind, state, sensitivity, source, vq
		FROM copies, episodes WHERE user = 'haruka' ORDER BY k, id`, n/base-1, span); err != nil {
		b.Fatal(err)
	}
	addEpisodes(b, s, ep("mio", "こんにちは", "", day.Add(time.Hour)))
	if c, err := s.Count(ctx, "haruka"); err != nil || c != n {
		b.Fatal(c, err)
	}
	b.Logf("%d episodes stored in %v", n, time.Since(start).Round(time.Millisecond))
	return s
}

// TestNewestWhere: a page narrowed by kind, state and time span holds
// exactly the person's episodes the filter admits, newest first, paged as
// Newest pages, and Until starts the walk before a cursor past it.
func TestNewestWhere(t *testing.T) {
	s := newStore(t)
	at := func(hours int) time.Time { return day.Add(time.Duration(hours) * time.Hour) }
	mk := func(text string, hours int, k episode.Kind, st episode.State) episode.Episode {
		e := ep("haruka", text, "", at(hours))
		e.Kind, e.State = k, st
		return e
	}
	stored := addEpisodes(t, s,
		mk("e1", 1, episode.KindEpisode, episode.StateRaw),
		mk("f2", 2, episode.KindFact, episode.StateValidated),
		mk("e3", 3, episode.KindEpisode, episode.StateArchived),
		mk("s4", 4, episode.KindSummary, episode.StateRaw),
		mk("f5", 5, episode.KindFact, episode.StateRaw),
		ep("mio", "m5", "", at(5)),
	)
	texts := func(eps []episode.Episode) (out []string) {
		for _, e := range eps {
			out = append(out, e.UserText)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		f    PageFilter
		want []string
	}{
		{"all", PageFilter{}, []string{"f5", "s4", "e3", "f2", "e1"}},
		{"facts", PageFilter{Kinds: []episode.Kind{episode.KindFact}}, []string{"f5", "f2"}},
		{"facts and summaries", PageFilter{Kinds: []episode.Kind{episode.KindFact, episode.KindSummary}}, []string{"f5", "s4", "f2"}},
		{"archived", PageFilter{States: []episode.State{episode.StateArchived}}, []string{"e3"}},
		{"since hour 3", PageFilter{Since: at(3)}, []string{"f5", "s4", "e3"}},
		{"until hour 3", PageFilter{Until: at(3)}, []string{"f2", "e1"}},
		{"facts from hour 2 until hour 5", PageFilter{Kinds: []episode.Kind{episode.KindFact}, Since: at(2), Until: at(5)}, []string{"f2"}},
	} {
		got, err := s.NewestWhere(ctx, "haruka", Cursor{}, tt.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(texts(got), tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, texts(got), tt.want)
		}
	}
	// Paged: facts one a page, the cursor carrying on under the filter.
	f := PageFilter{Kinds: []episode.Kind{episode.KindFact}}
	first, _ := s.NewestWhere(ctx, "haruka", Cursor{}, f, 1)
	second, _ := s.NewestWhere(ctx, "haruka", CursorOf(first[0]), f, 1)
	if len(first) != 1 || len(second) != 1 || first[0].UserText != "f5" || second[0].UserText != "f2" {
		t.Errorf("paged facts: %q then %q", texts(first), texts(second))
	}
	// A cursor before Until walks on from the cursor.
	if got, _ := s.NewestWhere(ctx, "haruka", CursorOf(stored[1]), PageFilter{Until: at(5)}, 10); !slices.Equal(texts(got), []string{"e1"}) {
		t.Errorf("after f2, until hour 5: %q", texts(got))
	}
}

// TestNewerWhere: the page before a page of NewestWhere, newest first, and
// paging down then up comes back to the same episodes.
func TestNewerWhere(t *testing.T) {
	s := newStore(t)
	var eps []episode.Episode
	for i := range 7 {
		eps = append(eps, ep("haruka", fmt.Sprintf("h%d", i), "", day.Add(time.Duration(i)*time.Hour)))
	}
	stored := addEpisodes(t, s, eps...)
	first, _ := s.NewestWhere(ctx, "haruka", Cursor{}, PageFilter{}, 3)            // h6 h5 h4
	second, _ := s.NewestWhere(ctx, "haruka", CursorOf(first[2]), PageFilter{}, 3) // h3 h2 h1
	back, err := s.NewerWhere(ctx, "haruka", CursorOf(second[0]), PageFilter{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(episodeIDs(back), episodeIDs(first)) {
		t.Errorf("newer than h3: %v, want the first page %v", episodeIDs(back), episodeIDs(first))
	}
	// Only the closest ones when more are newer; filters as NewestWhere's.
	if got, _ := s.NewerWhere(ctx, "haruka", CursorOf(stored[0]), PageFilter{}, 2); !slices.Equal(episodeIDs(got), []int64{stored[2].ID, stored[1].ID}) {
		t.Errorf("the two just newer than h0: %v", episodeIDs(got))
	}
	if got, _ := s.NewerWhere(ctx, "haruka", CursorOf(stored[0]), PageFilter{Until: day.Add(2 * time.Hour)}, 5); !slices.Equal(episodeIDs(got), []int64{stored[1].ID}) {
		t.Errorf("newer than h0 until hour 2: %v", episodeIDs(got))
	}
}
