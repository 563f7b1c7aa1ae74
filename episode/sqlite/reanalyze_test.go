package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

// TestReanalyze moves a store built with kagome+snowball to the cjk
// analyzer: a Korean stem it could not find before is found after, the
// store records the new analyzer, and Check finds the indexes in agreement.
func TestReanalyze(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s := openStore(t, path, Options{Analyzer: tokenize.KagomeSnowball()})
	if _, err := s.Add(ctx, []episode.Episode{ep("jiwoo", "어제 학교에서 친구를 만났어", "", day), ep("jiwoo", "猫がかわいい", "", day)}); err != nil {
		t.Fatal(err)
	}
	find := func(s *Store, terms ...string) int {
		t.Helper()
		hits, err := s.BM25(ctx, "jiwoo", terms, 10, episode.SearchFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if n := find(s, s.Analyzer().Terms("학교")...); n != 0 {
		t.Fatalf("kagome+snowball found 학교 in 학교에서 (%d hits): the test no longer shows a change", n)
	}
	s.Close()
	if _, err := Reanalyze(ctx, path, nil, nil); err == nil {
		t.Error("Reanalyze with no analyzer: no error")
	}
	n, err := Reanalyze(ctx, path, tokenize.CJK(), nil)
	if err != nil || n != 2 {
		t.Fatalf("Reanalyze = %d, %v", n, err)
	}
	s = openStore(t, path, Options{})
	if s.Analyzer().Name() != tokenize.CJKName {
		t.Fatalf("analyzer after Reanalyze: %s", s.Analyzer().Name())
	}
	if n := find(s, s.Analyzer().Terms("학교")...); n != 1 {
		t.Errorf("cjk finds 학교 in %d episodes, want 1", n)
	}
	if n := find(s, s.Analyzer().Terms("猫")...); n != 1 {
		t.Errorf("cjk finds 猫 in %d episodes, want 1 (Japanese as before)", n)
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) > 0 {
		t.Errorf("Check after Reanalyze: %+v, %v", r, err)
	}
	if _, err := Reanalyze(ctx, filepath.Join(t.TempDir(), "none.db"), tokenize.CJK(), nil); err == nil {
		t.Error("Reanalyze of a missing store: no error")
	}
}
