package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/omoide/omoide/embed/hftokenizer"
	"github.com/omoide/omoide/embed/safetensors"
	"github.com/omoide/omoide/internal/pytext"
)

// DefaultStaticMaxTokens is how many tokens of a text a model2vec model
// averages, as model2vec's encode does by default (max_length 512).
const DefaultStaticMaxTokens = 512

// StaticOptions configure LoadStatic. The zero value loads the model as it
// was saved.
type StaticOptions struct {
	// Dim keeps the first Dim dimensions of every vector, for a model trained
	// to allow it (Matryoshka, or model2vec's PCA); 0 keeps all of them.
	Dim int
}

// Static is an embedder that runs a static embedding model in-process: a
// text's vector is the mean of its tokens' rows of a table, as
// sentence-transformers' StaticEmbedding (hotchpotch/static-embedding-
// japanese) and model2vec (minishlab/potion-*) compute it, then L2-normalized
// so that the store's distance is the models' cosine. It needs no server and
// downloads nothing: LoadStatic reads a model folder the user fetched once.
// It is semantic (not Lexical) and safe for concurrent use.
type Static struct {
	id     Identity
	layout string // "sentence-transformers" or "model2vec"
	tok    *hftokenizer.Tokenizer
	table  []float32 // rows × dim
	dim    int
	// model2vec only: the unknown token's id, dropped from a text's ids
	// (-1: none); per-id weights and rows (nil: 1 and the id); and the
	// character cut and token cap of its encode.
	unk      int
	weights  []float32
	mapping  []int64
	maxChars int
	maxToks  int
}

// The two folder layouts LoadStatic reads.
const (
	layoutST        = "sentence-transformers"
	layoutModel2Vec = "model2vec"
)

// LoadStatic loads the static embedding model in dir, in either layout:
//   - sentence-transformers StaticEmbedding: 0_StaticEmbedding/model.safetensors
//     (tensor embedding.weight) and 0_StaticEmbedding/tokenizer.json, or both
//     at the top of dir;
//   - model2vec: config.json, model.safetensors (embeddings, and optionally
//     weights and mapping) and tokenizer.json.
//
// Tables of F32, F16, BF16, F64, I8 and U8 are read (int8 tables as their
// integer values, as model2vec uses them). An unsupported tokenizer or tensor
// is an error naming it, never a model that embeds differently.
func LoadStatic(dir string, opts StaticOptions) (*Static, error) {
	s, err := loadStatic(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("embed: static model %s: %w", dir, err)
	}
	return s, nil
}

// ErrDim is wrapped by LoadStatic's error for a StaticOptions.Dim the model
// cannot give (negative, more than the model has, or fewer when it was not
// trained to be cut): an error in what was asked of the model, not in the
// model.
var ErrDim = errors.New("dimension")

func loadStatic(dir string, opts StaticOptions) (*Static, error) {
	if opts.Dim < 0 {
		return nil, fmt.Errorf("%w %d: want 0 (all) or more", ErrDim, opts.Dim)
	}
	// A folder that is not there is named in the system's words, not taken
	// for a folder without a model.
	switch fi, err := os.Stat(dir); {
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err // LoadStatic names dir
		}
		return nil, err
	case !fi.IsDir():
		return nil, errors.New("is a file, not the model's folder")
	}
	s := &Static{unk: -1}
	var tensorPath, tokPath, tableName string
	// model2vec's config: whether its vectors may be cut (apply_pca). Its
	// "normalize" does not matter here: every vector is normalized.
	var cfg struct {
		ApplyPCA any `json:"apply_pca"`
	}
	// The layouts in model2vec's own order: its layout first, then
	// sentence-transformers' nested and flat ones.
	switch {
	case exists(filepath.Join(dir, "config.json")) && exists(filepath.Join(dir, "model.safetensors")) && exists(filepath.Join(dir, "tokenizer.json")):
		s.layout, tensorPath, tokPath, tableName = layoutModel2Vec, filepath.Join(dir, "model.safetensors"), filepath.Join(dir, "tokenizer.json"), "embeddings"
		b, err := os.ReadFile(filepath.Join(dir, "config.json"))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("config.json: %w", err)
		}
	case exists(filepath.Join(dir, "0_StaticEmbedding", "model.safetensors")):
		sub := filepath.Join(dir, "0_StaticEmbedding")
		s.layout, tensorPath, tokPath, tableName = layoutST, filepath.Join(sub, "model.safetensors"), filepath.Join(sub, "tokenizer.json"), "embedding.weight"
	case exists(filepath.Join(dir, "model.safetensors")) && exists(filepath.Join(dir, "config_sentence_transformers.json")):
		s.layout, tensorPath, tokPath, tableName = layoutST, filepath.Join(dir, "model.safetensors"), filepath.Join(dir, "tokenizer.json"), "embedding.weight"
	default:
		return nil, errors.New("not a static embedding model: want config.json, model.safetensors and tokenizer.json (model2vec) or 0_StaticEmbedding/model.safetensors and its tokenizer.json (sentence-transformers)")
	}
	if err := checkModules(dir); err != nil {
		return nil, err
	}
	tok, err := hftokenizer.LoadFile(tokPath)
	if err != nil {
		return nil, err
	}
	s.tok = tok
	f, err := safetensors.Open(tensorPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	table, shape, err := f.Float32s(tableName)
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 {
		return nil, fmt.Errorf("%s: tensor %q has shape %v, want [rows, dimensions]", tensorPath, tableName, shape)
	}
	rows, full := shape[0], shape[1]
	s.dim = full
	if opts.Dim > 0 && opts.Dim != full {
		if opts.Dim > full {
			return nil, fmt.Errorf("%w %d: the model has %d", ErrDim, opts.Dim, full)
		}
		if !truncatable(dir, s.layout, cfg.ApplyPCA) {
			return nil, fmt.Errorf("%w %d: the model does not say it was trained to be truncated (Matryoshka in its README.md, or model2vec's apply_pca)", ErrDim, opts.Dim)
		}
		cut := make([]float32, rows*opts.Dim) // not the whole table's memory
		for r := range rows {
			copy(cut[r*opts.Dim:(r+1)*opts.Dim], table[r*full:r*full+opts.Dim])
		}
		table = cut
		s.dim = opts.Dim
	}
	s.table = table
	vocab := tok.VocabSize()
	if s.layout == layoutModel2Vec {
		if err := s.loadModel2Vec(f, tensorPath, rows, vocab); err != nil {
			return nil, err
		}
	} else if rows < vocab {
		return nil, fmt.Errorf("%s: tensor %q has %d rows for a vocabulary of %d tokens in %s", tensorPath, tableName, rows, vocab, tokPath)
	}
	sum, err := fingerprint(tensorPath, tokPath)
	if err != nil {
		return nil, err
	}
	s.id = Identity{Name: "static:" + sum, Dim: s.dim}
	return s, nil
}

// loadModel2Vec reads what model2vec adds to the table: the weights and the
// rows of the token ids, its unknown token and its length bounds. path is
// f's, for the errors.
func (s *Static) loadModel2Vec(f *safetensors.File, path string, rows, vocab int) error {
	if _, ok := f.Tensor("weights"); ok {
		w, shape, err := f.Float32s("weights")
		if err != nil {
			return err
		}
		if len(shape) != 1 || shape[0] < vocab {
			return fmt.Errorf("%s: tensor \"weights\" has shape %v for a vocabulary of %d tokens", path, shape, vocab)
		}
		s.weights = w
	}
	if _, ok := f.Tensor("mapping"); ok {
		m, shape, err := f.Int64s("mapping")
		if err != nil {
			return err
		}
		if len(shape) != 1 || shape[0] < vocab {
			return fmt.Errorf("%s: tensor \"mapping\" has shape %v for a vocabulary of %d tokens", path, shape, vocab)
		}
		for id, r := range m[:vocab] {
			if r < 0 || r >= int64(rows) {
				return fmt.Errorf("%s: tensor \"mapping\" sends token %d to row %d of %d", path, id, r, rows)
			}
		}
		s.mapping = m
	} else if rows < vocab {
		return fmt.Errorf("%s: tensor \"embeddings\" has %d rows for a vocabulary of %d tokens and no mapping", path, rows, vocab)
	}
	// model2vec drops the id of the tokenizer model's unk_token, which a
	// WordPiece model has and a Unigram model has not.
	if _, id, ok := s.tok.UnkToken(); ok {
		s.unk = id
	}
	s.maxToks = DefaultStaticMaxTokens
	s.maxChars = DefaultStaticMaxTokens * medianTokenLength(s.tok.Vocab())
	return nil
}

// checkModules refuses a sentence-transformers pipeline that does more than
// look up and average (and normalize, which Embed does anyway): a Dense
// layer, say, would change the vectors this embedder cannot compute.
func checkModules(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "modules.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var modules []struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &modules); err != nil {
		return fmt.Errorf("modules.json: %w", err)
	}
	for _, m := range modules {
		switch m.Type[strings.LastIndexByte(m.Type, '.')+1:] {
		case "StaticEmbedding", "Normalize":
		default:
			return fmt.Errorf("modules.json: module %s is not supported (only StaticEmbedding and Normalize)", m.Type)
		}
	}
	return nil
}

// medianTokenLength is model2vec's median_token_length: the median of the
// vocabulary's token lengths in characters, truncated to an integer.
func medianTokenLength(vocab []string) int {
	if len(vocab) == 0 {
		return 1
	}
	n := make([]int, len(vocab))
	for i, t := range vocab {
		n[i] = utf8.RuneCountInString(t)
	}
	slices.Sort(n)
	m := len(n) / 2
	if len(n)%2 == 1 {
		return n[m]
	}
	return (n[m-1] + n[m]) / 2
}

// truncatable reports whether a model says its vectors keep their meaning
// cut to their first dimensions.
func truncatable(dir, layout string, applyPCA any) bool {
	if layout == layoutModel2Vec && applyPCA != nil && applyPCA != false {
		return true
	}
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	return err == nil && strings.Contains(strings.ToLower(string(b)), "matryoshka")
}

// fingerprint names a model by the bytes of its table and tokenizer, so that
// a store records which model made its vectors wherever the folder lies.
func fingerprint(paths ...string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Identity returns "static:<fingerprint>" and the dimension.
func (s *Static) Identity() Identity { return s.id }

// Layout says which folder layout the model was read from:
// "sentence-transformers" or "model2vec".
func (s *Static) Layout() string { return s.layout }

// Embed returns one L2-normalized vector per text; a text with no known
// token gets the zero vector.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	acc := make([]float64, s.dim)
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = s.embed(t, acc)
	}
	return out, nil
}

// embed averages the rows of text's tokens into acc and returns them
// normalized.
func (s *Static) embed(text string, acc []float64) []float32 {
	clear(acc)
	if s.maxChars > 0 {
		text = pytext.Head(text, s.maxChars) // Python text[:n], as model2vec cuts
	}
	ids := s.tok.Encode(text)
	n := 0
	for _, id := range ids {
		if id == s.unk {
			continue
		}
		if s.maxToks > 0 && n == s.maxToks {
			break
		}
		row := int64(id)
		if s.mapping != nil {
			row = s.mapping[id]
		}
		w := 1.0
		if s.weights != nil {
			w = float64(s.weights[id])
		}
		r := s.table[int(row)*s.dim : int(row+1)*s.dim]
		for j, v := range r {
			acc[j] += w * float64(v)
		}
		n++
	}
	v := make([]float32, s.dim)
	if n == 0 {
		return v
	}
	var norm float64
	for _, a := range acc {
		norm += a * a
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		return v
	}
	for j, a := range acc {
		v[j] = float32(a / norm)
	}
	return v
}
