package embed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sentinelKey is an API key every prefix of which, from 8 bytes on, is
// distinctive: no error may contain any of them.
const sentinelKey = "sk-SENTINEL-KEY-4f7c2a9e81d3b6052c"

// leaked returns the longest prefix of the key, 8 bytes or more, found in
// err, its Unwrap chain or its formatted forms, or "".
func leaked(err error) string {
	if err == nil {
		return ""
	}
	text := fmt.Sprintf("%v\n%+v\n%#v", err, err, err)
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		text += "\n" + u.Error()
	}
	var se *StatusError
	if errors.As(err, &se) {
		text += "\n" + se.Status + "\n" + se.Body
	}
	for n := len(sentinelKey); n >= 8; n-- {
		if strings.Contains(text, sentinelKey[:n]) {
			return sentinelKey[:n]
		}
	}
	return ""
}

// rawServer listens on loopback and hands every accepted connection to
// handle, in a goroutine; it is closed at the end of the test, connections
// included.
func rawServer(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { handle(c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

// readRequest reads one HTTP request from c and returns its Authorization
// header.
func readRequest(c net.Conn) (string, error) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, req.Body)
	return req.Header.Get("Authorization"), nil
}

// TestOpenAIFailures calls the embedder against endpoints that fail in each
// way a network peer can: it must return an error (within its Timeout for the
// silent ones), no vectors, and never the API key or a prefix of it. The
// deadline of each call is generous: it guards against a hang and asserts no
// speed.
func TestOpenAIFailures(t *testing.T) {
	const timeout = 200 * time.Millisecond
	for _, tc := range []struct {
		name     string
		url      func(t *testing.T) string
		want     string // in the error
		deadline bool   // errors.Is(err, context.DeadlineExceeded)
	}{
		{
			name: "accepts and never reads or writes",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
			},
			want: "no complete response within 200ms", deadline: true,
		},
		{
			name: "reads the request, never answers",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					readRequest(c)
					io.Copy(io.Discard, c)
				})
			},
			want: "no complete response within 200ms", deadline: true,
		},
		{
			name: "sleeps longer than the timeout",
			url: func(t *testing.T) string {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body) // then the server notices the client leaving
					r.Body = io.NopCloser(strings.NewReader(string(body)))
					select {
					case <-time.After(10 * timeout):
					case <-r.Context().Done():
						return
					}
					(&fakeServer{dim: 3}).ServeHTTP(w, r)
				}))
				t.Cleanup(srv.Close)
				return srv.URL
			},
			want: "no complete response within 200ms", deadline: true,
		},
		{
			name: "headers, then a body that never ends",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					readRequest(c)
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"data\": [")
					io.Copy(io.Discard, c)
				})
			},
			want: "no complete response within 200ms", deadline: true,
		},
		{
			name: "connection refused",
			url: func(t *testing.T) string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr := ln.Addr().String()
				ln.Close()
				return "http://" + addr
			},
			want: "connect",
		},
		{
			name: "closes after the request",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					readRequest(c)
					c.Close()
				})
			},
			want: "EOF",
		},
		{
			name: "closes in the middle of the body",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					auth, _ := readRequest(c)
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"data\": [%q", auth)
					c.Close()
				})
			},
			want: "unexpected EOF",
		},
		{
			name: "5xx echoing the key",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					auth, _ := readRequest(c)
					body := "upstream rejected " + auth
					fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
					c.Close()
				})
			},
			want: "HTTP 502 Bad Gateway: upstream rejected Bearer " + redacted,
		},
		{
			name: "key in the status line's reason phrase",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					auth, _ := readRequest(c)
					fmt.Fprintf(c, "HTTP/1.1 401 bad credentials %s\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno", auth)
					c.Close()
				})
			},
			want: "HTTP 401 bad credentials Bearer " + redacted,
		},
		{
			name: "key cut by the error body limit",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					auth, _ := readRequest(c)
					// Whitespace, then the echoed header placed so that the
					// read stops 20 bytes into the key.
					body := strings.Repeat(" ", maxErrorBodyBytes-len("Bearer ")-20) + auth + strings.Repeat(" ", 100)
					fmt.Fprintf(c, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
					c.Close()
				})
			},
			want: "HTTP 500 Internal Server Error",
		},
		{
			name: "malformed JSON echoing the key",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					auth, _ := readRequest(c)
					body := `{"data": [{"embedding": "` + auth + `"`
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
					c.Close()
				})
			},
			want: "malformed JSON",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.url(t)
			e := newOpenAI(t, OpenAIConfig{BaseURL: base, Model: "m", Dim: 3, Timeout: timeout, APIKey: sentinelKey})
			type result struct {
				vecs [][]float32
				err  error
			}
			done := make(chan result, 1)
			go func() {
				v, err := e.Embed(context.Background(), []string{"x", "y"})
				done <- result{v, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(30 * time.Second): // a guard against a hang, not a timing check
				t.Fatal("Embed did not return")
			}
			if res.err == nil || res.vecs != nil {
				t.Fatalf("Embed = %v, %v; want no vectors and an error", res.vecs, res.err)
			}
			msg := res.err.Error()
			if !strings.HasPrefix(msg, "embed: openai: POST "+base+"/embeddings: ") || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q: want the endpoint and %q", msg, tc.want)
			}
			if tc.deadline && !errors.Is(res.err, context.DeadlineExceeded) {
				t.Errorf("error %q is not a context.DeadlineExceeded", msg)
			}
			if p := leaked(res.err); p != "" {
				t.Errorf("error leaks %d bytes of the API key: %q", len(p), msg)
			}
		})
	}
}
