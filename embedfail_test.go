package omoide_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
)

// sentinelKey is the API key of the failing-embedder tests: it must never
// appear in an error.
const sentinelKey = "sk-SENTINEL-7b1e4c09d2f3a856"

// switchableEmbeddings is an OpenAI-compatible endpoint whose behaviour the
// test switches: "ok" embeds with the hash embedder, the other modes fail.
type switchableEmbeddings struct {
	mode atomic.Value // string
	hash *embed.Hash
	dim  int
}

func (s *switchableEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	// Every failure echoes the key, as a misbehaving proxy might.
	auth := r.Header.Get("Authorization")
	switch s.mode.Load().(string) {
	case "500":
		http.Error(w, `{"error": {"message": "model crashed; you sent `+auth+`"}}`, http.StatusInternalServerError)
		return
	case "503":
		w.Header().Set("Retry-After", "1")
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
		return
	case "malformed":
		fmt.Fprint(w, `{"data": [{"embedding": [0.1, 0.2, `+auth)
		return
	case "wrong-dim":
		fmt.Fprint(w, `{"data": [`)
		for i := range req.Input {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"index": %d, "embedding": [0.5, 0.5]}`, i)
		}
		fmt.Fprint(w, `]}`)
		return
	case "later": // the batch's first request succeeds, the second fails
		if strings.Contains(strings.Join(req.Input, " "), "バッチ 2") {
			http.Error(w, "out of memory", http.StatusInternalServerError)
			return
		}
	case "short":
		fmt.Fprint(w, `{"data": [{"index": 0, "embedding": []}]}`)
		return
	case "slow": // answers, but long after the client's timeout
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
	case "hang": // headers and half a body, then nothing
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `{"data": [`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	vecs, _ := s.hash.Embed(r.Context(), req.Input)
	type datum struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var resp struct {
		Data []datum `json:"data"`
	}
	for i, v := range vecs {
		resp.Data = append(resp.Data, datum{i, v})
	}
	json.NewEncoder(w).Encode(resp)
}

// TestFailingEmbedderAtIngest opens a Memory over an OpenAI-compatible
// endpoint, stores a first batch, then makes the endpoint fail in each way
// and checks that Add returns a clear error without the API key, that no
// part of the failed batch reached any of the three tables, and that the
// first batch is intact. Each call is bounded by the embedder's timeout; the
// test only guards against a hang, it asserts no speed.
func TestFailingEmbedderAtIngest(t *testing.T) {
	ctx := context.Background()
	const dim = 32
	h, err := embed.NewHash(embed.HashOptions{Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	fake := &switchableEmbeddings{hash: h, dim: dim}
	fake.mode.Store("ok")
	srv := httptest.NewServer(fake)
	defer srv.Close()
	e, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Dim: dim, APIKey: sentinelKey,
		Timeout: 300 * time.Millisecond, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fail.db")
	mem, err := omoide.Open(ctx, omoide.Config{Path: path, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()

	now := time.Date(2025, 12, 1, 12, 0, 0, 0, time.UTC)
	first := []episode.Episode{
		{User: "haruka", ExternalID: "a", UserText: "駅前で味噌ラーメンを食べた", ReplyText: "いいね", OccurredAt: now.AddDate(0, 0, -3)},
		{User: "haruka", ExternalID: "b", UserText: "膝が痛い", ReplyText: "お大事に", OccurredAt: now.AddDate(0, 0, -2)},
		{User: "kenta", ExternalID: "c", UserText: "キャンプに行く", ReplyText: "晴れるといいね", OccurredAt: now.AddDate(0, 0, -1)},
	}
	ids, err := mem.Add(ctx, first...)
	if err != nil {
		t.Fatal(err)
	}
	before, err := mem.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		mode string
		want string // in the error
	}{
		{"500", "HTTP 500"},
		{"503", "HTTP 503"},
		{"malformed", "malformed JSON"},
		{"wrong-dim", "2-dim vectors, store expects 32"},
		{"short", "returned 1 embeddings for 2 inputs"},
		{"later", "HTTP 500 Internal Server Error: out of memory (texts 2..3 of 5)"},
		{"slow", "no complete response within 300ms"},
		{"hang", "no complete response within 300ms"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			fake.mode.Store(tc.mode)
			defer fake.mode.Store("ok")
			// Five episodes: three embedding requests of two; with the
			// endpoint failing, the first already fails the batch.
			batch := make([]episode.Episode, 5)
			for i := range batch {
				batch[i] = episode.Episode{User: []string{"haruka", "kenta"}[i%2], ExternalID: fmt.Sprintf("%s-%d", tc.mode, i),
					UserText: fmt.Sprintf("失敗するはずのバッチ %d", i), OccurredAt: now}
			}
			done := make(chan error, 1)
			go func() {
				_, err := mem.Add(ctx, batch...)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second): // a guard against a hang, not a timing check
				t.Fatal("Add did not return")
			}
			if err == nil {
				t.Fatal("Add succeeded with a failing embedder")
			}
			msg := err.Error()
			for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
				msg += "\n" + u.Error()
			}
			if !strings.Contains(err.Error(), "episode store: add: embed 5 episodes: embed: openai: POST "+srv.URL+"/v1/embeddings") ||
				!strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say what failed (want %q)", err, tc.want)
			}
			if strings.Contains(msg, sentinelKey) || strings.Contains(msg, "SENTINEL") {
				t.Errorf("error leaks the API key: %s", msg)
			}
			after, err := mem.Store.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if after.Episodes != before.Episodes || after.FTSRows != before.FTSRows || after.VectorRows != before.VectorRows {
				t.Fatalf("a failed batch changed the store: %d/%d/%d rows -> %d/%d/%d", before.Episodes, before.FTSRows,
					before.VectorRows, after.Episodes, after.FTSRows, after.VectorRows)
			}
			for i, b := range batch {
				if id, err := mem.Store.IDByExternal(ctx, b.User, b.ExternalID); err != nil || id != 0 {
					t.Errorf("episode %d of the failed batch: id %d, %v", i, id, err)
				}
			}
		})
	}

	// The first batch is intact, and the store healthy; a retry succeeds.
	for i, id := range ids {
		got, err := mem.Store.Get(ctx, id)
		if err != nil || got.User != first[i].User || got.UserText != first[i].UserText || got.ReplyText != first[i].ReplyText || got.ExternalID != first[i].ExternalID {
			t.Errorf("episode %d after the failures: %+v, %v", id, got, err)
		}
	}
	if rep, err := mem.Store.Check(ctx); err != nil || len(rep.Problems) != 0 || rep.Episodes != len(first) {
		t.Fatalf("check: %+v, %v", rep, err)
	}
	if _, err := mem.Add(ctx, episode.Episode{User: "haruka", UserText: "やっと保存できた", OccurredAt: now}); err != nil {
		t.Fatalf("Add after the endpoint recovered: %v", err)
	}
}
