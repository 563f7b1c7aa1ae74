package hftokenizer

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fixtureCase is one line of testdata/<name>/cases.jsonl, written by the
// reference implementation (testdata/gen).
type fixtureCase struct {
	Text       string   `json:"text"`
	Normalized *string  `json:"normalized"`
	Tokens     []string `json:"tokens"`
	IDs        []int    `json:"ids"`
}

func readCases(t testing.TB, path string) []fixtureCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixtureCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c fixtureCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func fixtureDirs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures under testdata")
	}
	dirs := make([]string, len(files))
	for i, f := range files {
		dirs[i] = filepath.Dir(f)
	}
	return dirs
}

// TestFixtures checks every case of every fixture id for id against the
// reference implementation's output, and the normalizer's output too.
func TestFixtures(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tok, err := LoadFile(filepath.Join(dir, "tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			cases := readCases(t, filepath.Join(dir, "cases.jsonl"))
			if len(cases) < 300 {
				t.Fatalf("only %d cases", len(cases))
			}
			fails := 0
			for _, c := range cases {
				if c.Normalized != nil && tok.normalizer != nil {
					n := newNormString(c.Text)
					tok.normalizer.normalize(n)
					if n.norm != *c.Normalized {
						t.Errorf("normalize(%q) = %q, want %q", c.Text, n.norm, *c.Normalized)
					}
				}
				got := tok.Encode(c.Text)
				if !slices.Equal(got, c.IDs) {
					fails++
					if fails <= 20 {
						t.Errorf("Encode(%q)\n got %v\nwant %v (%q)", c.Text, got, c.IDs, c.Tokens)
					}
				}
			}
			if fails > 0 {
				t.Errorf("%d of %d cases differ", fails, len(cases))
			}
		})
	}
}
