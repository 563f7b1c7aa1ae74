package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/omoide/omoide/dataset"
)

// TestRankWriter: one line per query, told apart by its ordinal when two
// queries share an id, with each relevant episode's rank among the
// candidates and the selected hits (0: absent).
func TestRankWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ranks.jsonl")
	w, err := newRankWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	qs := []dataset.Query{
		{ID: "c1", Text: "はい", Relevant: []string{"a", "b"}, Category: "recent-turns", Ordinal: 1},
		{ID: "c1", Text: "そうです", Relevant: []string{"z"}, Category: "recent-turns", Ordinal: 2},
	}
	outs := []outcome{
		{ranked: []string{"x", "b", "a"}, picked: []string{"b", "x"}, inject: true},
		{ranked: []string{"x"}, picked: []string{"x"}}, // picked, not injected
	}
	if err := w.write("sui", "default", qs, outs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []rankLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l rankLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	if len(got) != 2 {
		t.Fatalf("%d lines, want 2", len(got))
	}
	a, b := got[0], got[1]
	if a.Ordinal != 1 || b.Ordinal != 2 || a.Text != "はい" || b.Text != "そうです" || a.Query != "c1" {
		t.Fatalf("lines = %+v, %+v", a, b)
	}
	if a.Ranks[0] != 3 || a.Ranks[1] != 2 || a.Picked[0] != 0 || a.Picked[1] != 1 || !a.Inject || a.Candidates != 3 {
		t.Fatalf("first line = %+v", a)
	}
	if b.Ranks[0] != 0 || b.Inject {
		t.Fatalf("second line = %+v", b)
	}
	// The injected episodes by external id: the picks when injected, an
	// empty list (not null) when not.
	if !slices.Equal(a.Injected, []string{"b", "x"}) || b.Injected == nil || len(b.Injected) != 0 {
		t.Fatalf("injected: %q, %q; want [b x] and []", a.Injected, b.Injected)
	}
}
