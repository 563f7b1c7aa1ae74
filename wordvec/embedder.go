package wordvec

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

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

// WriteFile writes v to path (Write's format) through a temporary file in
// the same directory renamed into place, so that a failed write leaves no
// partial file and path is either its old content or v; it returns the size
// written.
func WriteFile(path string, v *Vectors) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, fmt.Errorf("wordvec: writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing to remove
	err = v.Write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	var st os.FileInfo
	if err == nil {
		st, err = os.Stat(tmp.Name())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return 0, fmt.Errorf("wordvec: writing %s: %w", path, err)
	}
	return st.Size(), nil
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
