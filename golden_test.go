package omoide_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/episode"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/*/golden")

// TestGolden runs every query of each language's conversations (ja: the
// demo's, in demo/; zh, ko: testdata/<lang>) against a store holding all its
// people's episodes and compares the ranked episodes and the rendered section
// with testdata/<lang>/golden/<preset>.golden. The
// hash embedder and each query's own clock make the output deterministic.
// Regenerate with `go test -tags sqlite_fts5 . -run TestGolden -update` and
// review the diff by eye.
func TestGolden(t *testing.T) {
	for _, lang := range []struct{ lang, data, zone string }{
		{"ja", "demo", "Asia/Tokyo"},
		{"zh", filepath.Join("testdata", "zh"), "Asia/Shanghai"},
		{"ko", filepath.Join("testdata", "ko"), "Asia/Seoul"},
	} {
		t.Run(lang.lang, func(t *testing.T) { golden(t, lang.lang, lang.data, lang.zone) })
	}
}

// golden runs the conversations of the folder data, whose goldens are in
// testdata/<lang>/golden.
func golden(t *testing.T, lang, data, zone string) {
	eps, err := dataset.ReadFile[dataset.Episode](filepath.Join(data, "episodes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := dataset.ReadFile[dataset.Query](filepath.Join(data, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range []string{omoide.PresetDefault, omoide.PresetReference} {
		t.Run(preset, func(t *testing.T) {
			ctx := context.Background()
			mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "golden.db"), Preset: preset, Location: loc})
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			batch := make([]episode.Episode, len(eps))
			for i, e := range eps {
				batch[i] = e.Episode()
			}
			if _, err := mem.Add(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			found, labelled := 0, 0
			for _, q := range qs {
				section, res, err := mem.Evidence(ctx, q.Request())
				if err != nil {
					t.Fatalf("%s: %v", q.ID, err)
				}
				fmt.Fprintf(&out, "=== %s [%s] now=%s\nmessage: %s\nrelevant: %s\n", q.ID, q.Category,
					q.Now.Format(time.RFC3339), q.Text, strings.Join(q.Relevant, " "))
				for i, h := range res.Hits {
					if h.Episode.User != q.User {
						t.Errorf("%s: returned %s's episode %s", q.ID, h.Episode.User, h.Episode.ExternalID)
					}
					mark := " "
					if slices.Contains(q.Relevant, h.Episode.ExternalID) {
						mark = "*"
						found++
					}
					fmt.Fprintf(&out, "%d%s %-11s %-6s %.3f rrf=%.3f lex=%.3f rec=%.3f cov=%.3f", i+1, mark, h.Episode.ExternalID,
						h.Relevance, h.Score, h.RRFNorm, h.Lex, h.Rec, h.Coverage)
					if h.Probability > 0 {
						fmt.Fprintf(&out, " p=%.3f", h.Probability)
					}
					out.WriteString("\n")
				}
				labelled += len(q.Relevant)
				if section == "" {
					out.WriteString("(no injection)\n")
				} else {
					out.WriteString(section)
				}
				out.WriteString("\n")
			}
			t.Logf("%s: %d of %d relevant episodes returned over %d queries", preset, found, labelled, len(qs))
			path := filepath.Join("testdata", lang, "golden", preset+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, firstDiff(string(want), got))
			}
		})
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return "(no line differs)"
}
