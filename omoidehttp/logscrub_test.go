package omoidehttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/omoide/omoide"
)

// TestLogTextScrubs: logText's two passes each protect what the other
// cannot. A quoted text that is no name (a message, an id) and a name quoted
// in ASCII escapes are caught by the quoted pass only; a name standing
// unquoted (wrapped by %s, in its header wire form, in a quote cut short) by
// the name pass only. A short name is taken out where it stands alone, not
// out of a longer word.
func TestLogTextScrubs(t *testing.T) {
	h := NewHandler(nil, Config{})
	p := func(u string) string { return "person:" + h.PersonHash(u) }
	for _, c := range []struct {
		name   string
		routed string   // the person of the X-Omoide-User header
		body   []string // the people the body names (named)
		msg    string
		want   string
	}{
		// Only the quoted pass protects these: no name is in them to find.
		{"a message excerpt", "はるか", nil,
			`retrieve: embed "猫のこむぎが熱を出した": context deadline exceeded`,
			`retrieve: embed "…": context deadline exceeded`},
		{"an id beside a quoted name", "", []string{"はるか"},
			`episodes[0] (user "はるか", id "chat-42"): stored with other content`,
			`episodes[0] (user ` + p("はるか") + `, id "…"): stored with other content`},
		{"a text that holds the name", "はるか", nil,
			`text "はるかの猫が熱を出した" refused`,
			`text "…" refused`},
		{"a name quoted in ASCII escapes (%+q)", "はるか", nil,
			fmt.Sprintf("user %+q: database is locked", "はるか"),
			"user " + p("はるか") + ": database is locked"},
		// Only the name pass protects these: the name stands unquoted.
		{"a name wrapped by %s", "", []string{"はるか"},
			fmt.Errorf("no shard for %s: %w", "はるか", errors.New("database is locked")).Error(),
			"no shard for " + p("はるか") + ": database is locked"},
		{"the header's wire form", "はるか", nil,
			"the header " + EncodeUser("はるか") + " was refused",
			"the header " + p("はるか") + " was refused"},
		{"a quote cut short", "はるか", nil,
			`add: user "はるか and the rest was clip`,
			`add: user "` + p("はるか") + ` and the rest was clip`},
		{"a quote cut short, in its Go-quoted form", "", []string{`山田"太郎`},
			`add: user "山田\"太郎 and the rest was clip`,
			`add: user "` + p(`山田"太郎`) + ` and the rest was clip`},
		// A short name is a word of its own or nothing.
		{"a short name beside database", "a", nil,
			`database "a": a is locked in a database`,
			"database " + p("a") + ": " + p("a") + " is locked in " + p("a") + " database"},
		{"two people, the routed and the body's", "kenta", []string{"はるか"},
			"kenta asked for はるか's memories",
			p("kenta") + " asked for " + p("はるか") + "'s memories"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1/retrieve", nil)
			if c.routed != "" {
				r.Header.Set(UserHeader, EncodeUser(c.routed))
			}
			// As ServeHTTP makes the request the handlers see.
			r = r.WithContext(context.WithValue(r.Context(), whoKey{}, &who{}))
			named(r, c.body...)
			if got := h.logText(r, c.msg); got != c.want {
				t.Errorf("logText(%q)\n got %q\nwant %q", c.msg, got, c.want)
			}
		})
	}
}

// TestPanicLogsNoName: a handler that panics is answered 500 {"error":
// "internal error"}, and the panic is logged at error with the route and
// the person's hash, its message scrubbed of the name in every form and of
// the text it quotes.
func TestPanicLogsNoName(t *testing.T) {
	const user, said = "はるか", "猫のこむぎが熱を出した"
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "panic.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	var log LockedBuffer
	h := NewHandler(mem, Config{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	h.HandlePerson("/boom", func(user string) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			// The name quoted, unquoted and in its wire form, and a text.
			panic(fmt.Sprintf("boom for %q at %s, sent as %s, saying %q", user, user, EncodeUser(user), said))
		})
	})
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/boom", nil)
	r.Header.Set(UserHeader, EncodeUser(user))
	h.ServeHTTP(w, r)

	var answer ErrorAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &answer); w.Code != http.StatusInternalServerError || err != nil || answer.Error != "internal error" {
		t.Errorf("the panic was answered %d %s, want 500 {\"error\": \"internal error\"}", w.Code, w.Body)
	}
	out := log.String()
	var line string
	for l := range strings.Lines(out) {
		if strings.Contains(l, "level=ERROR") && strings.Contains(l, "msg=panic") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no error line says panic:\n%s", out)
	}
	hash := h.PersonHash(user)
	for _, want := range []string{"route=/boom", "status=500", "person=" + hash, "boom for person:" + hash + " at person:" + hash} {
		if !strings.Contains(line, want) {
			t.Errorf("the panic's log line lacks %q: %s", want, line)
		}
	}
	q := strconv.Quote(user)
	for _, form := range []string{user, EncodeUser(user), url.PathEscape(user), q[1 : len(q)-1], strconv.QuoteToASCII(user), said} {
		if strings.Contains(out, form) {
			t.Errorf("the log holds %q:\n%s", form, out)
		}
	}
}
