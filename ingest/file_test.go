package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/omoide/omoide/transcript"
)

func TestFiles(t *testing.T) {
	jsonl := line("a", "u", "x") + "\n\n" + line("b", "u", "y") + "\n"
	tr := "# user: u\n@ 2025-06-01 21:30 +09:00\n> hi\n\n@ 2025-06-02 21:30 +09:00\n> again\n\n@ 2025-06-03 21:30 +09:00\n> more\n"
	tests := []struct {
		name, file, content string
		f                   Format
		want                int    // episodes counted and read
		ids                 string // external ids stored, "" for a transcript's
		fails               bool
	}{
		{"jsonl", "a.jsonl", jsonl, JSONL, 2, "[[a b]]", false},
		{"jsonl sniffed, gzip", "a.jsonl.gz", gz(t, jsonl), "", 2, "[[a b]]", false},
		{"transcript", "t.txt", tr, Transcript, 3, "", false},
		{"transcript sniffed, gzip", "t.txt.gz", gz(t, tr), "", 3, "", false},
		{"missing", "", "", JSONL, 0, "", true},
		{"bad gzip", "b.gz", "\x1f\x8bnot gzip", JSONL, 0, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "none.jsonl")
			if tc.file != "" {
				path = filepath.Join(filepath.Dir(path), tc.file)
				if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			n, err := CountFile(path, tc.f)
			if (err != nil) != tc.fails || n != tc.want {
				t.Errorf("CountFile: %d, %v; want %d, fails %v", n, err, tc.want, tc.fails)
			}
			st := &fakeStore{}
			in := New(st, Options{Transcript: transcript.Options{User: "u"}})
			err = in.ReadFile(context.Background(), path, tc.f)
			if err == nil {
				err = in.Flush(context.Background())
			}
			if (err != nil) != tc.fails || in.Result().Read != tc.want {
				t.Fatalf("ReadFile: read %d, %v; want %d, fails %v", in.Result().Read, err, tc.want, tc.fails)
			}
			if tc.ids != "" && fmt.Sprint(st.batches) != tc.ids {
				t.Errorf("stored %v, want %s", st.batches, tc.ids)
			}
		})
	}
}
