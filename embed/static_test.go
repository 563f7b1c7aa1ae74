package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/omoide/omoide/embed/safetensors"
)

// staticModels are the tiny models of testdata/static, one per layout and
// tokenizer kind, with the vectors their own libraries' recipes give
// (expected.jsonl, computed in float64 by testdata/static/gen).
var staticModels = []struct {
	dir, layout string
}{
	{"st-ja", layoutST},
	{"m2v-multi", layoutModel2Vec},
	{"m2v-en", layoutModel2Vec},
}

type expectedVector struct {
	Text   string    `json:"text"`
	Dim    int       `json:"dim"`
	Vector []float64 `json:"vector"`
}

func readExpected(t *testing.T, path string) []expectedVector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectedVector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e expectedVector
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestStaticMatchesReference embeds every text of every fixture model and
// compares it with the reference vector, normalized as Embed normalizes.
func TestStaticMatchesReference(t *testing.T) {
	for _, m := range staticModels {
		t.Run(m.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "static", m.dir)
			loaded := map[int]*Static{}
			n := 0
			for _, e := range readExpected(t, filepath.Join(dir, "expected.jsonl")) {
				s := loaded[e.Dim]
				if s == nil {
					var err error
					if s, err = LoadStatic(dir, StaticOptions{Dim: e.Dim}); err != nil {
						t.Fatal(err)
					}
					if s.Layout() != m.layout || s.Identity().Dim != e.Dim {
						t.Fatalf("layout %s, identity %v; want %s, dim %d", s.Layout(), s.Identity(), m.layout, e.Dim)
					}
					loaded[e.Dim] = s
				}
				got, err := s.Embed(context.Background(), []string{e.Text})
				if err != nil {
					t.Fatal(err)
				}
				want := normalized(e.Vector)
				for j := range want {
					if d := math.Abs(float64(got[0][j]) - want[j]); d > 1e-6 {
						t.Errorf("%q (dim %d): [%d] = %v, want %v", clip(e.Text), e.Dim, j, got[0][j], want[j])
						break
					}
				}
				n++
			}
			if n < 60 || len(loaded) == 0 {
				t.Fatalf("only %d reference vectors", n)
			}
		})
	}
}

func normalized(v []float64) []float64 {
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float64, len(v))
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = x / norm
	}
	return out
}

func clip(s string) string {
	if r := []rune(s); len(r) > 30 {
		return string(r[:30]) + "…"
	}
	return s
}

func TestStaticIdentity(t *testing.T) {
	load := func(dir string, dim int) Identity {
		t.Helper()
		s, err := LoadStatic(filepath.Join("testdata", "static", dir), StaticOptions{Dim: dim})
		if err != nil {
			t.Fatal(err)
		}
		return s.Identity()
	}
	a, b := load("st-ja", 0), load("st-ja", 0)
	if a != b || !strings.HasPrefix(a.Name, "static:") || a.Dim != 64 {
		t.Errorf("identity %v then %v: want one stable static: name at 64 dimensions", a, b)
	}
	if c := load("m2v-multi", 0); c.Name == a.Name {
		t.Errorf("two models share the identity %v", c)
	}
	if c := load("st-ja", 32); c.Name != a.Name || c.Dim != 32 {
		t.Errorf("truncated: %v, want %s/32", c, a.Name)
	}
	// A copy elsewhere is the same model.
	dst := t.TempDir()
	copyDir(t, filepath.Join("testdata", "static", "st-ja"), dst)
	s, err := LoadStatic(dst, StaticOptions{})
	if err != nil || s.Identity() != a {
		t.Errorf("a copied folder: %v, %v; want %v", s, err, a)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeModel2Vec writes a model2vec folder with the given tensors and the
// tokenizer of the m2v-en fixture.
func writeModel2Vec(t *testing.T, config string, tensors ...safetensors.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	tok, err := os.ReadFile(filepath.Join("testdata", "static", "m2v-en", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), tok, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), tensors, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func f32(t *testing.T, name string, shape []int) safetensors.Tensor {
	t.Helper()
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	b, err := safetensors.EncodeFloat32s(safetensors.F32, v)
	if err != nil {
		t.Fatal(err)
	}
	return safetensors.Tensor{Name: name, DType: safetensors.F32, Shape: shape, Data: b}
}

func TestStaticRefuses(t *testing.T) {
	const vocab = 2037 // the m2v-en tokenizer's
	for _, tc := range []struct {
		name string
		dir  func() string
		opts StaticOptions
		want string
	}{
		{"not a model", func() string { return t.TempDir() }, StaticOptions{}, "not a static embedding model"},
		{"a cut the model was not trained for", func() string { return filepath.Join("testdata", "static", "m2v-en") },
			StaticOptions{Dim: 16}, "not say it was trained to be truncated"},
		{"more dimensions than the model", func() string { return filepath.Join("testdata", "static", "st-ja") },
			StaticOptions{Dim: 65}, "the model has 64"},
		{"a negative dimension", func() string { return filepath.Join("testdata", "static", "st-ja") },
			StaticOptions{Dim: -1}, "dimension -1"},
		{"a table short of the vocabulary", func() string { return writeModel2Vec(t, `{}`, f32(t, "embeddings", []int{3, 4})) },
			StaticOptions{}, "3 rows for a vocabulary of 2037 tokens"},
		{"no table", func() string { return writeModel2Vec(t, `{}`, f32(t, "weights", []int{vocab})) },
			StaticOptions{}, `"embeddings"`},
		{"a table of three dimensions", func() string { return writeModel2Vec(t, `{}`, f32(t, "embeddings", []int{vocab, 2, 2})) },
			StaticOptions{}, "want [rows, dimensions]"},
		{"a mapping past the table", func() string {
			m := make([]int64, vocab)
			m[5] = 9
			b, _ := safetensors.EncodeInt64s(safetensors.I64, m)
			return writeModel2Vec(t, `{}`, f32(t, "embeddings", []int{4, 4}), safetensors.Tensor{Name: "mapping", DType: safetensors.I64, Shape: []int{vocab}, Data: b})
		}, StaticOptions{}, "sends token 5 to row 9 of 4"},
		{"a module it cannot compute", func() string {
			dir := t.TempDir()
			copyDir(t, filepath.Join("testdata", "static", "st-ja"), dir)
			modules := `[{"idx":0,"name":"0","path":"0_StaticEmbedding","type":"sentence_transformers.models.StaticEmbedding"},
				{"idx":1,"name":"1","path":"1_Dense","type":"sentence_transformers.models.Dense"}]`
			if err := os.WriteFile(filepath.Join(dir, "modules.json"), []byte(modules), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, StaticOptions{}, "module sentence_transformers.models.Dense is not supported"},
		{"a bad config", func() string { return writeModel2Vec(t, `{`, f32(t, "embeddings", []int{vocab, 4})) },
			StaticOptions{}, "config.json"},
		{"a table of booleans", func() string {
			return writeModel2Vec(t, `{}`, safetensors.Tensor{Name: "embeddings", DType: safetensors.Bool, Shape: []int{vocab, 1}, Data: make([]byte, vocab)})
		}, StaticOptions{}, "BOOL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir()
			s, err := LoadStatic(dir, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("LoadStatic = %v, %v; want an error naming %s and %q", s, err, dir, tc.want)
			}
		})
	}
}

func TestStaticEmbedConcurrently(t *testing.T) {
	s, err := LoadStatic(filepath.Join("testdata", "static", "m2v-multi"), StaticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"今日は雨", "오늘은 비가 와요", "今天下雨", "it rains today", ""}
	want, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := s.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range got {
					for j := range got[i] {
						if got[i][j] != want[i][j] {
							t.Errorf("text %d differs under concurrency", i)
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if IsLexical(s) {
		t.Error("a static model says it is lexical: its vector lists would be weighed as BM25's echo")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Embed(ctx, texts); err == nil {
		t.Error("a cancelled context: no error")
	}
}

// TestStaticModel2VecWithModules loads a model2vec folder as the library
// saves it for sentence-transformers too (a modules.json of StaticEmbedding
// at "." and Normalize): the same model.
func TestStaticModel2VecWithModules(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "static", "m2v-multi"), dir)
	modules := `[{"idx":0,"name":"0","path":".","type":"sentence_transformers.models.StaticEmbedding"},
		{"idx":1,"name":"1","path":"1_Normalize","type":"sentence_transformers.models.Normalize"}]`
	if err := os.WriteFile(filepath.Join(dir, "modules.json"), []byte(modules), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadStatic(dir, StaticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := LoadStatic(filepath.Join("testdata", "static", "m2v-multi"), StaticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Layout() != layoutModel2Vec || s.Identity() != orig.Identity() {
		t.Errorf("layout %s, identity %v; want model2vec, %v", s.Layout(), s.Identity(), orig.Identity())
	}
}

// TestStaticNamesTheFault: a folder that is not there is named in the
// system's words, a corrupt model by the file that is wrong, and only a
// dimension the model cannot give wraps ErrDim (the command line's usage
// error; the others are failures).
func TestStaticNamesTheFault(t *testing.T) {
	corrupt := func(name string, edit func(path string) error) func() string {
		return func() string {
			dir := t.TempDir()
			copyDir(t, filepath.Join("testdata", "static", "m2v-en"), dir)
			if err := edit(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			return dir
		}
	}
	for _, tc := range []struct {
		name     string
		dir      func() string
		opts     StaticOptions
		want     []string // in the error, beside the folder's name
		notExist bool     // the error is fs.ErrNotExist
		dim      bool     // the error wraps ErrDim
	}{
		{"no such folder", func() string { return filepath.Join(t.TempDir(), "nope") }, StaticOptions{},
			[]string{"no such file or directory"}, true, false},
		{"a file", func() string { return filepath.Join("testdata", "static", "m2v-en", "config.json") }, StaticOptions{},
			[]string{"is a file, not the model's folder"}, false, false},
		{"a truncated table", corrupt("model.safetensors", func(p string) error { return os.Truncate(p, 1000) }), StaticOptions{},
			[]string{"model.safetensors", "run past the end"}, false, false},
		{"an empty table file", corrupt("model.safetensors", func(p string) error { return os.Truncate(p, 0) }), StaticOptions{},
			[]string{"model.safetensors", "too short"}, false, false},
		{"a bad tokenizer", corrupt("tokenizer.json", func(p string) error { return os.WriteFile(p, []byte(`{"model":`), 0o644) }), StaticOptions{},
			[]string{"tokenizer.json", "unexpected end of JSON input"}, false, false},
		{"more dimensions than the model", func() string { return filepath.Join("testdata", "static", "st-ja") },
			StaticOptions{Dim: 65}, []string{"dimension 65: the model has 64"}, false, true},
		{"a cut the model was not trained for", func() string { return filepath.Join("testdata", "static", "m2v-en") },
			StaticOptions{Dim: 16}, []string{"dimension 16"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir()
			_, err := LoadStatic(dir, tc.opts)
			if err == nil {
				t.Fatal("LoadStatic succeeded")
			}
			msg := err.Error()
			for _, w := range append(tc.want, dir) {
				if !strings.Contains(msg, w) {
					t.Errorf("%v: want %q in it", err, w)
				}
			}
			if strings.Contains(msg, "not a static embedding model") {
				t.Errorf("%v: says the folder is no model", err)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tc.notExist {
				t.Errorf("%v: errors.Is(fs.ErrNotExist) = %v, want %v", err, got, tc.notExist)
			}
			if got := errors.Is(err, ErrDim); got != tc.dim {
				t.Errorf("%v: errors.Is(ErrDim) = %v, want %v", err, got, tc.dim)
			}
		})
	}
}
