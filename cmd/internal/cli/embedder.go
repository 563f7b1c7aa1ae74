package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/wordvec"
)

// Environment variables that give the embedder flags their defaults.
const (
	EnvEmbedder = "OMOIDE_EMBEDDER"
	EnvEndpoint = "OMOIDE_ENDPOINT"
	EnvModel    = "OMOIDE_MODEL"
	EnvDim      = "OMOIDE_DIM"
)

// EmbedderFlags are the flags that choose the embedder: -embedder
// hash|openai|static|terms,
// -endpoint, -model, -dim and -key-env (Register), and optionally the
// openai request options -batch and -dimensions (RegisterRequest). Register
// them, parse, then call Validate and Embedder.
type EmbedderFlags struct {
	Name       string // -embedder: hash, openai, static or terms
	Endpoint   string // -endpoint: openai's API base URL ("" = embed.DefaultOpenAIBaseURL)
	Model      string // -model: openai's embedding model, the folder of a static model, or a word vectors file (terms)
	Dim        int    // -dim: the vector dimension (hash: 0 = embed.DefaultHashDim; static: 0 = the model's)
	KeyEnv     string // -key-env: the environment variable that holds openai's API key
	Batch      int    // -batch: openai's texts per request (0 = embed.DefaultOpenAIBatchSize)
	Dimensions bool   // -dimensions: send "dimensions" in openai requests

	fs      *flag.FlagSet
	request bool  // RegisterRequest registered -batch and -dimensions
	envErr  error // a bad OMOIDE_DIM, reported unless -dim is given
}

// Register registers -embedder, -endpoint, -model, -dim and -key-env on fs,
// with their defaults from OMOIDE_EMBEDDER, OMOIDE_ENDPOINT, OMOIDE_MODEL and
// OMOIDE_DIM.
func (e *EmbedderFlags) Register(fs *flag.FlagSet) {
	e.fs = fs
	fs.StringVar(&e.Name, "embedder", EnvOr(EnvEmbedder, "hash"),
		"the embedder: hash (offline, lexical), openai (any OpenAI-compatible /embeddings endpoint), static (a static embedding model's folder, in-process) or terms (word vectors learned by omoide learn, in-process) (env "+EnvEmbedder+")")
	fs.StringVar(&e.Endpoint, "endpoint", os.Getenv(EnvEndpoint),
		"openai: the API base `URL`, e.g. http://localhost:11434/v1 (default "+embed.DefaultOpenAIBaseURL+") (env "+EnvEndpoint+")")
	fs.StringVar(&e.Model, "model", os.Getenv(EnvModel), "openai: the embedding `model`; static: the model's folder; terms: the word vectors file (env "+EnvModel+")")
	dim := 0
	if v := os.Getenv(EnvDim); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			e.envErr = fmt.Errorf("environment variable %s=%q is not a positive integer", EnvDim, v)
		} else {
			dim = n
		}
	}
	fs.IntVar(&e.Dim, "dim", dim, "the vector dimension: required for openai; hash defaults to "+strconv.Itoa(embed.DefaultHashDim)+"; static: the model's, or fewer for a model trained for it (env "+EnvDim+")")
	fs.StringVar(&e.KeyEnv, "key-env", "OPENAI_API_KEY", "openai: the `name` of the environment variable that holds the API key (the key itself is never a flag)")
}

// RegisterRequest registers openai's request options -batch and -dimensions
// on fs, which Register must have been given.
func (e *EmbedderFlags) RegisterRequest(fs *flag.FlagSet) {
	e.request = true
	fs.IntVar(&e.Batch, "batch", 0, "openai: texts per request (0: "+strconv.Itoa(embed.DefaultOpenAIBatchSize)+")")
	fs.BoolVar(&e.Dimensions, "dimensions", false, "openai: send \"dimensions\": -dim in every request (text-embedding-3-*)")
}

// set reports whether the flag name was given on the command line.
func (e *EmbedderFlags) set(name string) bool {
	found := false
	if e.fs != nil {
		e.fs.Visit(func(f *flag.Flag) {
			if f.Name == name {
				found = true
			}
		})
	}
	return found
}

// Validate checks the flags once parsed; every error it returns is a usage
// error that names the flag (or the environment variable) at fault.
func (e *EmbedderFlags) Validate() error {
	if e.envErr != nil && !e.set("dim") {
		return fmt.Errorf("%w: %v", ErrUsage, e.envErr)
	}
	if e.Dim < 0 {
		return fmt.Errorf("%w: -dim %d: must be positive", ErrUsage, e.Dim)
	}
	switch e.Name {
	case "hash":
		openaiOnly := []string{"endpoint", "model"}
		if e.request {
			openaiOnly = append(openaiOnly, "batch", "dimensions")
		}
		for _, name := range openaiOnly {
			if e.set(name) {
				return fmt.Errorf("%w: -%s is not for -embedder hash", ErrUsage, name)
			}
		}
	case "static", "terms":
		for _, name := range []string{"endpoint", "batch", "dimensions"} {
			if e.set(name) {
				return fmt.Errorf("%w: -%s is for -embedder openai, not %s", ErrUsage, name, e.Name)
			}
		}
		if e.Name == "terms" && e.set("dim") {
			return fmt.Errorf("%w: -dim is not for -embedder terms: the vectors file has its dimension", ErrUsage)
		}
		if strings.TrimSpace(e.Model) == "" {
			if e.Name == "terms" {
				return fmt.Errorf("%w: -embedder terms needs -model, the word vectors file omoide learn wrote (or %s)", ErrUsage, EnvModel)
			}
			return fmt.Errorf("%w: -embedder static needs -model, the model's folder (or %s)", ErrUsage, EnvModel)
		}
	case "openai":
		if strings.TrimSpace(e.Model) == "" {
			return fmt.Errorf("%w: -embedder openai needs -model (or %s)", ErrUsage, EnvModel)
		}
		if e.Dim == 0 {
			return fmt.Errorf("%w: -embedder openai needs -dim, the model's vector dimension (or %s)", ErrUsage, EnvDim)
		}
		if e.KeyEnv == "" {
			return fmt.Errorf("%w: -key-env is empty", ErrUsage)
		}
		if e.Batch < 0 {
			return fmt.Errorf("%w: -batch %d: must not be negative", ErrUsage, e.Batch)
		}
	default:
		return fmt.Errorf("%w: -embedder %q: want hash, openai, static or terms", ErrUsage, e.Name)
	}
	return nil
}

// Embedder returns the embedder the flags describe: omoide's hash embedder
// (omoide.NewHashEmbedder) at -dim, an OpenAI-compatible client whose API
// key is read from the environment variable -key-env names, or the static
// model in the folder -model (embed.LoadStatic). Call Validate first; an
// embedder the flags cannot make is a usage error, but a static model that
// is not there or cannot be read is a failure (exit status 1), named by the
// file at fault: only a -dim the model cannot give is a usage error.
func (e *EmbedderFlags) Embedder() (embed.Embedder, error) {
	if e.Name == "terms" {
		t, err := wordvec.LoadEmbedder(e.Model)
		if err != nil {
			return nil, fmt.Errorf("-model: %w", err)
		}
		return t, nil
	}
	if e.Name == "static" {
		s, err := embed.LoadStatic(e.Model, embed.StaticOptions{Dim: e.Dim})
		if errors.Is(err, embed.ErrDim) {
			return nil, fmt.Errorf("%w: -dim: %v", ErrUsage, err)
		}
		if err != nil {
			return nil, fmt.Errorf("-model: %w", err)
		}
		return s, nil
	}
	if e.Name == "openai" {
		o, err := embed.NewOpenAI(embed.OpenAIConfig{
			BaseURL:    e.Endpoint,
			Model:      e.Model,
			APIKey:     os.Getenv(e.KeyEnv),
			Dim:        e.Dim,
			BatchSize:  e.Batch,
			Dimensions: e.Dimensions,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		return o, nil
	}
	h, err := omoide.NewHashEmbedder(e.Dim)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return h, nil
}

// EnvOr returns the environment variable name, or def when it is unset or
// empty.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// FlagsFor suggests the embedder flags that describe the embedder id, for a
// message about a store recorded with it.
func FlagsFor(id embed.Identity) string {
	if model, ok := strings.CutPrefix(id.Name, "openai:"); ok {
		return fmt.Sprintf("open it with -embedder openai -model %s -dim %d", model, id.Dim)
	}
	if strings.HasPrefix(id.Name, "hash-") {
		return fmt.Sprintf("open it with -embedder hash -dim %d", id.Dim)
	}
	if strings.HasPrefix(id.Name, "terms:") {
		return fmt.Sprintf("open it with -embedder terms -model FILE, FILE the word vectors whose fingerprint begins %s", strings.TrimPrefix(strings.Split(id.Name, "+")[0], "terms:"))
	}
	if sum, ok := strings.CutPrefix(id.Name, "static:"); ok {
		return fmt.Sprintf("open it with -embedder static -model DIR -dim %d, DIR the folder of the model whose fingerprint is %s", id.Dim, sum)
	}
	return "open it with the embedder " + id.String()
}
