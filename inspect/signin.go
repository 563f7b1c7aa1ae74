package inspect

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SessionLifetime is how long a browser stays signed in: its cookie ends
// then, or at sign-out, or when the process that signed it in stops.
const SessionLifetime = 12 * time.Hour

// maxSessions bounds the sessions a handler keeps; a sign-in beyond it ends
// the one nearest its end.
const maxSessions = 1024

// Sign-in attempts: a client that gives a wrong token MaxFailures times
// within FailureWindow is refused (429) until the window ends.
const (
	MaxFailures   = 10
	FailureWindow = time.Minute
)

// sessions are the signed-in browsers, by the hash of their cookie's value:
// a random value made at sign-in, so that a cookie proves a sign-in to this
// process alone (not to another inspector, on another port or after a
// restart) and sign-out ends it. It is safe for concurrent use.
type sessions struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]time.Time // → when it ends
}

// start makes a session that ends at until and returns its cookie value.
func (s *sessions) start(until, now time.Time) string {
	b := make([]byte, 32)
	rand.Read(b)
	v := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[sha256.Size]byte]time.Time{}
	}
	if len(s.m) >= maxSessions {
		var first [sha256.Size]byte
		var firstEnd time.Time
		for k, end := range s.m {
			if !now.Before(end) {
				delete(s.m, k)
			} else if firstEnd.IsZero() || end.Before(firstEnd) {
				first, firstEnd = k, end
			}
		}
		if len(s.m) >= maxSessions {
			delete(s.m, first)
		}
	}
	s.m[sha256.Sum256([]byte(v))] = until
	return v
}

// valid reports whether v is the cookie of a session that has not ended.
func (s *sessions) valid(v string, now time.Time) bool {
	if v == "" {
		return false
	}
	k := sha256.Sum256([]byte(v))
	s.mu.Lock()
	defer s.mu.Unlock()
	end, ok := s.m[k]
	if ok && !now.Before(end) {
		delete(s.m, k)
		return false
	}
	return ok
}

// end ends the session of cookie value v.
func (s *sessions) end(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, sha256.Sum256([]byte(v)))
}

// failures counts wrong tokens by client address. It is safe for concurrent
// use.
type failures struct {
	mu sync.Mutex
	m  map[string]*failWindow
}

type failWindow struct {
	start time.Time
	n     int
}

// maxClients bounds the addresses failures keeps; beyond it the windows
// that ended are dropped, and then all.
const maxClients = 4096

// wait returns how long client must wait before another attempt, 0 when it
// may try now.
func (f *failures) wait(client string, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.m[client]
	if w == nil || w.n < MaxFailures {
		return 0
	}
	if end := w.start.Add(FailureWindow); now.Before(end) {
		return end.Sub(now)
	}
	delete(f.m, client)
	return 0
}

// fail counts a wrong token of client.
func (f *failures) fail(client string, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]*failWindow{}
	}
	w := f.m[client]
	if w == nil || !now.Before(w.start.Add(FailureWindow)) {
		if len(f.m) >= maxClients {
			for k, old := range f.m {
				if !now.Before(old.start.Add(FailureWindow)) {
					delete(f.m, k)
				}
			}
			if len(f.m) >= maxClients {
				clear(f.m)
			}
		}
		w = &failWindow{start: now}
		f.m[client] = w
	}
	w.n++
}

// clientOf is the address a request came from, without its port.
func clientOf(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// signinView is the sign-in page's data.
type signinView struct {
	Next, Error string
}

func (v signinView) PageTitle() string { return "Sign in" }

// next returns where to go after signing in: a path of this inspector, else
// its people page (never another site: no open redirect).
func (h *Handler) next(v string) string {
	if strings.HasPrefix(v, h.cfg.Base) && !strings.HasPrefix(v, "//") && !strings.ContainsAny(v, "\\\r\n") {
		return v
	}
	return h.cfg.Base
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signin", signinView{Next: h.next(r.URL.Query().Get("next"))})
}

// tokenIs reports whether tok is the token, in a time that does not depend
// on what was sent (both sides hashed).
func (h *Handler) tokenIs(tok string) bool {
	got, want := sha256.Sum256([]byte(strings.TrimSpace(tok))), sha256.Sum256([]byte(h.cfg.Token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// tooMany answers 429 when r's client gave too many wrong tokens lately,
// and reports whether it did.
func (h *Handler) tooMany(w http.ResponseWriter, r *http.Request) bool {
	d := h.failed.wait(clientOf(r), h.clock())
	if d == 0 {
		return false
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(d.Seconds())+1))
	h.render(w, r, http.StatusTooManyRequests, "error", errorView{Title: "Too many tries",
		Message: "Too many wrong tokens from this address: try again in a minute."})
	return true
}

// signin checks the token and keeps a new session's proof in a cookie that
// scripts cannot read and other sites do not send.
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	next := h.next(r.PostFormValue("next"))
	if h.cfg.Token == "" {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	if h.tooMany(w, r) {
		return
	}
	if !h.tokenIs(r.PostFormValue("token")) {
		h.failed.fail(clientOf(r), h.clock())
		h.render(w, r, http.StatusUnauthorized, "signin", signinView{Next: next, Error: "That is not the token."})
		return
	}
	until := h.clock().Add(SessionLifetime)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.sessions.start(until, h.clock()), Path: h.cfg.Base,
		Expires: until, MaxAge: int(SessionLifetime.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signout ends the browser's session, so that its cookie, kept or copied,
// proves nothing more.
func (h *Handler) signout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		h.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: h.cfg.Base, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, h.cfg.Base+"signin", http.StatusSeeOther)
}
