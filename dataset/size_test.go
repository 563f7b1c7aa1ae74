package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sizeSuite is two people, each with three memories and 20 everyday
// exchanges over 20 days, a query of a naming one memory and one
// everyday exchange.
func sizeSuite() *Suite {
	s := &Suite{Name: "t", Grow: GrowPeople}
	start := time.Date(2026, 1, 1, 20, 0, 0, 0, time.FixedZone("+09:00", 9*3600))
	for _, u := range []string{"a", "b"} {
		for i := range 3 {
			s.Episodes = append(s.Episodes, Episode{ID: fmt.Sprintf("%s-%03d", u, i+1), User: u,
				UserText: u + " memory " + fmt.Sprint(i), OccurredAt: start.AddDate(0, 0, 7*i)})
		}
		for i := range 20 {
			s.Episodes = append(s.Episodes, Episode{ID: fmt.Sprintf("%s-d%04d", u, i+1), User: u, Everyday: true,
				UserText: fmt.Sprintf("%s everyday %d", u, i), ReplyText: "ok", OccurredAt: start.AddDate(0, 0, i)})
		}
	}
	s.Queries = []Query{{ID: "qa", User: "a", Relevant: []string{"a-002"}, Acceptable: []string{"a-d0017"}}}
	return s
}

func ids(eps []Episode, user string) []string {
	var out []string
	for _, e := range eps {
		if e.User == user {
			out = append(out, e.ID)
		}
	}
	return out
}

// TestAtSizeCuts: a store cut keeps the memories and the named everyday
// exchange whatever the size, keeps the order, and nests by size.
func TestAtSizeCuts(t *testing.T) {
	s := sizeSuite()
	small, rep := s.AtSize(8, nil, 1)
	big, _ := s.AtSize(15, nil, 1)
	if rep.Cut != 2 || rep.Grown != 0 || rep.Over != 0 || rep.People != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, u := range []string{"a", "b"} {
		got := ids(small.Episodes, u)
		if len(got) != 8 {
			t.Fatalf("%s: %d episodes at size 8: %v", u, len(got), got)
		}
		for _, m := range []string{"-001", "-002", "-003"} {
			if !slices.Contains(got, u+m) {
				t.Errorf("%s: memory %s cut: %v", u, u+m, got)
			}
		}
		if !slices.IsSortedFunc(got, strings.Compare) {
			t.Errorf("%s: order lost: %v", u, got)
		}
		for _, id := range got {
			if !slices.Contains(ids(big.Episodes, u), id) {
				t.Errorf("%s: %s is at size 8 but not at 15: the sizes do not nest", u, id)
			}
		}
	}
	if !slices.Contains(ids(small.Episodes, "a"), "a-d0017") {
		t.Error("the everyday exchange a query names was cut")
	}
	again, _ := s.AtSize(8, nil, 1)
	other, _ := s.AtSize(8, nil, 2)
	if !slices.Equal(ids(again.Episodes, "a"), ids(small.Episodes, "a")) {
		t.Error("the same seed cut another way")
	}
	if slices.Equal(ids(other.Episodes, "a"), ids(small.Episodes, "a")) && slices.Equal(ids(other.Episodes, "b"), ids(small.Episodes, "b")) {
		t.Error("another seed cut the same way for both people")
	}
	if len(s.Episodes) != 46 {
		t.Fatalf("AtSize changed its suite: %d episodes", len(s.Episodes))
	}
	tiny, rep := s.AtSize(2, nil, 1)
	if rep.Over != 2 || len(ids(tiny.Episodes, "a")) != 4 || len(ids(tiny.Episodes, "b")) != 3 {
		t.Fatalf("below the memories: %+v, a %v, b %v", rep, ids(tiny.Episodes, "a"), ids(tiny.Episodes, "b"))
	}
}

// TestAtSizeGrows: a store grown takes others' exchanges, never the
// person's own or a text it holds, dated inside the person's days, and
// says when the padding runs short.
func TestAtSizeGrows(t *testing.T) {
	s := sizeSuite()
	pad := s.Padding()
	if len(pad) != 39 { // 40 everyday, one named
		t.Fatalf("padding %d, want 39", len(pad))
	}
	dup := s.Episodes[5] // a's own everyday text, under another person
	dup.User, dup.ID = "c", "c-1"
	later := Episode{ID: "a-later", User: "a", UserText: "a, after every turn", OccurredAt: s.Episodes[0].OccurredAt.AddDate(1, 0, 0)}
	pad = append(pad, dup, later) // a's own exchange the store does not hold: their future, never padding
	for i := range 5 {            // a's store at 48 takes all 25 others' exchanges but c-1, and would take the later one
		pad = append(pad, Episode{ID: fmt.Sprintf("c-%d", i+2), User: "c", UserText: fmt.Sprint("c ", i)})
	}
	grown, rep := s.AtSize(48, pad, 1)
	if rep.Grown != 2 || rep.Added != 2*(48-23) || rep.Short != 0 {
		t.Fatalf("report %+v", rep)
	}
	var first, last time.Time
	for _, e := range s.Episodes {
		if e.User == "a" && (first.IsZero() || e.OccurredAt.Before(first)) {
			first = e.OccurredAt
		}
		if e.User == "a" && e.OccurredAt.After(last) {
			last = e.OccurredAt
		}
	}
	n := 0
	for _, e := range grown.Episodes {
		if e.User != "a" || !strings.HasPrefix(e.ID, GrownPrefix) {
			continue
		}
		n++
		if strings.HasPrefix(e.ID, GrownPrefix+"a-") || e.ID == GrownPrefix+"c-1" || e.ID == GrownPrefix+"a-later" {
			t.Errorf("a's store grew with %s: their own text", e.ID)
		}
		if e.OccurredAt.Before(first) || e.OccurredAt.After(last) {
			t.Errorf("%s dated %v, outside a's days %v–%v", e.ID, e.OccurredAt, first, last)
		}
		if !e.Everyday {
			t.Errorf("%s is not everyday", e.ID)
		}
	}
	if n != 48-23 {
		t.Fatalf("a grew by %d, want %d", n, 48-23)
	}
	bigger, _ := s.AtSize(49, pad, 1)
	for _, id := range ids(grown.Episodes, "a") {
		if !slices.Contains(ids(bigger.Episodes, "a"), id) {
			t.Errorf("%s at 30 is not at 33: growth does not nest", id)
		}
	}
	_, rep = s.AtSize(100, pad, 1)
	if rep.Short != 2 {
		t.Fatalf("padding of 46 for 77 more each: short %d, want 2", rep.Short)
	}
}

// TestReadHaystack: a haystack's held-back speakers and exchanges without
// text never pad a store.
func TestReadHaystack(t *testing.T) {
	if !HeldBack("rpc-DU") || !HeldBack("rpc-GI") || HeldBack("rpc-AW") || len(heldBack) != 12 {
		t.Fatal("held-back speakers")
	}
	path := filepath.Join(t.TempDir(), "hay.jsonl")
	os.WriteFile(path, []byte(`{"id": "rpc:1:0", "user": "rpc-AW", "user_text": "こんにちは", "reply_text": "", "occurred_at": "2022-08-01T12:00:00Z"}
{"id": "rpc:2:0", "user": "rpc-DU", "user_text": "こんにちは", "reply_text": "", "occurred_at": "2022-08-01T12:00:00Z"}
{"id": "rpc:3:0", "user": "rpc-AA", "user_text": " ", "reply_text": "", "occurred_at": "2022-08-01T12:00:00Z"}
`), 0o644)
	eps, err := ReadHaystack(path)
	if err != nil || len(eps) != 1 || eps[0].User != "rpc-AW" {
		t.Fatalf("haystack %+v, %v: want rpc-AW's exchange alone", eps, err)
	}
}
