package embed

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/omoide/omoide/embed/safetensors"
)

var (
	syntheticModel = flag.String("synthetic-model", "", "TestWriteSyntheticModel writes a static model of real size here, for bench latency -embedder static -model DIR")
	syntheticRows  = flag.Int("synthetic-rows", 32768, "the synthetic model's rows (static-embedding-japanese: 32,768)")
	syntheticDim   = flag.Int("synthetic-dim", 1024, "the synthetic model's dimensions (static-embedding-japanese: 1,024)")
)

// writeSyntheticModel writes a sentence-transformers static model of rows ×
// dim seeded values with the st-ja fixture's tokenizer: the real models'
// size, for the cost of loading and embedding (its vectors mean nothing).
func writeSyntheticModel(tb testing.TB, dir string, rows, dim int) {
	tb.Helper()
	sub := filepath.Join(dir, "0_StaticEmbedding")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		tb.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join("testdata", "static", "st-ja", "0_StaticEmbedding", "tokenizer.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), tok, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("A synthetic model (MatryoshkaLoss-shaped: truncatable) for cost measurements.\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, rows*dim)
	for i := range v {
		v[i] = r.Float32() - 0.5
	}
	data, err := safetensors.EncodeFloat32s(safetensors.F32, v)
	if err != nil {
		tb.Fatal(err)
	}
	t := safetensors.Tensor{Name: "embedding.weight", DType: safetensors.F32, Shape: []int{rows, dim}, Data: data}
	if err := safetensors.WriteFile(filepath.Join(sub, "model.safetensors"), []safetensors.Tensor{t}, nil); err != nil {
		tb.Fatal(err)
	}
}

// TestWriteSyntheticModel writes the synthetic model when asked:
//
//	go test -tags sqlite_fts5 ./embed -run TestWriteSyntheticModel -synthetic-model /tmp/static-1024
func TestWriteSyntheticModel(t *testing.T) {
	if *syntheticModel == "" {
		t.Skip("needs -synthetic-model DIR")
	}
	writeSyntheticModel(t, *syntheticModel, *syntheticRows, *syntheticDim)
	if _, err := LoadStatic(*syntheticModel, StaticOptions{}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkStaticEmbed embeds a 20-character message with a table of
// static-embedding-japanese's size, cut to 256 dimensions and whole.
func BenchmarkStaticEmbed(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticModel(b, dir, 32768, 1024)
	for _, dim := range []int{256, 1024} {
		s, err := LoadStatic(dir, StaticOptions{Dim: dim})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(map[int]string{256: "dim=256", 1024: "dim=1024"}[dim], func(b *testing.B) {
			texts := []string{"昨日の夜は駅前のラーメン屋で味噌ラーメン"} // 20 characters
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadStatic loads a 32,768 × 1,024 F32 model (128 MiB): the time
// to open it, and the heap it holds once loaded (held-MiB).
func BenchmarkLoadStatic(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticModel(b, dir, 32768, 1024)
	var held float64
	b.ReportAllocs()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := LoadStatic(dir, StaticOptions{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(held, "held-MiB")
}
