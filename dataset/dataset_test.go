package dataset

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadEpisodesAndQueries(t *testing.T) {
	dir := t.TempDir()
	eps := `{"id": "u:1", "user": "u", "user_text": "昨日ラーメン", "reply_text": "", "occurred_at": "2025-06-01T12:00:00Z", "source": "notification"}

{"id": "u:2", "user": "u", "user_text": "x", "reply_text": "y", "occurred_at": "2025-06-02T12:00:00Z"}
{"id": "u:2", "user": "u", "user_text": "another line under u:2, as jsts-ja-dev has", "reply_text": "", "occurred_at": "2025-06-02T12:00:00Z"}
{"id": "u:2", "user": "v", "user_text": "v's own u:2", "reply_text": "", "occurred_at": "2025-06-02T12:00:00Z"}
`
	f, _ := os.Create(filepath.Join(dir, "episodes.jsonl.gz"))
	gz := gzip.NewWriter(f)
	gz.Write([]byte(eps))
	gz.Close()
	f.Close()
	q := `{"id": "q", "user": "u", "text": "t", "context": [{"role": "user", "content": "c"}], "now": "2025-07-01T00:00:00Z", "relevant": ["u:1"], "category": "direct"}`
	// The same id twice, as sui-ja-dev has it: the ordinal tells them apart.
	os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(q+"\n\n"+q+"\n"), 0o644)

	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Episodes) != 3 || s.Duplicates != 1 || len(s.Queries) != 2 || s.Name != filepath.Base(dir) {
		t.Fatalf("suite = %+v", s)
	}
	if s.Episodes[1].UserText != "x" || s.Episodes[2].User != "v" {
		t.Fatalf("the first line of a duplicate id is kept, another person's is not a duplicate: %+v", s.Episodes)
	}
	if s.Queries[0].Ordinal != 1 || s.Queries[1].Ordinal != 2 {
		t.Fatalf("ordinals = %d, %d, want 1, 2", s.Queries[0].Ordinal, s.Queries[1].Ordinal)
	}
	e := s.Episodes[0].Episode()
	if e.ExternalID != "u:1" || e.Source != "notification" || !e.OccurredAt.Equal(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("episode = %+v", e)
	}
	if q := s.Queries[0]; len(q.Context) != 1 || q.Context[0].Content != "c" || q.User != "u" {
		t.Fatalf("query = %+v", q)
	}
}

func TestReadNamesTheBadLine(t *testing.T) {
	err := Read(strings.NewReader("{\"id\": \"a\"}\n{bad\n"), func(Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want one naming line 2", err)
	}
}

func TestSuiteFile(t *testing.T) {
	write := func(dir, suite string) {
		os.WriteFile(filepath.Join(dir, "episodes.jsonl"), []byte(`{"id": "a:1", "user": "a", "user_text": "x", "reply_text": "", "occurred_at": "2025-06-01T12:00:00+09:00"}`+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(
			`{"id": "qa", "user": "a", "text": "t", "now": "2025-07-01T00:00:00Z", "relevant": [], "acceptable": ["a:1"], "category": "smalltalk"}`+"\n"+
				`{"id": "qb", "user": "b", "text": "t", "now": "2025-07-01T00:00:00Z", "relevant": [], "category": "greeting"}`+"\n"), 0o644)
		if suite != "" {
			os.WriteFile(filepath.Join(dir, SuiteFile), []byte(suite), 0o644)
		}
	}
	for _, tc := range []struct {
		name, suite, wantName, wantErr string
		judgedA, judgedB               bool
	}{
		{name: "none", wantName: ""},
		{name: "halves", suite: `{"name": "chat-ja", "judged": ["b"]}`, wantName: "chat-ja", judgedB: true},
		{name: "unknown person", suite: `{"judged": ["c"]}`, wantErr: `judged person "c" has no query`},
		{name: "unknown field", suite: `{"judge": ["b"]}`, wantErr: `unknown field "judge"`},
		{name: "not JSON", suite: `judged: b`, wantErr: SuiteFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(dir, tc.suite)
			s, err := LoadSuite(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.wantName
			if want == "" {
				want = filepath.Base(dir)
			}
			if s.Name != want || s.InJudged(s.Queries[0]) != tc.judgedA || s.InJudged(s.Queries[1]) != tc.judgedB {
				t.Fatalf("name %q, judged a %v b %v; want %q, %v, %v", s.Name, s.InJudged(s.Queries[0]), s.InJudged(s.Queries[1]), want, tc.judgedA, tc.judgedB)
			}
			if got := s.Queries[0].Acceptable; len(got) != 1 || got[0] != "a:1" {
				t.Fatalf("acceptable = %q", got)
			}
		})
	}
}
