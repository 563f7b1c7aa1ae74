package omoidehttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/cleanpath"
	"github.com/omoide/omoide/internal/hosts"
	"github.com/omoide/omoide/internal/strictjson"
)

// Config configures NewHandler. Its zero value works: no token, the default
// limits, no logging, normal episodes only.
type Config struct {
	Token          string        // the bearer token every endpoint but /healthz requires; "" requires none
	MaxBody        int64         // the request body limit (413 beyond); 0: DefaultMaxBody
	RequestTimeout time.Duration // the time limit of one request (503 beyond); 0: DefaultRequestTimeout
	Logger         *slog.Logger  // one line a request (method, route, status, duration, the person's PersonHash; never a name); nil logs nothing
	Node           string        // this node's name, in /healthz and GET /v1/node
	// MaxRequestSensitivity is the most private level the handler returns
	// from a retrieval or pack, whatever the preset's filter and the
	// request's: a request's filter may ask up to it, and a filter that
	// would admit more (the reference preset's admits secret) is capped to
	// it. Its zero, as omoide serve's default, returns normal episodes only.
	MaxRequestSensitivity episode.Sensitivity
	// Peers is the proxy's node list, each node written as the proxy's
	// upstreams write it ("127.0.0.1:9001"), and Upstream this node's entry
	// in it: with them the node answers 421 Misdirected Request for a person
	// another node owns (Owner; CheckPeers checks them). Empty: every person
	// is this node's.
	Peers    []string
	Upstream string
}

// Handler is omoide's HTTP JSON API over a Memory (Doc has its endpoints
// and fields): a handler any program can mount, as "omoide serve" does. It
// is safe for concurrent use.
type Handler struct {
	mem      *omoide.Memory
	cfg      Config
	mux      *http.ServeMux
	token    [sha256.Size]byte
	inflight sync.WaitGroup
	holds    holds    // people being moved to another node
	logKey   [32]byte // PersonHash's key, made by NewHandler
}

// NewHandler returns the HTTP JSON API over mem. Every endpoint but /healthz
// requires the bearer token when cfg.Token is set. Bodies are limited to
// cfg.MaxBody (413), are UTF-8 and decoded strictly (unknown fields are 400),
// and every request runs under cfg.RequestTimeout. Errors are {"error":
// "..."}. The caller keeps mem open while the handler serves, and closes it
// after Wait.
func NewHandler(mem *omoide.Memory, cfg Config) *Handler {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Handler{mem: mem, cfg: cfg, mux: http.NewServeMux(), token: sha256.Sum256([]byte(cfg.Token))}
	rand.Read(s.logKey[:])
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range routeTable() {
		s.mux.Handle(rt.method+" "+rt.path, s.endpoint(rt))
		if allowed[rt.path] == nil {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
		if rt.method == http.MethodGet {
			allowed[rt.path] = append(allowed[rt.path], http.MethodHead)
		}
	}
	// The same paths without a method: 405 in JSON (ServeMux's own is text).
	for _, p := range paths {
		allow := strings.Join(allowed[p], ", ")
		s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, p, allow))
		})
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s", r.URL.Path))
	})
	return s
}

// Wait returns once every request the handler has begun has ended: call it
// after http.Server.Shutdown (or Close) and before closing the Memory.
func (s *Handler) Wait() { s.inflight.Wait() }

// ServeHTTP authenticates, bounds and logs the request, then routes it.
func (s *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	// The log says which route and, by a keyed hash, which person: never a
	// name (a forget erases the name; the log would keep it).
	rr := r
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logFailure(rr, "panic", http.StatusInternalServerError, fmt.Errorf("%v", p))
			if sw.status == 0 {
				writeError(sw, http.StatusInternalServerError, "internal error")
			}
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		if s.cfg.Logger.Enabled(context.Background(), slog.LevelInfo) { // no hash made for a log that drops it
			s.cfg.Logger.Info("request", s.logWho(rr, "method", r.Method, "route", logRoute(rr), "status", status, "duration", time.Since(start))...)
		}
	}()
	if s.cfg.Token != "" && r.URL.Path != "/healthz" && !s.authorized(r) {
		sw.Header().Set("WWW-Authenticate", `Bearer realm="omoide"`)
		writeError(sw, http.StatusUnauthorized, "missing or invalid bearer token (Authorization: Bearer TOKEN)")
		return
	}
	if err := checkPath(r); err != nil {
		writeError(sw, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	rr = r.WithContext(context.WithValue(ctx, whoKey{}, &who{}))
	s.mux.ServeHTTP(sw, rr) // sets rr.Pattern
}

// authorized reports whether r carries the token. Both sides are hashed so
// that the comparison takes the same time whatever the lengths.
func (s *Handler) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

// statusWriter records the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// httpError is an error with its status code.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// errWritten says that a handler wrote its response itself.
var errWritten = errors.New("response written")

// endpoint adapts a handler that returns its response value or an error,
// after checking the person the request is routed as (person).
func (s *Handler) endpoint(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkPathText(r); err != nil {
			s.fail(w, r, err)
			return
		}
		if err := s.person(r, rt.reach); err != nil {
			s.fail(w, r, err)
			return
		}
		v, err := rt.h(s, w, r)
		if errors.Is(err, errWritten) {
			return
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSONStatus(w, http.StatusOK, v)
	})
}

// person checks the person r is routed as (routedUser), if any: a name by
// episode.CheckUser's rule, owned by this node (owns). A route that reaches
// a stored person (reach: export, delete, forget, hold) also takes a person
// this node holds whatever their name or owner, so that a name stored before
// the rule, or a person stranded on a node that does not own them, can
// always be exported, erased and moved.
func (s *Handler) person(r *http.Request, reach bool) error {
	user, ok, err := routedUser(r)
	if err != nil || !ok {
		return err
	}
	strict := episode.CheckUser(user)
	if strict == nil && len(s.cfg.Peers) == 0 {
		return nil // every good name is this node's: no look-up
	}
	if reach {
		n, err := s.mem.Store.Count(r.Context(), user)
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	if strict != nil {
		return badRequest("%v", strict)
	}
	return s.owns(user)
}

// CleanPathsOnly returns a handler that answers a request whose path is
// not in its one form (an empty segment, "//" or a trailing "/"; a dot
// segment, "." or "..", with a dot written %2e too) with a 400 naming the
// path, and passes every other request to h. A Handler refuses such paths
// itself, but a program that mounts it on its own ServeMux must wrap that
// mux: a ServeMux answers them with a redirect to the cleaned path, which a
// client follows with the same method, so that DELETE
// /v1/users/kenji/episodes/.. would become DELETE /v1/users/kenji, a forget.
func CleanPathsOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkPath(r); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		h.ServeHTTP(w, r)
	})
}

// LocalHostsOnly returns a handler that answers a request whose Host is
// neither a loopback name or address (localhost, *.localhost, 127.0.0.0/8,
// ::1) nor one of extra with 421 Misdirected Request, and passes every
// other to h. For a server without a token: a page of another site that
// rebinds its name to this machine's address sends its own name as Host,
// so it can neither read nor change what h serves. omoide serve wraps /mcp
// in it when it has no token.
func LocalHostsOnly(h http.Handler, extra []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts.Allowed(r.Host, extra) {
			writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("this server has no token and answers only at its own addresses (127.0.0.1, localhost%s), not %q: a page of another site may have given its own name this machine's address; use one of them, or give the server a token",
				strings.Join(append([]string{""}, extra...), ", "), r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// checkPath refuses a path that is not in its one form (cleanpath.Check),
// before any route sees it: ServeMux would answer it with a redirect to its
// cleaned form, which a client follows with the same method. Nothing under
// the API redirects: the path is a 400 naming it.
func checkPath(r *http.Request) error {
	return cleanpath.Check(r.URL.EscapedPath(), false)
}

// checkPathText refuses a path's external id that is not valid UTF-8:
// replaced, two ids would become one (routedUser checks the user).
func checkPathText(r *http.Request) error {
	if !utf8.ValidString(r.PathValue("external_id")) {
		return badRequest("the path's external id is not valid UTF-8 (percent-encode its UTF-8 bytes)")
	}
	return nil
}

// fail writes err with its status.
func (s *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var mbe *http.MaxBytesError
	var ce *episode.ConflictError
	status, msg := http.StatusInternalServerError, err.Error()
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.As(err, &ce) && ce.InBatch:
		status, msg = http.StatusConflict, fmt.Sprintf("episodes[%d] (user %q, id %q): the body gives this id twice with other content", ce.Index, ce.User, ce.ExternalID)
	case errors.As(err, &ce):
		status, msg = http.StatusConflict, fmt.Sprintf("episodes[%d] (user %q, id %q): stored with other content; PUT replaces it, POST stores only what is new", ce.Index, ce.User, ce.ExternalID)
	case errors.Is(err, episode.ErrConflict):
		status = http.StatusConflict
	case errors.Is(err, sqlite.ErrReadOnly):
		status = http.StatusForbidden
	case errors.As(err, &mbe):
		status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit)
	case errors.Is(err, context.DeadlineExceeded):
		status, msg = http.StatusServiceUnavailable, fmt.Sprintf("request took longer than %s", s.cfg.RequestTimeout)
	case errors.Is(err, context.Canceled):
		status, msg = http.StatusServiceUnavailable, "request cancelled"
	}
	if status >= 500 {
		s.logFailure(r, "request failed", status, err)
	}
	writeError(w, status, msg)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSONStatus(w, status, ErrorAnswer{Error: msg})
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error": "encoding the response failed"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// readJSON decodes the body strictly into v, within the body limit.
func (s *Handler) readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	if err := strictjson.DecodeBytes(b, v); err != nil {
		return badRequest("invalid JSON body: %v", err)
	}
	return nil
}

// readBody reads the body whole, within the body limit (413 beyond); a
// body that does not arrive whole (a client too slow for the read timeout,
// a connection cut) is a 400.
func (s *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	var mbe *http.MaxBytesError
	if err != nil && !errors.As(err, &mbe) {
		return nil, badRequest("reading the body: %v", err)
	}
	return b, err
}

// UserHeader names the person of a request whose route does not (POST
// /v1/retrieve, /v1/pack, /v1/episodes, DELETE /v1/episodes/{id}), for a
// proxy to route by; the body's people must be that person.
const UserHeader = "X-Omoide-User"

// routedUser returns the person a request is routed by: the {user} of its
// path, else its UserHeader (in its wire form, DecodeUser); ok is false when
// it has neither. A header that names another person than the path is a
// 400, and so is a name that is no stored person's (empty, not UTF-8); the
// rule for new names is person's.
func routedUser(r *http.Request) (user string, ok bool, err error) {
	path, header := r.PathValue("user"), r.Header.Get(UserHeader)
	if len(r.Header.Values(UserHeader)) > 1 {
		return "", false, badRequest("the %s header is given %d times: name one person", UserHeader, len(r.Header.Values(UserHeader)))
	}
	if header != "" {
		if header, err = DecodeUser(header); err != nil {
			return "", false, badRequest("%v", err)
		}
	}
	switch {
	case path != "" && header != "" && header != path:
		return "", false, badRequest("the %s header names %q, the path %q", UserHeader, header, path)
	case path != "":
		user = path
	case header != "":
		user = header
	default:
		if _, given := r.Header[UserHeader]; given {
			return "", false, badRequest("the %s header is empty", UserHeader)
		}
		return "", false, nil
	}
	if err := episode.CheckStoredUser(user); err != nil {
		where := "the path's user"
		if path == "" {
			where = "the " + UserHeader + " header"
		}
		return "", false, badRequest("%s %s (percent-encode the name's UTF-8 bytes)", where, strings.TrimPrefix(err.Error(), "user "))
	}
	return user, true, nil
}

// sameUser returns the person of a body item (what, for errors) given the
// person the request is routed by: the item's own when it names the same
// one or none; any other is a 400, so that no request routed as one person
// reads or writes another's memory.
func sameUser(item, routed, what string) (string, error) {
	if item != "" && item != routed {
		return "", badRequest("%s is %q's, but the request is routed as %q's", what, item, routed)
	}
	return routed, nil
}
