package safetensors_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/omoide/omoide/embed/safetensors"
)

// Example writes a tiny model2vec-style model and reads it back.
func Example() {
	dir, err := os.MkdirTemp("", "safetensors-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.safetensors")

	// Three tokens of dimension 2, stored as F16, and a token → row mapping.
	emb, err := safetensors.EncodeFloat32s(safetensors.F16, []float32{1, 0, 0.5, -0.5, 0.25, 2})
	if err != nil {
		log.Fatal(err)
	}
	mapping, err := safetensors.EncodeInt64s(safetensors.I64, []int64{0, 2, 1})
	if err != nil {
		log.Fatal(err)
	}
	err = safetensors.WriteFile(path, []safetensors.Tensor{
		{Name: "embeddings", DType: safetensors.F16, Shape: []int{3, 2}, Data: emb},
		{Name: "mapping", DType: safetensors.I64, Shape: []int{3}, Data: mapping},
	}, map[string]string{"format": "pt"})
	if err != nil {
		log.Fatal(err)
	}

	f, err := safetensors.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for _, t := range f.Tensors() {
		fmt.Println(t.Name, t.DType, t.Shape)
	}
	vectors, shape, err := f.Float32s("embeddings")
	if err != nil {
		log.Fatal(err)
	}
	rows, _, err := f.Int64s("mapping")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(shape, vectors, rows, f.Metadata())
	if _, ok := f.Tensor("weights"); !ok {
		fmt.Println("no weights")
	}
	// Output:
	// mapping I64 [3]
	// embeddings F16 [3 2]
	// [3 2] [1 0 0.5 -0.5 0.25 2] [0 2 1] map[format:pt]
	// no weights
}
