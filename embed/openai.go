package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// OpenAI defaults.
const (
	DefaultOpenAIBaseURL   = "https://api.openai.com/v1"
	DefaultOpenAIBatchSize = 64
	DefaultOpenAITimeout   = 30 * time.Second
)

const (
	// maxResponseBytes bounds a successful response body. 64 inputs of 4096
	// dimensions in JSON are about 6 MiB; anything far beyond is not a
	// response to our request.
	maxResponseBytes = 256 << 20
	// maxErrorBodyBytes bounds how much of an error body is read.
	maxErrorBodyBytes = 4 << 10
	// snippetRunes is the longest body excerpt quoted in an error.
	snippetRunes = 200
	// redacted replaces the API key wherever it would appear in an error.
	redacted = "[REDACTED]"
)

// OpenAIConfig configures NewOpenAI.
type OpenAIConfig struct {
	// BaseURL is the API root; "/embeddings" is appended. Default
	// DefaultOpenAIBaseURL. A trailing slash is tolerated. Examples:
	// "http://localhost:11434/v1" (Ollama), "http://localhost:8080/v1"
	// (llama.cpp server), "http://localhost:1234/v1" (LM Studio).
	BaseURL string

	// Model is the embedding model name sent with every request. Required.
	Model string

	// APIKey is sent as "Authorization: Bearer <APIKey>" when non-empty;
	// many local servers need none. Read it from an environment variable
	// (e.g. os.Getenv("OPENAI_API_KEY")) rather than from a flag or a file
	// under version control. It never appears in an error message.
	APIKey string

	// Dim is the expected vector dimension. Required: every response is
	// checked against it.
	Dim int

	// BatchSize is the maximum number of texts per request. Default
	// DefaultOpenAIBatchSize.
	BatchSize int

	// Timeout bounds each request, from sending it to reading the whole
	// response. Default DefaultOpenAITimeout.
	Timeout time.Duration

	// HTTPClient sends the requests. Nil means a client of its own with no
	// timeout other than Timeout.
	HTTPClient *http.Client

	// Dimensions, when set, sends "dimensions": Dim in every request, asking
	// models that support shortening (OpenAI text-embedding-3-*) for
	// Dim-dimensional vectors. Leave it unset for servers and models that
	// reject the field.
	Dimensions bool
}

// OpenAI is an Embedder for any server that speaks the OpenAI embeddings API,
// POST {BaseURL}/embeddings: OpenAI itself, Ollama, llama.cpp server, vLLM,
// Hugging Face TEI, LM Studio and others.
//
// Embed splits its input into batches of at most BatchSize texts and sends them
// one after another, each bounded by Timeout and by ctx. Every response is
// checked: one embedding per input (matched by its "index", since servers may
// reorder them), of exactly Dim finite values. Vectors are returned as the
// server sent them, not normalised; the episode store compares them by cosine
// distance, for which scale does not matter. Failed requests are not retried.
//
// The API key is never included in an error: any occurrence of it in text
// quoted from a response or a transport error is replaced by "[REDACTED]".
// An error that quotes an excerpt of the server's response (a StatusError, a
// malformed or incomplete body) has a method ResponseBody() string that
// returns the excerpt, so that a caller can keep it out of its logs: a server
// may echo the input texts in it.
//
// OpenAI is safe for concurrent use.
type OpenAI struct {
	endpoint   string
	shown      string // endpoint as quoted in errors: password redacted
	model      string
	apiKey     string
	dim        int
	batchSize  int
	timeout    time.Duration
	client     *http.Client
	dimensions bool
	id         Identity
}

var _ Embedder = (*OpenAI)(nil)

// NewOpenAI returns an OpenAI-compatible embedder configured by cfg. It sends
// no request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embed: openai: Model is required")
	}
	if cfg.Dim <= 0 {
		return nil, fmt.Errorf("embed: openai: Dim must be positive (the model's vector dimension), got %d", cfg.Dim)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("embed: openai: BatchSize must not be negative, got %d", cfg.BatchSize)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("embed: openai: Timeout must not be negative, got %v", cfg.Timeout)
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	base = strings.TrimRight(base, "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embed: openai: BaseURL %q is not an http(s) URL", redactURL(cfg.BaseURL))
	}
	e := &OpenAI{
		endpoint:   base + "/embeddings",
		shown:      redactURL(base + "/embeddings"),
		model:      cfg.Model,
		apiKey:     cfg.APIKey,
		dim:        cfg.Dim,
		batchSize:  cfg.BatchSize,
		timeout:    cfg.Timeout,
		client:     cfg.HTTPClient,
		dimensions: cfg.Dimensions,
		id:         Identity{Name: "openai:" + cfg.Model, Dim: cfg.Dim},
	}
	if e.batchSize == 0 {
		e.batchSize = DefaultOpenAIBatchSize
	}
	if e.timeout == 0 {
		e.timeout = DefaultOpenAITimeout
	}
	if e.client == nil {
		e.client = &http.Client{}
	}
	return e, nil
}

// redactURL hides a password in a URL's user info.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// Identity returns {"openai:" + Model, Dim}.
func (e *OpenAI) Identity() Identity { return e.id }

// Embed returns one vector per text, in order. An empty texts returns an empty
// result without a request. On any error no vectors are returned.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: openai: %w", err)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.batchSize {
		end := min(start+e.batchSize, len(texts))
		vecs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			if len(texts) > e.batchSize {
				err = &redactedError{
					msg: fmt.Sprintf("%s (texts %d..%d of %d)", err.Error(), start, end-1, len(texts)),
					err: err,
				}
			}
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type embeddingRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingResponse struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
}

// embedBatch sends one request. Every error it returns has passed through
// e.errorf, so it names the endpoint and never contains the API key.
func (e *OpenAI) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	req := embeddingRequest{Model: e.model, Input: batch}
	if e.dimensions {
		req.Dimensions = e.dim
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, e.errorf(err, "encoding request: %v", err)
	}

	rctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(rctx, http.MethodPost, e.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, e.errorf(err, "building request: %v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if e.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+e.apiKey)
	}

	resp, err := e.client.Do(hreq)
	if err != nil {
		return nil, e.transportError(ctx, rctx, err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes+1))
		if len(raw) > maxErrorBodyBytes {
			raw = e.cutPartialKey(raw[:maxErrorBodyBytes])
		}
		se := &StatusError{
			StatusCode: resp.StatusCode,
			Status:     e.scrub(resp.Status), // the reason phrase is the server's text too
			Body:       e.snippet(raw),
			endpoint:   e.scrub(e.shown),
			cause:      statusCause(resp.StatusCode),
		}
		return nil, se
	}

	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, e.transportError(ctx, rctx, err)
	}
	if len(raw) > maxResponseBytes {
		return nil, e.errorf(nil, "response body exceeds %d bytes", maxResponseBytes)
	}
	var parsed embeddingResponse
	if err := json.Unmarshal(raw, &parsed); err != nil {
		body := e.snippet(raw)
		return nil, e.quoting(body, e.errorf(err, "malformed JSON response (%v): %s", err, body))
	}
	return e.collect(parsed, len(batch), raw)
}

// collect checks a parsed response and orders its vectors by index.
func (e *OpenAI) collect(parsed embeddingResponse, n int, raw []byte) ([][]float32, error) {
	if parsed.Data == nil {
		body := e.snippet(raw)
		return nil, e.quoting(body, e.errorf(nil, "response has no \"data\" array: %s", body))
	}
	if len(parsed.Data) != n {
		return nil, e.errorf(nil, "model %s returned %d embeddings for %d inputs", e.model, len(parsed.Data), n)
	}
	vecs := make([][]float32, n)
	for i, d := range parsed.Data {
		if d.Index == nil {
			return nil, e.errorf(nil, "data[%d] has no \"index\"", i)
		}
		idx := *d.Index
		if idx < 0 || idx >= n {
			return nil, e.errorf(nil, "data[%d] has index %d, out of range for %d inputs", i, idx, n)
		}
		if vecs[idx] != nil {
			return nil, e.errorf(nil, "index %d appears more than once in the response", idx)
		}
		if len(d.Embedding) != e.dim {
			return nil, e.errorf(nil, "model %s returned %d-dim vectors, store expects %d", e.model, len(d.Embedding), e.dim)
		}
		for j, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, e.errorf(nil, "embedding %d has a non-finite value %v at position %d", idx, x, j)
			}
		}
		vecs[idx] = d.Embedding
	}
	// n distinct indices in [0, n) leave no gap.
	return vecs, nil
}

// transportError describes a failed exchange, saying whether the caller's
// ctx ended or the per-request timeout expired. The returned error wraps err,
// so errors.Is(err, context.DeadlineExceeded) and context.Canceled work.
func (e *OpenAI) transportError(ctx, rctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return e.errorf(err, "request abandoned: %v", err)
	case errors.Is(rctx.Err(), context.DeadlineExceeded):
		if !errors.Is(err, context.DeadlineExceeded) {
			err = &redactedError{msg: err.Error(), err: errors.Join(err, context.DeadlineExceeded)}
		}
		return e.errorf(err, "no complete response within %v: %v", e.timeout, err)
	default:
		return e.errorf(err, "%v", err)
	}
}

// errorf formats an error prefixed with "embed: openai: POST <endpoint>: ",
// with the API key scrubbed from the message, wrapping cause (may be nil).
func (e *OpenAI) errorf(cause error, format string, args ...any) error {
	msg := "embed: openai: POST " + e.shown + ": " + fmt.Sprintf(format, args...)
	return &redactedError{msg: e.scrub(msg), err: cause}
}

// quoting records on err, made by errorf, the excerpt of the response body
// its message quotes.
func (e *OpenAI) quoting(body string, err error) error {
	err.(*redactedError).body = body
	return err
}

// scrub replaces every occurrence of the API key in s.
func (e *OpenAI) scrub(s string) string {
	if e.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, e.apiKey, redacted)
}

// cutPartialKey removes from the end of a body cut at a read limit the
// beginning of the API key, if the cut fell inside it: scrub only recognises
// the whole key.
func (e *OpenAI) cutPartialKey(raw []byte) []byte {
	for n := min(len(e.apiKey)-1, len(raw)); n > 0; n-- {
		if bytes.HasSuffix(raw, []byte(e.apiKey[:n])) {
			return raw[:len(raw)-n]
		}
	}
	return raw
}

// snippet returns a printable excerpt of a response body of at most
// snippetRunes code points, with the API key scrubbed before clipping (so a
// clipped key cannot leak a prefix) and control characters replaced.
func (e *OpenAI) snippet(raw []byte) string {
	s := e.scrub(strings.ToValidUTF8(string(raw), "\uFFFD"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > snippetRunes {
		i := 0
		for pos := range s {
			if i == snippetRunes {
				s = s[:pos] + "…"
				break
			}
			i++
		}
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// redactedError carries a message already scrubbed of the API key and the
// error it wraps, and the excerpt of the response body the message quotes,
// if any.
type redactedError struct {
	msg  string
	err  error
	body string
}

func (r *redactedError) Error() string { return r.msg }
func (r *redactedError) Unwrap() error { return r.err }

// ResponseBody returns the excerpt of the server's response that the message
// quotes, or "" (see OpenAI).
func (r *redactedError) ResponseBody() string { return r.body }

// StatusError is returned by OpenAI.Embed when the server answers with a
// non-2xx status. Use errors.As to inspect it, e.g. to tell an invalid key
// (401) from rate limiting (429).
type StatusError struct {
	StatusCode int    // e.g. 429
	Status     string // e.g. "429 Too Many Requests", the API key replaced by "[REDACTED]"
	// Body is a printable excerpt of the response body, at most 200 code
	// points, with the API key replaced by "[REDACTED]".
	Body string

	endpoint string
	cause    error
}

// Error returns "embed: openai: POST <endpoint>: HTTP <status>: <body>".
func (s *StatusError) Error() string {
	return fmt.Sprintf("embed: openai: POST %s: HTTP %s: %s", s.endpoint, s.Status, s.Body)
}

// ResponseBody returns Body, the excerpt of the response the message quotes
// (see OpenAI).
func (s *StatusError) ResponseBody() string { return s.Body }

// Unwrap returns ErrUnauthorized for 401 and 403, ErrRateLimited for 429, and
// nil otherwise.
func (s *StatusError) Unwrap() error { return s.cause }

// Sentinel causes of a StatusError, for errors.Is.
var (
	ErrUnauthorized = errors.New("embed: openai: unauthorized")
	ErrRateLimited  = errors.New("embed: openai: rate limited")
)

func statusCause(code int) error {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrUnauthorized
	case http.StatusTooManyRequests:
		return ErrRateLimited
	}
	return nil
}
