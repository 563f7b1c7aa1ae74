package omoidehttp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/omoide/omoide"
)

// LockedBuffer is a log written by the handler's goroutines (the external
// tests use it too).
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Reset empties the log.
func (l *LockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

// TestLogHoldsNoName: no line of the log, at the debug level, holds a
// person's name in any form, whichever route, wherever the request names
// them (the path, the header, the body only) and however it fails: a 400, a
// 404, a 421 for a person another node owns, a 503 while they are held, and
// a 500 from the store below, whose errors quote the name. Each route of
// the table is sent every way it can name a person, first to a working
// store, then to a closed one.
func TestLogHoldsNoName(t *testing.T) {
	ctx := context.Background()
	peers := []string{"a:1", "b:1"}
	var mine, theirs string // a CJK name this node owns, and one the other does
	for _, u := range []string{"りんご太郎", "王小明", "김민지", "はるか", "さくら", "Наташа"} {
		if Owner(peers, u) == "a:1" && mine == "" {
			mine = u
		} else if Owner(peers, u) == "b:1" && theirs == "" {
			theirs = u
		}
	}
	if mine == "" || theirs == "" {
		t.Fatal("no name for each node")
	}
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "log.db")})
	if err != nil {
		t.Fatal(err)
	}
	var log LockedBuffer
	h := NewHandler(mem, Config{Peers: peers, Upstream: "a:1", MaxBody: 1 << 10,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	send := func(method, path string, header http.Header, body string) int {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if header != nil {
			req.Header = header.Clone()
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	bodyOf := func(rt route, user, variant string) string {
		u := strconv.Quote(user)
		if user == "" {
			u = `""`
		}
		switch {
		case rt.body == "Episodes" && variant == "bad":
			return `[{"user":` + u + `,"user_text":"猫の話","bogus":1}]`
		case rt.body == "Episodes":
			return `[{"user":` + u + `,"id":"e1","user_text":"猫の話"}]`
		case (rt.body == "RetrieveRequest" || rt.body == "PackRequest") && variant == "bad":
			return `{"user":` + u + `,"text":7}`
		case rt.body == "RetrieveRequest" || rt.body == "PackRequest":
			return `{"user":` + u + `,"text":"猫","recent":[]}`
		case rt.body == "HoldRequest":
			return `{"seconds":60}`
		}
		return ""
	}
	statuses := map[int]int{}
	round := func() {
		for _, user := range []string{mine, theirs} {
			// Held: the person's writes are 503s, their names in the errors.
			send("POST", "/v1/users/"+url.PathEscape(user)+"/hold", nil, `{"seconds":60}`)
			for _, rt := range routeTable() {
				inPath := strings.Contains(rt.path, "{user}")
				path := strings.NewReplacer("{user}", url.PathEscape(user), "{id}", "1", "{external_id}", "e1").Replace(rt.path)
				type way struct {
					header   http.Header
					bodyUser string
				}
				ways := []way{}
				if inPath {
					ways = append(ways, way{nil, ""}, way{http.Header{UserHeader: {EncodeUser(user)}}, ""})
				} else {
					ways = append(ways, way{http.Header{UserHeader: {EncodeUser(user)}}, ""})
					if rt.body == "Episodes" || rt.body == "RetrieveRequest" || rt.body == "PackRequest" {
						ways = append(ways, way{nil, user}) // the body only
					}
				}
				for _, w := range ways {
					for _, variant := range []string{"good", "bad", "big"} {
						body := bodyOf(rt, w.bodyUser, variant)
						if variant == "big" && body != "" {
							body = body[:len(body)-1] + strings.Repeat(" ", 2<<10) + body[len(body)-1:]
						}
						statuses[send(rt.method, path, w.header, body)]++
					}
				}
			}
		}
	}
	round() // a working store
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	round() // a closed store: every route that reads or writes fails from below
	h.Wait()
	out := log.String()
	for _, want := range []int{200, 400, 404, 413, 421, 500, 503} {
		if statuses[want] == 0 {
			t.Errorf("no request answered %d (%v): the test does not reach that path", want, statuses)
		}
	}
	if !strings.Contains(out, "person=") || !strings.Contains(out, "route=") || !strings.Contains(out, "status=500") || !strings.Contains(out, "status=503") {
		t.Fatalf("the log says neither route, person nor failures:\n%s", out)
	}
	if !strings.Contains(out, "person:") {
		t.Errorf("no failure's error had a name to hide: the test does not reach a quoted name\n%s", out)
	}
	for _, u := range []string{mine, theirs} {
		q := strconv.Quote(u)
		for _, form := range []string{u, url.PathEscape(u), EncodeUser(u), q, q[1 : len(q)-1], strconv.QuoteToASCII(u)} {
			if strings.Contains(out, form) {
				i := strings.Index(out, form)
				t.Errorf("the log holds %q: …%s…", form, out[max(0, i-200):min(len(out), i+100)])
			}
		}
	}
	t.Logf("statuses %v; %d log lines", statuses, strings.Count(out, "\n"))
}

// TestLogSaysWhoOfTheBody: a request that names its person in the body only
// is logged with that person's hash, as one routed by path or header is.
func TestLogSaysWhoOfTheBody(t *testing.T) {
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "who.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	var log LockedBuffer
	h := NewHandler(mem, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for _, c := range []struct{ path, body string }{
		{"/v1/episodes", `[{"user":"はるか","user_text":"猫の話"}]`},
		{"/v1/retrieve", `{"user":"はるか","text":"猫"}`},
		{"/v1/pack", `{"user":"はるか","text":"猫"}`},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", c.path, strings.NewReader(c.body)))
		if w.Code != 200 {
			t.Fatalf("POST %s: %d %s", c.path, w.Code, w.Body)
		}
		if want := "route=" + c.path + " status=200"; !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "person="+h.PersonHash("はるか")) {
			t.Errorf("POST %s with the person in the body: the log says not who:\n%s", c.path, log.String())
		}
		log.Reset()
	}
}
