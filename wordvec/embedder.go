package wordvec

import (
	"bufio"
	"fmt"
	"os"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/tokenize"
)

// ReadFile reads the vectors file at path (Write's format).
func ReadFile(path string) (*Vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wordvec: %w", err)
	}
	defer f.Close()
	v, err := Read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("wordvec: %s: %w", path, err)
	}
	return v, nil
}

// Embedder returns the embedder of v's terms (embed.Terms) with the
// analyzer the vectors were learned with.
func (v *Vectors) Embedder() (*embed.Terms, error) {
	a, err := tokenize.ByName(v.params.Analyzer)
	if err != nil {
		return nil, fmt.Errorf("wordvec: the vectors' analyzer: %w", err)
	}
	return embed.NewTerms(v, embed.TermOptions{Index: a.Index, Analyzer: a.Name()})
}

// LoadEmbedder reads the vectors file at path and returns its embedder.
func LoadEmbedder(path string) (*embed.Terms, error) {
	v, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return v.Embedder()
}
