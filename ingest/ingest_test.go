package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
)

// fakeStore records each batch and treats every episode it has seen as
// present.
type fakeStore struct {
	batches [][]string // external ids, batch by batch
	seen    map[string]bool
	replace []bool
	fail    error
}

func (s *fakeStore) Put(_ context.Context, replace bool, eps ...episode.Episode) (episode.PutResult, error) {
	if s.fail != nil {
		return episode.PutResult{}, s.fail
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	var r episode.PutResult
	var ids []string
	for _, e := range eps {
		ids = append(ids, e.ExternalID)
		if s.seen[e.ExternalID] {
			r.Present++
			continue
		}
		s.seen[e.ExternalID] = true
		r.Added++
	}
	s.batches = append(s.batches, ids)
	s.replace = append(s.replace, replace)
	return r, nil
}

func line(id, user, text string) string {
	return fmt.Sprintf(`{"id": %q, "user": %q, "user_text": %q, "occurred_at": "2025-06-01T12:30:00Z"}`, id, user, text)
}

func gz(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFormatOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Format
	}{
		{"a.jsonl", JSONL}, {"A.JSONL.GZ", JSONL}, {"a.ndjson", JSONL}, {"a.json", JSONL},
		{"chat.txt", Transcript}, {"chat.txt.gz", Transcript}, {"chat.csv", ""}, {"jsonl", ""},
	} {
		got, err := FormatOf(tc.name)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := ParseFormat("csv"); err == nil || !strings.Contains(err.Error(), `"csv"`) {
		t.Errorf("ParseFormat(csv) = %v, want an error naming it", err)
	}
}

func TestNewReaderSniffs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Format
	}{
		{"json", line("a", "u", "x"), JSONL},
		{"blank lines and BOM first", "\xef\xbb\xbf\n \t\r\n" + line("a", "u", "x"), JSONL},
		{"transcript", "# user: u\n@ 2025-06-01 21:30 +09:00\n> hi\n", Transcript},
		{"empty", "", Transcript},
		{"gzip json", "", JSONL}, // filled below
	} {
		in := tc.in
		if tc.name == "gzip json" {
			in = gz(t, line("a", "u", "x"))
		}
		r, f, err := NewReader(strings.NewReader(in), "")
		if err != nil || f != tc.want {
			t.Errorf("%s: format %q, %v; want %q", tc.name, f, err, tc.want)
			continue
		}
		if b, _ := io.ReadAll(r); tc.name == "gzip json" && string(b) != line("a", "u", "x") {
			t.Errorf("%s: read %q, want it decompressed", tc.name, b)
		}
	}
	if _, f, _ := NewReader(strings.NewReader("{"), Transcript); f != Transcript {
		t.Errorf("a given format was sniffed over: %q", f)
	}
	if _, _, err := NewReader(strings.NewReader("\x1f\x8b\x00"), ""); err == nil {
		t.Error("a broken gzip header: no error")
	}
}

func TestCount(t *testing.T) {
	jsonl := line("a", "u", "x") + "\n\n  \n" + line("b", "u", "y") + "\n"
	if n, err := Count(strings.NewReader(jsonl), JSONL); n != 2 || err != nil {
		t.Errorf("jsonl: %d, %v; want 2", n, err)
	}
	tr := "# user: u\n@ 2025-06-01 21:30 +09:00\n> hi\n\n@ 2025-06-02 21:30 +09:00\n> again\n"
	if n, err := Count(strings.NewReader(tr), Transcript); n != 2 || err != nil {
		t.Errorf("transcript: %d, %v; want 2", n, err)
	}
}

func TestIngesterBatchesAndCounts(t *testing.T) {
	ctx := context.Background()
	var lines []string
	for i := range 7 {
		lines = append(lines, line(fmt.Sprint(i), "u", fmt.Sprint("text ", i)))
	}
	st := &fakeStore{}
	var stored []int
	in := New(st, Options{Batch: 3, Replace: true, Stored: func(read int) { stored = append(stored, read) },
		Unsearched: func(e episode.Episode) bool { return e.ExternalID == "4" }})
	if err := in.Read(ctx, "a.jsonl", strings.NewReader(strings.Join(lines, "\n")), JSONL); err != nil {
		t.Fatal(err)
	}
	// The 7th waits for Flush; a second input shares its transaction.
	if err := in.Read(ctx, "b.jsonl", strings.NewReader(line("0", "u", "text 0")), ""); err != nil {
		t.Fatal(err)
	}
	if len(st.batches) != 2 {
		t.Fatalf("before Flush: %d batches stored, want 2", len(st.batches))
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := Result{Read: 8, Added: 7, Present: 1, Unsearched: 1}
	if got := in.Result(); got != want {
		t.Errorf("result %+v, want %+v", got, want)
	}
	if fmt.Sprint(st.batches) != "[[0 1 2] [3 4 5] [6 0]]" || fmt.Sprint(stored) != "[3 6 8]" || !st.replace[0] {
		t.Errorf("batches %v, stored %v, replace %v", st.batches, stored, st.replace)
	}
}

func TestIngesterBadLines(t *testing.T) {
	ctx := context.Background()
	input := strings.Join([]string{
		line("a", "u", "x"),
		`{"id": "b", "user": "u", "user_txt": "typo", "occurred_at": "2025-06-01T12:30:00Z"}`,
		`{"user": "u", "user_text": "no id", "occurred_at": "2025-06-01T12:30:00Z"}`,
		line("c", "u", "y"),
	}, "\n")
	t.Run("stops at the first and keeps what came before", func(t *testing.T) {
		st := &fakeStore{}
		in := New(st, Options{})
		err := in.Read(ctx, "in.jsonl", strings.NewReader(input), JSONL)
		if err == nil || !strings.Contains(err.Error(), "in.jsonl:2:") || !strings.Contains(err.Error(), "user_txt") {
			t.Fatalf("error %v, want one naming in.jsonl:2 and the field", err)
		}
		if errors.Is(err, ErrStore) {
			t.Error("a bad line reported as a store failure")
		}
		if fmt.Sprint(st.batches) != "[[a]]" {
			t.Errorf("stored %v, want the line before the bad one", st.batches)
		}
	})
	t.Run("skip-bad counts, reports and goes on", func(t *testing.T) {
		st := &fakeStore{}
		var bad []string
		in := New(st, Options{SkipBad: true, Bad: func(where string, err error) { bad = append(bad, where+" "+err.Error()) }})
		if err := in.Read(ctx, "in.jsonl", strings.NewReader(input), JSONL); err != nil {
			t.Fatal(err)
		}
		in.Flush(ctx)
		if r := in.Result(); r.Read != 2 || r.Skipped != 2 || r.Added != 2 {
			t.Errorf("result %+v, want 2 read, 2 skipped, 2 added", r)
		}
		if len(bad) != 2 || !strings.HasPrefix(bad[0], "in.jsonl:2 ") || !strings.Contains(bad[1], "id is missing") {
			t.Errorf("reported %q", bad)
		}
	})
}

func TestIngesterStoreFailure(t *testing.T) {
	st := &fakeStore{fail: errors.New("disk full")}
	in := New(st, Options{Batch: 1})
	err := in.Read(context.Background(), "in.jsonl", strings.NewReader(line("a", "u", "x")+"\n"+line("b", "u", "y")), JSONL)
	if !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "in.jsonl:1..in.jsonl:1") {
		t.Errorf("error %v, want ErrStore naming the batch and the cause", err)
	}
	if r := in.Result(); r.Added != 0 || r.Read != 1 {
		t.Errorf("result %+v: it went on after the store failed", r)
	}
}

func TestIngesterTranscript(t *testing.T) {
	st := &fakeStore{}
	in := New(st, Options{})
	tr := "# user: haruka\n@ 2025-06-01 21:30 +09:00\n> 昨日ラーメン屋に行ったよ\n< いいね\n"
	if err := in.Read(context.Background(), "chat.txt", strings.NewReader(gz(t, tr)), Transcript); err != nil {
		t.Fatal(err)
	}
	in.Flush(context.Background())
	if fmt.Sprint(st.batches) != "[[haruka:2025-06-01T12:30:00Z:1]]" {
		t.Errorf("stored %v", st.batches)
	}
}
