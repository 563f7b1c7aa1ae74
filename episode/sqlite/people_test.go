package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// TestPeople pages through a store's people in name order, with their counts;
// a forgotten person is gone from the list.
func TestPeople(t *testing.T) {
	s := newStore(t)
	for i, u := range []string{"mio", "haruka", "line:U1"} {
		for j := range i + 1 {
			if _, err := s.Add(ctx, []episode.Episode{ep(u, fmt.Sprintf("話 %d", j), "", day)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	page1, err := s.People(ctx, "", 2)
	if err != nil || fmt.Sprint(page1) != "[{haruka 2} {line:U1 3}]" {
		t.Fatalf("People(\"\", 2) = %v, %v", page1, err)
	}
	page2, err := s.People(ctx, page1[1].User, 2)
	if err != nil || fmt.Sprint(page2) != "[{mio 1}]" {
		t.Fatalf("People(%q, 2) = %v, %v", page1[1].User, page2, err)
	}
	if _, err := s.Forget(ctx, "haruka"); err != nil {
		t.Fatal(err)
	}
	if all, err := s.People(ctx, "", 10); err != nil || fmt.Sprint(all) != "[{line:U1 3} {mio 1}]" {
		t.Errorf("after forgetting haruka: %v, %v", all, err)
	}
}

// TestCheckpointWaitOption: 0 is the default wait, a negative value none.
func TestCheckpointWaitOption(t *testing.T) {
	for _, tc := range []struct{ opt, want time.Duration }{{0, DefaultCheckpointWait}, {-1, 0}, {50 * time.Millisecond, 50 * time.Millisecond}} {
		s := openStore(t, filepath.Join(t.TempDir(), "w.db"), Options{CheckpointWait: tc.opt})
		if s.checkpointWait != tc.want {
			t.Errorf("CheckpointWait %v: the store waits %v, want %v", tc.opt, s.checkpointWait, tc.want)
		}
	}
}
