package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-test-SECRET-0123456789abcdef"

// fakeServer is an OpenAI-compatible embeddings endpoint whose embedding of a
// text is fake(text, dim), so results can be checked for order.
type fakeServer struct {
	t       *testing.T
	dim     int
	reverse bool // return data in reverse index order

	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	path   string
	auth   string
	hasKey bool // Authorization header present
	body   map[string]json.RawMessage
	input  []string
}

// fake derives a deterministic vector from a text.
func fake(text string, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(len(text)*100 + i)
	}
	if len(text) > 0 {
		v[0] = float32(text[len(text)-1])
	}
	return v
}

// reqs returns the requests received so far.
func (f *fakeServer) reqs() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var body map[string]json.RawMessage
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	_, hasKey := r.Header["Authorization"]
	f.mu.Lock()
	f.requests = append(f.requests, recorded{
		path: r.URL.Path, auth: r.Header.Get("Authorization"), hasKey: hasKey, body: body, input: req.Input,
	})
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want POST application/json", 400)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i, in := range req.Input {
		resp.Data = append(resp.Data, item{Object: "embedding", Embedding: fake(in, f.dim), Index: i})
	}
	if f.reverse {
		for i, j := 0, len(resp.Data)-1; i < j; i, j = i+1, j-1 {
			resp.Data[i], resp.Data[j] = resp.Data[j], resp.Data[i]
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func newOpenAI(t *testing.T, cfg OpenAIConfig) *OpenAI {
	t.Helper()
	e, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return e
}

func TestOpenAIBatchingAndOrder(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			fs := &fakeServer{t: t, dim: 4, reverse: reverse}
			srv := httptest.NewServer(fs)
			defer srv.Close()
			e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL + "/v1/", Model: "m", Dim: 4, BatchSize: 2})
			texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(texts) {
				t.Fatalf("got %d vectors for %d texts", len(got), len(texts))
			}
			for i, text := range texts {
				want := fake(text, 4)
				for j := range want {
					if got[i][j] != want[j] {
						t.Fatalf("vector %d (%q) = %v, want %v", i, text, got[i], want)
					}
				}
			}
			if len(fs.reqs()) != 3 {
				t.Fatalf("%d requests, want 3", len(fs.reqs()))
			}
			wantInputs := [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}}
			for i, r := range fs.reqs() {
				if r.path != "/v1/embeddings" {
					t.Errorf("request %d path %q, want /v1/embeddings", i, r.path)
				}
				if strings.Join(r.input, ",") != strings.Join(wantInputs[i], ",") {
					t.Errorf("request %d input %q, want %q", i, r.input, wantInputs[i])
				}
				if string(r.body["model"]) != `"m"` {
					t.Errorf("request %d model %s", i, r.body["model"])
				}
				if _, ok := r.body["dimensions"]; ok {
					t.Errorf("request %d sent dimensions without Config.Dimensions", i)
				}
			}
		})
	}
}

func TestOpenAIEmptyInput(t *testing.T) {
	fs := &fakeServer{t: t, dim: 3}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3})
	got, err := e.Embed(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want empty, nil", got, err)
	}
	if len(fs.reqs()) != 0 {
		t.Errorf("Embed(nil) sent %d requests", len(fs.reqs()))
	}
}

func TestOpenAIAuthAndDimensions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		key        string
		dimensions bool
	}{
		{"no key", "", false},
		{"key", testKey, false},
		{"dimensions", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := &fakeServer{t: t, dim: 3}
			srv := httptest.NewServer(fs)
			defer srv.Close()
			e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3, APIKey: tc.key, Dimensions: tc.dimensions})
			if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
				t.Fatal(err)
			}
			r := fs.reqs()[0]
			if r.path != "/embeddings" {
				t.Errorf("path %q, want /embeddings", r.path)
			}
			if tc.key == "" {
				if r.hasKey {
					t.Errorf("Authorization %q sent without a key", r.auth)
				}
			} else if r.auth != "Bearer "+tc.key {
				t.Errorf("Authorization %q, want %q", r.auth, "Bearer "+tc.key)
			}
			d, ok := r.body["dimensions"]
			if tc.dimensions && string(d) != "3" {
				t.Errorf(`"dimensions" = %s, want 3`, d)
			}
			if !tc.dimensions && ok {
				t.Errorf(`"dimensions" = %s sent, want absent`, d)
			}
		})
	}
}

func TestOpenAIIdentity(t *testing.T) {
	e := newOpenAI(t, OpenAIConfig{Model: "text-embedding-3-small", Dim: 1536})
	if got, want := e.Identity(), (Identity{Name: "openai:text-embedding-3-small", Dim: 1536}); got != want {
		t.Errorf("Identity() = %v, want %v", got, want)
	}
	if e.endpoint != "https://api.openai.com/v1/embeddings" {
		t.Errorf("default endpoint %q", e.endpoint)
	}
}

func TestNewOpenAIValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  OpenAIConfig
		want string
	}{
		{"no model", OpenAIConfig{Dim: 3}, "Model is required"},
		{"no dim", OpenAIConfig{Model: "m"}, "Dim must be positive"},
		{"negative dim", OpenAIConfig{Model: "m", Dim: -1}, "Dim must be positive"},
		{"negative batch", OpenAIConfig{Model: "m", Dim: 3, BatchSize: -1}, "BatchSize"},
		{"negative timeout", OpenAIConfig{Model: "m", Dim: 3, Timeout: -time.Second}, "Timeout"},
		{"bad scheme", OpenAIConfig{Model: "m", Dim: 3, BaseURL: "ftp://x/v1"}, "not an http(s) URL"},
		{"no host", OpenAIConfig{Model: "m", Dim: 3, BaseURL: "localhost:11434"}, "not an http(s) URL"},
		{"password hidden", OpenAIConfig{Model: "m", Dim: 3, BaseURL: "ftp://u:hunter2@x/"}, "xxxxx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewOpenAI(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewOpenAI(%+v) = %v, want an error containing %q", tc.cfg, err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks the URL password: %v", err)
			}
		})
	}
}

// respond returns a handler that answers every request with status and body.
func respond(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestOpenAIErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		dim     int
		texts   []string
		want    []string // substrings of the error
		is      error    // errors.Is target, if any
		status  int      // StatusError.StatusCode, if any
	}{
		{
			name:    "500",
			handler: respond(500, `{"error":{"message":"model crashed"}}`),
			want:    []string{"embed: openai:", "HTTP 500", "model crashed"},
			status:  500,
		},
		{
			name:    "401",
			handler: respond(401, `{"error":{"message":"Incorrect API key provided"}}`),
			want:    []string{"HTTP 401", "Incorrect API key"},
			is:      ErrUnauthorized,
			status:  401,
		},
		{
			name:    "429",
			handler: respond(429, `{"error":{"message":"Rate limit reached"}}`),
			want:    []string{"HTTP 429", "Rate limit"},
			is:      ErrRateLimited,
			status:  429,
		},
		{
			name:    "long error body clipped",
			handler: respond(502, strings.Repeat("あ", 5000)),
			want:    []string{"HTTP 502", strings.Repeat("あ", 200) + "…"},
			status:  502,
		},
		{
			name:    "malformed JSON",
			handler: respond(200, `{"data": [`),
			want:    []string{"malformed JSON", `{"data": [`},
		},
		{
			name:    "not JSON",
			handler: respond(200, `<html>gateway</html>`),
			want:    []string{"malformed JSON", "<html>gateway</html>"},
		},
		{
			name:    "no data",
			handler: respond(200, `{"error":"oops"}`),
			want:    []string{`no "data" array`, "oops"},
		},
		{
			name:    "wrong dimension",
			handler: respond(200, `{"data":[{"embedding":[1,2],"index":0}]}`),
			want:    []string{"model m returned 2-dim vectors, store expects 3"},
		},
		{
			name:    "null embedding",
			handler: respond(200, `{"data":[{"embedding":null,"index":0}]}`),
			want:    []string{"returned 0-dim vectors, store expects 3"},
		},
		{
			name:    "too few",
			handler: respond(200, `{"data":[{"embedding":[1,2,3],"index":0}]}`),
			texts:   []string{"a", "b"},
			want:    []string{"returned 1 embeddings for 2 inputs"},
		},
		{
			name:    "too many",
			handler: respond(200, `{"data":[{"embedding":[1,2,3],"index":0},{"embedding":[1,2,3],"index":1}]}`),
			want:    []string{"returned 2 embeddings for 1 inputs"},
		},
		{
			name:    "missing index",
			handler: respond(200, `{"data":[{"embedding":[1,2,3]}]}`),
			want:    []string{`data[0] has no "index"`},
		},
		{
			name:    "duplicate index",
			handler: respond(200, `{"data":[{"embedding":[1,2,3],"index":1},{"embedding":[1,2,3],"index":1}]}`),
			texts:   []string{"a", "b"},
			want:    []string{"index 1 appears more than once"},
		},
		{
			name:    "index out of range",
			handler: respond(200, `{"data":[{"embedding":[1,2,3],"index":0},{"embedding":[1,2,3],"index":2}]}`),
			texts:   []string{"a", "b"},
			want:    []string{"data[1] has index 2, out of range for 2 inputs"},
		},
		{
			name:    "negative index",
			handler: respond(200, `{"data":[{"embedding":[1,2,3],"index":-1}]}`),
			want:    []string{"index -1, out of range"},
		},
		{
			name:    "NaN literal",
			handler: respond(200, `{"data":[{"embedding":[1,NaN,3],"index":0}]}`),
			want:    []string{"malformed JSON"},
		},
		{
			name:    "float32 overflow",
			handler: respond(200, `{"data":[{"embedding":[1,1e39,3],"index":0}]}`),
			want:    []string{"malformed JSON"},
		},
		{
			name:    "base64 encoding",
			handler: respond(200, `{"data":[{"embedding":"AAAA","index":0}]}`),
			want:    []string{"malformed JSON"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			dim := tc.dim
			if dim == 0 {
				dim = 3
			}
			texts := tc.texts
			if texts == nil {
				texts = []string{"x"}
			}
			e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: dim, APIKey: testKey})
			got, err := e.Embed(context.Background(), texts)
			if err == nil {
				t.Fatalf("Embed succeeded with %v, want an error", got)
			}
			if got != nil {
				t.Errorf("Embed returned vectors %v with an error", got)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "embed: openai: POST "+srv.URL+"/embeddings: ") {
				t.Errorf("error %q lacks the context prefix", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, testKey) {
				t.Errorf("error leaks the API key: %q", msg)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
			var se *StatusError
			if tc.status != 0 {
				if !errors.As(err, &se) || se.StatusCode != tc.status {
					t.Errorf("error %v is not a StatusError with code %d", err, tc.status)
				}
			} else if errors.As(err, &se) {
				t.Errorf("error %v is a StatusError", err)
			}
		})
	}
}

func TestOpenAIErrorNamesBatch(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			respond(503, "overloaded")(w, r)
			return
		}
		(&fakeServer{dim: 3}).ServeHTTP(w, r)
	}))
	defer srv.Close()
	e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3, BatchSize: 2})
	_, err := e.Embed(context.Background(), []string{"a", "b", "c", "d", "e"})
	var se *StatusError
	if err == nil || !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("err = %v, want a 503 StatusError", err)
	}
	if !strings.Contains(err.Error(), "texts 2..3 of 5") {
		t.Errorf("error %q does not name the failed batch", err)
	}
}

// TestOpenAIKeyNeverInErrors makes the server echo the Authorization header
// back, in error bodies and in malformed success bodies.
func TestOpenAIKeyNeverInErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		format string
	}{
		{"401 echo", 401, `{"error":{"message":"invalid credentials: %s"}}`},
		{"500 echo at start", 500, `%s is not allowed`},
		{"200 malformed echo", 200, `{"data": "%s"`},
		{"200 no data echo", 200, `{"error": "bad key %s"}`},
		{"key repeated", 403, `%[1]s %[1]s %[1]s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, tc.format, r.Header.Get("Authorization"))
			}))
			defer srv.Close()
			e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3, APIKey: testKey})
			_, err := e.Embed(context.Background(), []string{"x"})
			if err == nil {
				t.Fatal("Embed succeeded, want an error")
			}
			msg := fmt.Sprintf("%v %+v %#v", err, err, err)
			for u := err; u != nil; u = errors.Unwrap(u) {
				msg += " " + u.Error()
			}
			if strings.Contains(msg, testKey) || strings.Contains(msg, "SECRET") {
				t.Fatalf("API key leaked: %s", msg)
			}
			if !strings.Contains(err.Error(), "Bearer "+redacted) {
				t.Errorf("error %q should show the echo with the key redacted", err)
			}
		})
	}
}

// hang returns a handler that blocks until the client goes away or release is
// closed. With headers set, it first sends a 200 and part of a body.
func hang(release <-chan struct{}, headers bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if headers {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			io.WriteString(w, `{"data":[`)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

func TestOpenAITimeout(t *testing.T) {
	for _, headers := range []bool{false, true} {
		t.Run(fmt.Sprintf("headers=%v", headers), func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(hang(release, headers))
			defer srv.Close()
			defer close(release) // runs before srv.Close, so handlers return
			e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3, Timeout: 100 * time.Millisecond, APIKey: testKey})

			done := make(chan error, 1)
			go func() {
				_, err := e.Embed(context.Background(), []string{"x"})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second): // generous guard against a hang, not a timing check
				t.Fatal("Embed did not return after its Timeout")
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want a context.DeadlineExceeded error", err)
			}
			if !strings.Contains(err.Error(), "no complete response within 100ms") {
				t.Errorf("error %q does not say it timed out", err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the API key: %q", err)
			}
		})
	}
}

func TestOpenAIContextCancelled(t *testing.T) {
	t.Run("before", func(t *testing.T) {
		fs := &fakeServer{t: t, dim: 3}
		srv := httptest.NewServer(fs)
		defer srv.Close()
		e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if len(fs.reqs()) != 0 {
			t.Errorf("%d requests sent with a cancelled ctx", len(fs.reqs()))
		}
	})
	t.Run("during", func(t *testing.T) {
		release := make(chan struct{})
		arrived := make(chan struct{})
		var once sync.Once
		h := hang(release, false)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			once.Do(func() { close(arrived) })
			h(w, r)
		}))
		defer srv.Close()
		defer close(release)
		e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 3}) // default 30s timeout
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-arrived
			cancel()
		}()
		done := make(chan error, 1)
		go func() {
			_, err := e.Embed(ctx, []string{"x"})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Embed did not return after ctx was cancelled")
		}
	})
}

func TestOpenAIConcurrent(t *testing.T) {
	fs := &fakeServer{t: t, dim: 5, reverse: true}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	e := newOpenAI(t, OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 5, BatchSize: 3})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			texts := make([]string, 7)
			for i := range texts {
				texts[i] = strings.Repeat("x", g+i+1)
			}
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Error(err)
				return
			}
			for i, text := range texts {
				if got[i][1] != fake(text, 5)[1] {
					t.Errorf("goroutine %d: vector %d out of order", g, i)
				}
			}
		})
	}
	wg.Wait()
}
