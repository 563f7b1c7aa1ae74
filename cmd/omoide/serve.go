package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// apiDoc documents the HTTP API (omoide serve -help); the doc comment of
// newServer says the same.
const apiDoc = `Endpoints (JSON in, JSON out; errors are {"error": "..."}):

  POST   /v1/episodes    store episodes: a JSON array, or {"episodes": [...]}, of
                         {"user", "user_text", "reply_text", "occurred_at" (RFC 3339; default now),
                          "id" or "external_id" (optional; re-adding the same one is a no-op; without
                          one, the same content again within 10 minutes is a retry, stored once),
                          "source", "kind" (episode|fact|summary|loop), "state" (raw|validated|
                          consolidated|archived), "sensitivity" (normal|private|secret) (optional)}
                         user_text and reply_text together hold at most 16384 bytes (400 beyond)
                         -> {"ids": [store ids, in order], "unsearched": n (of them, how many the
                             default filter does not search: private, secret or archived)}
  POST   /v1/retrieve    {"user", "text", "recent": [{"role": "user"|"assistant", "content"}],
                          "now" (RFC 3339; default now), "tz" (the person's time zone, e.g.
                          "Asia/Tokyo": the days of "昨日" and of the evidence dates; default -tz),
                          "with_candidates" (bool), "inject_threshold" (0 to 1; default
                          -inject-threshold), "filter": {"kinds": [...], "states": [...],
                          "max_sensitivity", "max_age_days"} (each field given replaces the
                          server's; max_sensitivity up to -max-request-sensitivity), "lang" (ja, zh,
                          ko or en: the message's language where its script does not tell, e.g.
                          a Japanese person's Han-only 東京都庁)}
                         -> {"hits": [{"id", "external_id", "user", "user_text", "reply_text",
                             "occurred_at", "relevance", "reason", "score", "rrf", "rrf_norm",
                             "lex", "rec", ...}], "trace": {"queries", "candidates", "picked",
                             "embed_us", "knn_us", "bm25_us", ..., "total_us"}}
                         "recent" left out (or null) means: the user's exchanges of the last 30
                         minutes are the context; [] means no context. A message or turn over
                         16384 bytes is searched by its head (trace "clipped").
                         Searched by default: every kind, every state but archived, normal
                         sensitivity (a private conversation: "filter": {"max_sensitivity":
                         "private"}). POST /v1/episodes answers "unsearched": how many of its
                         episodes that leaves out; omoide stats counts the store's.
  POST   /v1/pack        the same body, plus optional "strategy" and "reasons" (true: the score parts)
                         -> {"section": "[EPISODE_EVIDENCE]...", "inject": bool, "hits", "trace"}
                         ("section" is "" and "inject" false when nothing is worth injecting)
  POST   /v1/users/{user}/episodes (and PUT), /v1/users/{user}/retrieve, /v1/users/{user}/pack
                         the same, the person in the path ("user" may be left out of the body),
                         for a proxy that routes people to nodes without reading bodies
  DELETE /v1/episodes/{id}                       -> {"deleted": 1, "id"}; 404 when absent
  DELETE /v1/users/{user}/episodes/{external_id} -> {"deleted": 1, "id"}; 404 when absent
  DELETE /v1/users/{user}                        forget the person -> {"user", "deleted": n}
  GET    /v1/node        {"node": the -node name}
  GET    /v1/users       the node's people: ?after=NAME&limit=N -> {"users": [{"user", "episodes"}], "next"}
  POST   /v1/users/{user}/hold    {"seconds", "token"} -> {"token", "until"}: the person's writes get 503
                         with Retry-After until then, unless they carry "X-Omoide-Hold: TOKEN" (omoide move)
  DELETE /v1/users/{user}/hold    (with X-Omoide-Hold) release it
  GET    /healthz        {"ok": true, "node" (-node), "episodes", "users", "fts_rows", "vector_rows",
                          "consistent", "embedder", "analyzer", "schema_version", "file_bytes"}

Path segments are percent-encoded (a user "line/U1" is /v1/users/line%2FU1). The header
X-Omoide-User names the person of a request whose path does not (POST /v1/episodes, /v1/retrieve,
/v1/pack, DELETE /v1/episodes/{id}). A request routed as one person by its path or that header is
refused (400) when its body names another, and DELETE /v1/episodes/{id} finds only that person's
episode (404). With a token
(-token or OMOIDE_TOKEN) every endpoint but /healthz needs "Authorization: Bearer TOKEN"
(else 401). Bodies, paths and the header are UTF-8: anything else (Shift_JIS, a lone surrogate
escape) is a 400, never replaced. Status codes: 400 bad JSON, unknown field or invalid input; 404;
405; 413 body over -max-body; 500 store or embedder failure; 503 request over -timeout.

SIGINT or SIGTERM stops accepting connections, waits up to -shutdown-timeout for the requests in
flight (an accepted write is stored before the process exits), then closes the store.

`

const defaultMaxBody = 4 << 20

// serveHooks let tests learn the bound address and when shutdown began, and
// inspect or shorten the HTTP server's timeouts.
type serveHooks struct {
	ready      func(addr net.Addr)    // called once listening
	onShutdown func()                 // called when shutdown has closed the listener
	server     func(srv *http.Server) // called with the configured server before it serves
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return serve(ctx, args, stdout, stderr, serveHooks{})
}

// serve is the serve subcommand: it runs the HTTP API until ctx is done.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, hooks serveHooks) error {
	fs := newFlagSet("serve", stderr)
	sc := addStoreFlags(fs)
	sc.addRetrieveFlags(fs)
	addr := fs.String("addr", "127.0.0.1:8765", "the `host:port` to listen on")
	token := fs.String("token", "", "require \"Authorization: Bearer TOKEN\" (default: env "+envToken+", which is safer: a flag shows in ps)")
	maxBody := byteSize(defaultMaxBody)
	fs.Var(&maxBody, "max-body", "the request body `limit` (e.g. 4MiB, 512KiB, 1048576)")
	timeout := fs.Duration("timeout", 30*time.Second, "the time limit of one request")
	shutdownTimeout := fs.Duration("shutdown-timeout", 30*time.Second, "how long a shutdown waits for the requests in flight")
	strategy := fs.String("strategy", "quote_key_parts", "the default /v1/pack strategy: quote_key_parts, summarize or full")
	tz := fs.String("tz", "Local", "the people's default time `zone`, e.g. Asia/Tokyo: of time expressions (\"昨日\"), day windows and /v1/pack dates")
	logLevel := fs.String("log-level", "info", "the log `level`: debug, info, warn or error")
	checkpointWait := fs.Duration("checkpoint-wait", episode.DefaultCheckpointWait, "how long a removal's checkpoint waits for readers of the log; 0: no wait (beside Litestream, which always holds one: docs/scale-out.md)")
	maxReqSens := fs.String("max-request-sensitivity", "private", "the most private `level` a request's \"filter\" may search: normal, private or secret")
	node := fs.String("node", "", "this node's `name`, reported by /healthz: omoide move -proxy asks the proxy which node owns a person by it")
	setUsage(fs, "omoide serve [flags]", `Serve runs an HTTP JSON API over the store, for backends not written in Go. It listens on
loopback by default and logs each request (method, path, status, duration) to stderr; it never
logs message text, the token or the API key.

`+apiDoc)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := sc.validate(); err != nil {
		return err
	}
	if *timeout <= 0 || *shutdownTimeout <= 0 {
		return fmt.Errorf("%w: -timeout and -shutdown-timeout must be positive", errUsage)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("%w: -log-level %q: want debug, info, warn or error", errUsage, *logLevel)
	}
	popts := sc.pack()
	var err error
	if popts.Location, err = time.LoadLocation(*tz); err != nil {
		return fmt.Errorf("%w: -tz: %v", errUsage, err)
	}
	if popts.Strategy, err = memorypack.ParseStrategy(*strategy); err != nil {
		return fmt.Errorf("%w: -strategy: %v", errUsage, err)
	}
	reqSens, err := episode.ParseSensitivity(*maxReqSens)
	if err != nil {
		return fmt.Errorf("%w: -max-request-sensitivity: %v", errUsage, err)
	}
	tok := *token
	if tok == "" {
		tok = os.Getenv(envToken)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	sc.checkpointWait = *checkpointWait
	if sc.checkpointWait == 0 {
		sc.checkpointWait = -1 // the flag's 0 is no wait; the Config's is the default
	}
	mem, err := sc.openMemory(ctx, false, popts)
	if err != nil {
		return err
	}
	// Load the analyzer's dictionary now, not during the first request
	// (kagome takes about half a second the first time).
	mem.Store.Analyzer().Index("起動")
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		mem.Close()
		return err
	}
	h := newServer(mem, serverConfig{Token: tok, MaxBody: int64(maxBody), RequestTimeout: *timeout, Logger: logger, Node: *node,
		MaxRequestSensitivity: reqSens})
	// Requests run under their own base context: the signal that stops the
	// server must not cancel the writes in flight.
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	const readTimeout = time.Minute
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       readTimeout,
		WriteTimeout:      readTimeout + *timeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if hooks.onShutdown != nil {
		srv.RegisterOnShutdown(hooks.onShutdown)
	}
	if hooks.server != nil {
		hooks.server(srv)
	}
	if tok == "" && !isLoopback(ln.Addr()) {
		logger.Warn("listening beyond loopback without a token: anyone who can reach this address can read and erase memories")
	}
	logger.Info("listening", "addr", "http://"+ln.Addr().String(), "db", sc.db,
		"embedder", mem.Store.Embedder().Identity().String(), "analyzer", mem.Store.Analyzer().Name(), "auth", tok != "")
	if hooks.ready != nil {
		hooks.ready(ln.Addr())
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-errc:
		// Serve failed: stop the requests still running before closing the store.
		cancelBase()
		srv.Close()
	case <-ctx.Done():
		logger.Info("shutting down: waiting for the requests in flight", "timeout", *shutdownTimeout)
		sctx, cancel := context.WithTimeout(context.Background(), *shutdownTimeout)
		serveErr = srv.Shutdown(sctx)
		cancel()
		if serveErr != nil {
			logger.Warn("shutdown timed out: cancelling the requests still in flight")
			cancelBase()
			srv.Close()
			serveErr = fmt.Errorf("shutdown: %w", serveErr)
		}
		<-errc // http.ErrServerClosed
	}
	h.inflight.Wait()
	if err := mem.Close(); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("close the store: %w", err))
	}
	logger.Info("stopped")
	return serveErr
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// serverConfig configures newServer.
type serverConfig struct {
	Token          string        // "" = no authentication
	MaxBody        int64         // request body limit; 0 = 4 MiB
	RequestTimeout time.Duration // per request; 0 = 30 s
	Logger         *slog.Logger  // nil = no logging
	Node           string        // this node's name, in /healthz
	// MaxRequestSensitivity is the most private level a request's filter
	// may admit; its zero admits normal episodes only.
	MaxRequestSensitivity episode.Sensitivity
}

// server is the HTTP JSON API over a Memory.
type server struct {
	mem      *omoide.Memory
	cfg      serverConfig
	mux      *http.ServeMux
	token    [sha256.Size]byte
	inflight sync.WaitGroup
	holds    holds // people being moved to another node
}

// newServer returns the HTTP JSON API over mem: the handler of "omoide
// serve". Endpoints:
//
//	POST   /v1/episodes                             store episodes → {"ids"}
//	POST   /v1/retrieve                             {user, text, recent, now} → {"hits", "trace"}
//	POST   /v1/pack                                 the same (+ strategy, tz, reasons) → {"section", "inject", "hits", "trace"}
//	POST   /v1/users/{user}/episodes, PUT, /retrieve, /pack  the same, the person in the path
//	                                                (a proxy routes by it without reading bodies)
//	DELETE /v1/episodes/{id}                        delete one episode
//	DELETE /v1/users/{user}/episodes/{external_id}  delete one episode by external id
//	DELETE /v1/users/{user}                         forget a person
//	GET    /healthz                                 {"ok": true, ...store statistics}
//
// (apiDoc has the fields.) Every endpoint but /healthz requires the bearer
// token when cfg.Token is set. Bodies are limited to cfg.MaxBody (413), are
// decoded strictly (unknown fields are 400) and every request runs under
// cfg.RequestTimeout. Errors are {"error": "..."}.
func newServer(mem *omoide.Memory, cfg serverConfig) *server {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = defaultMaxBody
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &server{mem: mem, cfg: cfg, mux: http.NewServeMux(), token: sha256.Sum256([]byte(cfg.Token))}
	routes := []struct {
		method, path string
		h            func(w http.ResponseWriter, r *http.Request) (any, error)
	}{
		{http.MethodPost, "/v1/episodes", s.addEpisodes},
		{http.MethodPut, "/v1/episodes", s.updateEpisodes},
		{http.MethodPost, "/v1/retrieve", s.retrieve},
		{http.MethodPost, "/v1/pack", s.pack},
		{http.MethodPost, "/v1/users/{user}/episodes", s.addEpisodes},
		{http.MethodPut, "/v1/users/{user}/episodes", s.updateEpisodes},
		{http.MethodPost, "/v1/users/{user}/retrieve", s.retrieve},
		{http.MethodPost, "/v1/users/{user}/pack", s.pack},
		{http.MethodDelete, "/v1/episodes/{id}", s.deleteEpisode},
		{http.MethodDelete, "/v1/users/{user}/episodes/{external_id}", s.deleteExternal},
		{http.MethodDelete, "/v1/users/{user}", s.forgetUser},
		{http.MethodGet, "/v1/users/{user}/episodes", s.listEpisodes},
		{http.MethodGet, "/v1/users", s.listPeople},
		{http.MethodGet, "/v1/node", s.nodeName},
		{http.MethodPost, "/v1/users/{user}/hold", s.holdUser},
		{http.MethodDelete, "/v1/users/{user}/hold", s.releaseUser},
		{http.MethodGet, "/healthz", s.healthz},
	}
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range routes {
		s.mux.Handle(rt.method+" "+rt.path, s.endpoint(rt.h))
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

// ServeHTTP authenticates, bounds and logs the request, then routes it.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.cfg.Logger.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p))
			if sw.status == 0 {
				writeError(sw, http.StatusInternalServerError, "internal error")
			}
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", status), slog.Duration("duration", time.Since(start)))
	}()
	if s.cfg.Token != "" && r.URL.Path != "/healthz" && !s.authorized(r) {
		sw.Header().Set("WWW-Authenticate", `Bearer realm="omoide"`)
		writeError(sw, http.StatusUnauthorized, "missing or invalid bearer token (Authorization: Bearer TOKEN)")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	s.mux.ServeHTTP(sw, r.WithContext(ctx))
}

// authorized reports whether r carries the token. Both sides are hashed so
// that the comparison takes the same time whatever the lengths.
func (s *server) authorized(r *http.Request) bool {
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

// endpoint adapts a handler that returns its response value or an error.
func (s *server) endpoint(h func(w http.ResponseWriter, r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkRouteText(r); err != nil {
			s.fail(w, r, err)
			return
		}
		v, err := h(w, r)
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

// checkRouteText refuses a path segment or UserHeader that is not valid
// UTF-8: replaced, two people's names would become one.
func checkRouteText(r *http.Request) error {
	for _, v := range []struct{ what, val string }{
		{"the path's user", r.PathValue("user")}, {"the path's external id", r.PathValue("external_id")},
		{"the " + UserHeader + " header", r.Header.Get(UserHeader)},
	} {
		if !utf8.ValidString(v.val) {
			return badRequest("%s is not valid UTF-8 (percent-encode the UTF-8 bytes of the name)", v.what)
		}
	}
	return nil
}

// fail writes err with its status.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var mbe *http.MaxBytesError
	status, msg := http.StatusInternalServerError, err.Error()
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.Is(err, episode.ErrConflict):
		status = http.StatusConflict
	case errors.Is(err, episode.ErrReadOnly):
		status = http.StatusForbidden
	case errors.As(err, &mbe):
		status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit)
	case errors.Is(err, context.DeadlineExceeded):
		status, msg = http.StatusServiceUnavailable, fmt.Sprintf("request took longer than %s", s.cfg.RequestTimeout)
	case errors.Is(err, context.Canceled):
		status, msg = http.StatusServiceUnavailable, "request cancelled"
	}
	if status >= 500 {
		s.cfg.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status, "error", logSafe(err))
	}
	writeError(w, status, msg)
}

// logSafe returns err's message for the log, without the excerpts of an
// embedding server's response that embed's errors quote (they may echo the
// request's texts, which the log never holds).
func logSafe(err error) string {
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

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSONStatus(w, status, map[string]string{"error": msg})
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
func (s *server) readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	if err := wire.Decode(r.Body, v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("invalid JSON body: %v", err)
	}
	return nil
}

func (s *server) addEpisodes(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.storeEpisodes(w, r, s.mem.Add)
}

// updateEpisodes is PUT /v1/episodes: as POST, but an episode whose (user,
// external id) is stored with other content replaces it (Memory.Update).
func (s *server) updateEpisodes(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.storeEpisodes(w, r, s.mem.Update)
}

// storeEpisodes decodes the body of POST and PUT /v1/episodes and stores
// them with store.
func (s *server) storeEpisodes(w http.ResponseWriter, r *http.Request, store func(context.Context, ...episode.Episode) ([]int64, error)) (any, error) {
	var raw []byte
	if err := s.readJSON(w, r, (*rawJSON)(&raw)); err != nil {
		return nil, err
	}
	user, _, err := routedUser(r)
	if err != nil {
		return nil, err
	}
	eps, err := decodeEpisodes(raw, time.Now(), user)
	if err != nil {
		return nil, err
	}
	for _, e := range eps {
		if err := s.holds.check(w, r, e.User); err != nil {
			return nil, err
		}
	}
	ids, err := store(r.Context(), eps...)
	if err != nil {
		return nil, err
	}
	s.cfg.Logger.Debug("episodes stored", "count", len(ids))
	return map[string]any{"ids": ids, "unsearched": wire.Unsearched(s.mem.Retriever.Options().Filter, eps)}, nil
}

// decodeEpisodes decodes and validates the body of POST /v1/episodes (one
// JSON value, read within the body limit): a JSON array of episodes or
// {"episodes": [...]}. now stands in for a missing occurred_at; routed, when
// not "", is the person the request is routed by (routedUser), which fills a
// missing user and must be every episode's. Every error is a 400 naming the
// problem.
func decodeEpisodes(raw []byte, now time.Time, routed string) ([]episode.Episode, error) {
	var inputs []episode.Record
	switch b := bytes.TrimLeft(raw, " \t\r\n"); {
	case len(b) > 0 && b[0] == '[':
		if err := wire.DecodeBytes(raw, &inputs); err != nil {
			return nil, badRequest("invalid JSON body: %v", err)
		}
	case len(b) > 0 && b[0] == '{':
		var body struct {
			Episodes []episode.Record `json:"episodes"`
		}
		if err := wire.DecodeBytes(raw, &body); err != nil {
			return nil, badRequest("invalid JSON body: %v", err)
		}
		inputs = body.Episodes
	default:
		return nil, badRequest(`want a JSON array of episodes, or {"episodes": [...]}`)
	}
	if len(inputs) == 0 {
		return nil, badRequest("no episodes in the body")
	}
	eps := make([]episode.Episode, len(inputs))
	for i, in := range inputs {
		if routed != "" {
			var err error
			if in.User, err = sameUser(in.User, routed, fmt.Sprintf("episodes[%d]", i)); err != nil {
				return nil, err
			}
		}
		e, err := in.Episode(now)
		if err != nil {
			return nil, badRequest("episodes[%d]: %v", i, err)
		}
		eps[i] = e
	}
	return eps, nil
}

// rawJSON keeps a JSON value undecoded (json.RawMessage, with strict decoding
// of the outer value).
type rawJSON []byte

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// retrieveRequest is the body of /v1/retrieve.
type retrieveRequest struct {
	User           string         `json:"user"`
	Text           string         `json:"text"`
	Recent         []wire.Message `json:"recent"`
	Now            *time.Time     `json:"now"`
	TZ             string         `json:"tz"`
	WithCandidates bool           `json:"with_candidates"`
	// Filter and InjectThreshold are the request's own (retriever.Request),
	// within the server's bounds.
	Filter          *filterInput `json:"filter"`
	InjectThreshold *float64     `json:"inject_threshold"`
	Lang            string       `json:"lang"` // the message's language where its script does not tell
}

// filterInput is a request's "filter": each field given replaces the
// server's default (retriever.Options.Filter); "kinds": [] or "states": []
// admit every one.
type filterInput struct {
	Kinds          []episode.Kind       `json:"kinds"`
	States         []episode.State      `json:"states"`
	MaxSensitivity *episode.Sensitivity `json:"max_sensitivity"`
	MaxAgeDays     *int                 `json:"max_age_days"`
}

// filter returns base with f's fields, refusing a sensitivity above max;
// the request's Validate checks the rest.
func (f *filterInput) filter(base retriever.Filter, max episode.Sensitivity) (*retriever.Filter, error) {
	if f == nil {
		return nil, nil
	}
	out := base
	if f.Kinds != nil {
		out.Kinds = f.Kinds
	}
	if f.States != nil {
		out.States = f.States
	}
	if f.MaxSensitivity != nil {
		if *f.MaxSensitivity > max {
			return nil, badRequest("filter: max_sensitivity %q is above what this server admits, %q (serve -max-request-sensitivity)", *f.MaxSensitivity, max)
		}
		out.MaxSensitivity = *f.MaxSensitivity
	}
	if f.MaxAgeDays != nil {
		out.MaxAgeDays = *f.MaxAgeDays
	}
	return &out, nil // Request.Validate checks it
}

// packRequest is the body of /v1/pack.
type packRequest struct {
	retrieveRequest
	Strategy string `json:"strategy"`
	Reasons  bool   `json:"reasons"` // show why each episode was picked, which the default preset leaves out
}

// UserHeader names the person of a request whose route does not (POST
// /v1/retrieve, /v1/pack, /v1/episodes, DELETE /v1/episodes/{id}), for a
// proxy to route by; the body's people must be that person.
const UserHeader = "X-Omoide-User"

// routedUser returns the person a request is routed by: the {user} of its
// path, else its UserHeader; ok is false when it has neither. A header that
// names another person than the path is a 400.
func routedUser(r *http.Request) (user string, ok bool, err error) {
	path, header := r.PathValue("user"), r.Header.Get(UserHeader)
	switch {
	case path != "" && header != "" && header != path:
		return "", false, badRequest("the %s header names %q, the path %q", UserHeader, header, path)
	case path != "":
		return path, true, nil
	case header != "":
		return header, true, nil
	}
	return "", false, nil
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

// routed fills q.User from the request's route (routedUser).
func (q *retrieveRequest) routed(r *http.Request) error {
	user, ok, err := routedUser(r)
	if err != nil || !ok {
		return err
	}
	q.User, err = sameUser(q.User, user, "the body")
	return err
}

// request returns the retrieval q asks for; base is the server's filter,
// maxSens the most private level a request may admit.
func (q retrieveRequest) request(base retriever.Filter, maxSens episode.Sensitivity) (retriever.Request, error) {
	if strings.TrimSpace(q.User) == "" {
		return retriever.Request{}, badRequest("user is missing")
	}
	recent, err := wire.Messages(q.Recent)
	if err != nil {
		return retriever.Request{}, badRequest("%v", err)
	}
	req := retriever.Request{User: q.User, Text: q.Text, Recent: recent, WithCandidates: q.WithCandidates, InjectThreshold: q.InjectThreshold}
	if req.Filter, err = q.Filter.filter(base, maxSens); err != nil {
		return retriever.Request{}, err
	}
	if req.Lang, err = tokenize.ParseLanguage(q.Lang); err != nil {
		return retriever.Request{}, badRequest("%v", err)
	}
	if err := req.Validate(); err != nil {
		return retriever.Request{}, badRequest("%v", err)
	}
	if q.Now != nil {
		req.Now = *q.Now
	}
	if q.TZ != "" {
		if req.Location, err = time.LoadLocation(q.TZ); err != nil {
			return retriever.Request{}, badRequest("tz %q: %v", q.TZ, err)
		}
	}
	return req, nil
}

// options returns base with the request's strategy, time zone (req's, from
// q.TZ) and reasons, when given.
func (q packRequest) options(base memorypack.Options, req retriever.Request) (memorypack.Options, error) {
	if q.Strategy != "" {
		var err error
		if base.Strategy, err = memorypack.ParseStrategy(q.Strategy); err != nil {
			return base, badRequest("strategy: %v", err)
		}
	}
	if req.Location != nil {
		base.Location = req.Location
	}
	if q.Reasons {
		base.HideReason = false
	}
	return base, nil
}

func (s *server) retrieve(w http.ResponseWriter, r *http.Request) (any, error) {
	var q retrieveRequest
	if err := s.readJSON(w, r, &q); err != nil {
		return nil, err
	}
	if err := q.routed(r); err != nil {
		return nil, err
	}
	req, err := q.request(s.mem.Retriever.Options().Filter, s.cfg.MaxRequestSensitivity)
	if err != nil {
		return nil, err
	}
	res, err := s.mem.Retrieve(r.Context(), req)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *server) pack(w http.ResponseWriter, r *http.Request) (any, error) {
	var q packRequest
	if err := s.readJSON(w, r, &q); err != nil {
		return nil, err
	}
	if err := q.routed(r); err != nil {
		return nil, err
	}
	req, err := q.request(s.mem.Retriever.Options().Filter, s.cfg.MaxRequestSensitivity)
	if err != nil {
		return nil, err
	}
	opts, err := q.options(s.mem.Pack, req)
	if err != nil {
		return nil, err
	}
	res, err := s.mem.Retrieve(r.Context(), req)
	if err != nil {
		return nil, err
	}
	section := memorypack.RenderEvidence(omoide.EvidenceOf(res), opts)
	return wire.PackOf(section, res), nil
}

func (s *server) deleteEpisode(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, badRequest("episode id %q is not a positive integer", r.PathValue("id"))
	}
	user, routed, err := routedUser(r)
	if err != nil {
		return nil, err
	}
	// Routed as one person: only their episode (ids are never reused, nor
	// move between people); and a held person's is not deleted.
	e, err := s.mem.Store.Get(r.Context(), id)
	if errors.Is(err, episode.ErrNotFound) || err == nil && routed && e.User != user {
		if routed {
			return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode with id %d of user %q", id, user)}
		}
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode with id %d", id)}
	}
	if err != nil {
		return nil, err
	}
	if err := s.holds.check(w, r, e.User); err != nil {
		return nil, err
	}
	n, err := s.mem.Delete(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode with id %d", id)}
	}
	return map[string]any{"deleted": n, "id": id}, nil
}

func (s *server) deleteExternal(w http.ResponseWriter, r *http.Request) (any, error) {
	user, ext := r.PathValue("user"), r.PathValue("external_id")
	if err := s.holds.check(w, r, user); err != nil {
		return nil, err
	}
	id, err := s.mem.Store.IDByExternal(r.Context(), user, ext)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode of user %q has external id %q", user, ext)}
	}
	n, err := s.mem.Delete(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if n == 0 { // deleted meanwhile
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode of user %q has external id %q", user, ext)}
	}
	return map[string]any{"deleted": n, "id": id}, nil
}

func (s *server) forgetUser(w http.ResponseWriter, r *http.Request) (any, error) {
	user := r.PathValue("user")
	if strings.TrimSpace(user) == "" {
		return nil, badRequest("user is empty")
	}
	if err := s.holds.check(w, r, user); err != nil {
		return nil, err
	}
	er, err := s.mem.Forget(r.Context(), user)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user": user, "deleted": er.Episodes, "bytes_freed": er.BytesFreed, "checkpointed": er.Checkpointed}, nil
}

// maxPage is the most episodes one page of GET /v1/users/{user}/episodes
// holds; defaultPage when the request names none.
const maxPage, defaultPage = 1000, 100

// pageLimit is a listing's ?limit=N: 1 to maxPage, defaultPage when absent.
func pageLimit(q url.Values) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return defaultPage, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPage {
		return 0, badRequest("limit %q: want 1 to %d", v, maxPage)
	}
	return n, nil
}

// listEpisodes is a person's episodes, page by page, in the records ingest
// reads: ?after=ID (the last page's next) and ?limit=N.
func (s *server) listEpisodes(w http.ResponseWriter, r *http.Request) (any, error) {
	user := r.PathValue("user")
	if strings.TrimSpace(user) == "" {
		return nil, badRequest("user is empty")
	}
	q := r.URL.Query()
	after := int64(0)
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, badRequest("after %q: want the next of the last page (an episode id)", v)
		}
		after = n
	}
	limit, err := pageLimit(q)
	if err != nil {
		return nil, err
	}
	eps, err := s.mem.Store.Episodes(r.Context(), user, after, limit)
	if err != nil {
		return nil, err
	}
	recs := make([]episode.Record, len(eps))
	for i, e := range eps {
		recs[i] = episode.RecordOf(e)
	}
	out := map[string]any{"user": user, "episodes": recs}
	if len(eps) == limit {
		out["next"] = eps[len(eps)-1].ID
	}
	return out, nil
}

func (s *server) healthz(w http.ResponseWriter, r *http.Request) (any, error) {
	st, err := s.mem.Store.Stats(r.Context())
	if err != nil {
		s.cfg.Logger.Error("health check failed", "error", err.Error())
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "error": err.Error()})
		return nil, errWritten
	}
	js := wire.StatsOf("", st) // the file's path stays private
	return struct {
		OK   bool   `json:"ok"`
		Node string `json:"node,omitempty"`
		wire.Stats
	}{true, s.cfg.Node, js}, nil
}

// nodeName is the node's -node name: cheap, for a mover asking a proxy where
// a person is routed (omoide move -proxy).
func (s *server) nodeName(w http.ResponseWriter, r *http.Request) (any, error) {
	return map[string]any{"node": s.cfg.Node}, nil
}

// listPeople is the node's people with their episode counts, page by page:
// ?after=NAME (the last page's next) and ?limit=N.
func (s *server) listPeople(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	limit, err := pageLimit(q)
	if err != nil {
		return nil, err
	}
	people, err := s.mem.Store.People(r.Context(), q.Get("after"), limit)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"users": people}
	if people == nil {
		out["users"] = []episode.Person{}
	}
	if len(people) == limit {
		out["next"] = people[len(people)-1].User
	}
	return out, nil
}
