// Package embed turns text into vectors for the episode store's KNN search.
//
// An Embedder is identified by its Identity (a name and a dimension). The
// episode store records the identity it was created with and refuses to open
// with another, so vectors from two different spaces are never mixed.
//
// Three embedders are provided. Hash (NewHash) is the offline default: a
// deterministic hashing-trick vector of character n-grams and optional words.
// It is lexical, not semantic: it finds texts that share characters and words,
// not synonyms or paraphrases. Static (LoadStatic) runs a static embedding
// model in-process, from a folder the user fetched once (model2vec's potion
// models, sentence-transformers' StaticEmbedding such as
// static-embedding-japanese): neighbours by meaning at the cost of a table
// look-up, with no server. OpenAI (NewOpenAI) calls any OpenAI-compatible
// /embeddings endpoint (OpenAI, Ollama, llama.cpp server, vLLM, TEI, LM
// Studio).
package embed

import (
	"context"
	"fmt"
)

// Identity names a vector space: the embedder (and model) that produced the
// vectors and their dimension.
type Identity struct {
	Name string // e.g. "hash-v1" or "openai:text-embedding-3-small"
	Dim  int
}

// String returns "name/dim".
func (id Identity) String() string { return fmt.Sprintf("%s/%d", id.Name, id.Dim) }

// Lexical is implemented by embedders whose vectors encode the words and
// characters of a text, not its meaning (Hash). A retriever weighs their
// vector search below BM25, whose evidence they repeat without its IDF.
type Lexical interface {
	Lexical() bool
}

// IsLexical reports whether e says it is lexical.
func IsLexical(e Embedder) bool {
	l, ok := e.(Lexical)
	return ok && l.Lexical()
}

// Embedder embeds texts in one batched call. Implementations must be safe for
// concurrent use, return exactly one vector of Identity().Dim values per input
// text, in order, and honour ctx cancellation.
type Embedder interface {
	Identity() Identity
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
