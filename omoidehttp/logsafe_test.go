package omoidehttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omoide/omoide/embed"
)

// TestLogSafe checks that every embed error quoting an echoing server's
// response loses the excerpt in the log line, however it is wrapped, and
// keeps the rest.
func TestLogSafe(t *testing.T) {
	const text = "ログに残らないはずの本文"
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"status", 400, `{"error": "cannot embed %s"}`, "HTTP 400 Bad Request: [response body not logged, "},
		{"malformed", 200, `{"data": [%s`, "malformed JSON response (invalid character "},
		{"no data", 200, `{"error": "%s"}`, `response has no "data" array: [response body not logged, `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct{ Input []string }
				json.NewDecoder(r.Body).Decode(&req)
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, tc.body, strings.Join(req.Input, " "))
			}))
			defer srv.Close()
			e, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 4, BatchSize: 1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{text, text})
			if err == nil || !strings.Contains(err.Error(), text) {
				t.Fatalf("the embed error does not quote the body: %v", err)
			}
			for _, wrapped := range []error{err, fmt.Errorf("episode store: add: %w", err), errors.Join(errors.New("other"), fmt.Errorf("retriever: %w", err))} {
				got := withoutBodies(wrapped)
				if strings.Contains(got, text) || !strings.Contains(got, tc.want) || !strings.Contains(got, "not logged, ") || !strings.Contains(got, "(texts 0..0 of 2)") {
					t.Errorf("withoutBodies(%q) = %q", wrapped, got)
				}
			}
		})
	}
	if got := withoutBodies(errors.New("database is locked")); got != "database is locked" {
		t.Errorf("withoutBodies changed an error without a body: %q", got)
	}
}
