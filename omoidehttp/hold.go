package omoidehttp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// HoldHeader carries the token of a hold (POST /v1/users/{user}/hold): a
// write of a held person passes only with it.
const HoldHeader = "X-Omoide-Hold"

// MaxHold bounds a hold: a move that dies leaves its person writable again
// after at most this long.
const MaxHold = time.Hour

// holds are the people whose writes this node refuses for a while, because a
// move (omoide move) is copying them to another node. A hold lives in the
// node's memory only: a restart ends it, as its expiry does. It is safe for
// concurrent use.
type holds struct {
	mu sync.Mutex
	m  map[string]hold // by user
}

type hold struct {
	token string
	until time.Time
}

// take holds user for d, or renews the hold whose token is given; another
// live hold is an error that says until when.
func (h *holds) take(user, token string, d time.Duration, now time.Time) (hold, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]hold{}
	}
	if cur, ok := h.m[user]; ok && now.Before(cur.until) && cur.token != token {
		return hold{}, &httpError{http.StatusConflict, fmt.Sprintf("user %q is held by another move until %s", user, cur.until.UTC().Format(time.RFC3339))}
	}
	if token == "" {
		b := make([]byte, 16)
		rand.Read(b)
		token = hex.EncodeToString(b)
	}
	nh := hold{token: token, until: now.Add(d)}
	h.m[user] = nh
	return nh, nil
}

// release ends user's hold when token is its token.
func (h *holds) release(user, token string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur, ok := h.m[user]; ok && cur.token == token {
		delete(h.m, user)
		return true
	}
	return false
}

// check returns a 503 with Retry-After when user is held and r does not
// carry the hold's token.
func (h *holds) check(w http.ResponseWriter, r *http.Request, user string) error {
	h.mu.Lock()
	cur, ok := h.m[user]
	if ok && !time.Now().Before(cur.until) {
		delete(h.m, user)
		ok = false
	}
	h.mu.Unlock()
	if !ok || r.Header.Get(HoldHeader) == cur.token {
		return nil
	}
	secs := int(time.Until(cur.until).Seconds()) + 1
	w.Header().Set("Retry-After", strconv.Itoa(min(secs, 30)))
	return &httpError{http.StatusServiceUnavailable, fmt.Sprintf("user %q is being moved to another node: retry later", user)}
}

// holdRequest is the body of POST /v1/users/{user}/hold.
type holdRequest struct {
	Seconds int    `json:"seconds"` // how long; 0 means 300, at most MaxHold
	Token   string `json:"token"`   // renew this hold
}

func (s *Handler) holdUser(w http.ResponseWriter, r *http.Request) (any, error) {
	var q holdRequest
	if err := s.readJSON(w, r, &q); err != nil {
		return nil, err
	}
	d := time.Duration(q.Seconds) * time.Second
	switch {
	case q.Seconds < 0 || d > MaxHold:
		return nil, badRequest("seconds %d: want 1 to %d", q.Seconds, int(MaxHold.Seconds()))
	case q.Seconds == 0:
		d = 5 * time.Minute
	}
	h, err := s.holds.take(r.PathValue("user"), q.Token, d, time.Now())
	if err != nil {
		return nil, err
	}
	return Hold{User: r.PathValue("user"), Token: h.token, Until: h.until.UTC()}, nil
}

func (s *Handler) releaseUser(w http.ResponseWriter, r *http.Request) (any, error) {
	if !s.holds.release(r.PathValue("user"), r.Header.Get(HoldHeader)) {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no hold of user %q with that token", r.PathValue("user"))}
	}
	return Released{User: r.PathValue("user"), Released: true}, nil
}
