package safetensors

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchFile writes a rows × cols tensor "embeddings" of dtype dt to a
// temporary file and returns its path.
func benchFile(b *testing.B, dt DType, rows, cols int) string {
	b.Helper()
	v := make([]float32, rows*cols)
	for i := range v {
		v[i] = float32(i%1000) / 1000
	}
	path := filepath.Join(b.TempDir(), "model.safetensors")
	if err := WriteFile(path, []Tensor{{"embeddings", dt, []int{rows, cols}, mustEncodeF(b, dt, v)}}, nil); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpenFloat32s opens a file holding a 32,768 × 1,024 table, the
// largest static embedding model expected, and reads it as float32: the
// loader's time and allocated bytes per load.
func BenchmarkOpenFloat32s(b *testing.B) {
	for _, dt := range []DType{F32, F16} {
		b.Run(fmt.Sprintf("%s-32768x1024", dt), func(b *testing.B) {
			const rows, cols = 32768, 1024
			path := benchFile(b, dt, rows, cols)
			b.SetBytes(int64(rows * cols * dt.Bits() / 8))
			b.ReportAllocs()
			for b.Loop() {
				f, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				v, _, err := f.Float32s("embeddings")
				if err != nil || len(v) != rows*cols {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
