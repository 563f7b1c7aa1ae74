package omoidehttp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The handler's log says which route and, by a keyed hash, which person:
// never a name, a text or an id of the request (a forget erases the name;
// the log would keep it). Every line is made here: the request line in
// ServeHTTP, and a failure's (logFailure), whose message is scrubbed.

// logRoute is the route of r for the log: its pattern (/v1/users/{user}/pack),
// never its path, which holds names.
func logRoute(r *http.Request) string {
	if r.Pattern == "" || r.Pattern == "/" {
		return "(no route)"
	}
	_, path, _ := strings.Cut(r.Pattern, " ") // "POST /v1/retrieve": the line has the method
	if path == "" {
		return r.Pattern
	}
	return path
}

// who collects the people a request names besides its route: the users of
// its body, recorded by the handlers as they read them (named), so that
// its log lines can say who by a hash and scrub each name. It is safe for
// concurrent use.
type who struct {
	mu    sync.Mutex
	names []string
}

type whoKey struct{}

// named records that r names users (in its body).
func named(r *http.Request, users ...string) {
	w, _ := r.Context().Value(whoKey{}).(*who)
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, u := range users {
		if u != "" && !slices.Contains(w.names, u) {
			w.names = append(w.names, u)
		}
	}
}

// people returns every person r names: the one it is routed as (path or
// header), then its body's.
func people(r *http.Request) []string {
	var out []string
	if user, ok, _ := routedUser(r); ok && user != "" {
		out = append(out, user)
	}
	if w, _ := r.Context().Value(whoKey{}).(*who); w != nil {
		w.mu.Lock()
		for _, u := range w.names {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
		w.mu.Unlock()
	}
	return out
}

// logWho appends to a log line's attributes who the request is about, by a
// keyed hash (PersonHash): the person it is routed as, else the first its
// body names.
func (s *Handler) logWho(r *http.Request, attrs ...any) []any {
	if p := people(r); len(p) > 0 {
		attrs = append(attrs, "person", s.PersonHash(p[0]))
	}
	return attrs
}

// PersonHash is how the handler's log names a person: a keyed hash (HMAC-
// SHA256, 12 hex digits) under a key made when the handler was, so that the
// lines of one run can be told apart by person while no line holds a name,
// nor lets one be tested for after the process ends.
func (s *Handler) PersonHash(user string) string {
	m := hmac.New(sha256.New, s.logKey[:])
	m.Write([]byte(user))
	return hex.EncodeToString(m.Sum(nil)[:6])
}

// logFailure is the one place a failure becomes a log line (at error): the
// route, the status and the error as logText leaves it.
func (s *Handler) logFailure(r *http.Request, msg string, status int, err error) {
	s.cfg.Logger.Error(msg, s.logWho(r, "method", r.Method, "route", logRoute(r), "status", status, "error", s.logText(r, withoutBodies(err)))...)
}

// logText returns msg, an error's message, fit for the log: every quoted
// string in it (errors quote names, ids and texts with %q, clipped or
// whole) replaced, by person:HASH when it is a person r names and by "…"
// otherwise, and every name r names, wherever it stands unquoted, by
// person:HASH.
func (s *Handler) logText(r *http.Request, msg string) string {
	names := people(r)
	var b strings.Builder
	for i := 0; i < len(msg); {
		if msg[i] == '"' {
			if q, err := strconv.QuotedPrefix(msg[i:]); err == nil {
				v, _ := strconv.Unquote(q)
				if slices.Contains(names, v) {
					b.WriteString("person:" + s.PersonHash(v))
				} else {
					b.WriteString(`"…"`)
				}
				i += len(q)
				continue
			}
		}
		b.WriteByte(msg[i])
		i++
	}
	out := b.String()
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) }) // a name holding another goes first
	for _, u := range names {
		q := strconv.Quote(u)
		for _, form := range []string{u, EncodeUser(u), q[1 : len(q)-1]} {
			out = replaceWord(out, form, "person:"+s.PersonHash(u))
		}
	}
	return out
}

// replaceWord replaces in s each old that stands as a word of its own: not
// between ASCII letters or digits, so that a short name ("a") is taken out
// of a message where it stands alone, not out of "database".
func replaceWord(s, old, new string) string {
	if old == "" {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if i > 0 && isWordByte(s[i-1]) && isWordByte(old[0]) || end < len(s) && isWordByte(s[end]) && isWordByte(old[len(old)-1]) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(new)
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// withoutBodies returns err's message without the excerpts of an embedding
// server's response that embed's errors quote (they may echo the request's
// texts, which the log never holds).
func withoutBodies(err error) string {
	msg := err.Error()
	var walk func(error)
	walk = func(e error) {
		if q, ok := e.(interface{ ResponseBody() string }); ok {
			if body := q.ResponseBody(); body != "" {
				if i := strings.LastIndex(msg, ": "+body); i >= 0 {
					msg = msg[:i] + fmt.Sprintf(": [response body not logged, %d bytes]", len(body)) + msg[i+2+len(body):]
				}
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			if next := u.Unwrap(); next != nil {
				walk(next)
			}
		case interface{ Unwrap() []error }:
			for _, next := range u.Unwrap() {
				walk(next)
			}
		}
	}
	walk(err)
	return msg
}
