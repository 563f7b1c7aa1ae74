package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/omoidehttp"
)

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
	maxBody := cli.ByteSize(omoidehttp.DefaultMaxBody)
	fs.Var(&maxBody, "max-body", "the request body `limit` (e.g. 4MiB, 512KiB, 1048576)")
	timeout := fs.Duration("timeout", 30*time.Second, "the time limit of one request")
	shutdownTimeout := fs.Duration("shutdown-timeout", 30*time.Second, "how long a shutdown waits for the requests in flight")
	strategy := fs.String("strategy", "quote_key_parts", "the default /v1/pack strategy: quote_key_parts, summarize or full")
	tz := fs.String("tz", "Local", "the people's default time `zone`, e.g. Asia/Tokyo: of time expressions (\"昨日\"), day windows and /v1/pack dates")
	logLevel := fs.String("log-level", "info", "the log `level`: debug, info, warn or error")
	checkpointWait := fs.Duration("checkpoint-wait", sqlite.DefaultCheckpointWait, "how long a removal's checkpoint waits for readers of the log; 0: no wait (beside Litestream, which always holds one: docs/scale-out.md)")
	maxReqSens := fs.String("max-request-sensitivity", "normal", "the most private `level` a retrieval or pack returns, whatever the preset and the request's \"filter\" (which may ask up to it): normal, private or secret")
	node := fs.String("node", "", "this node's `name`, reported by /healthz: omoide move -proxy asks the proxy which node owns a person by it")
	peers := fs.String("peers", os.Getenv(envNodes), "the proxy's node `list`, as its upstreams write them (\"127.0.0.1:9001 127.0.0.1:9002\"; env "+envNodes+", as deploy/Caddyfile reads it): answer 421 for a person another node owns")
	upstream := fs.String("upstream", "", "this node's entry in -peers (default: -addr)")
	setUsage(fs, "omoide serve [flags]", `Serve runs an HTTP JSON API over the store, for backends not written in Go. It listens on
loopback by default and logs each request (method, path, status, duration) to stderr; it never
logs message text, the token or the API key.

`+omoidehttp.Doc+`
`+`SIGINT or SIGTERM stops accepting connections, waits up to -shutdown-timeout for the requests in
flight (an accepted write is stored before the process exits), then closes the store.
`)
	if err := sc.parse(args); err != nil {
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
	peerList := nodeList(*peers)
	if *upstream == "" {
		*upstream = *addr
	}
	if err := omoidehttp.CheckPeers(peerList, *upstream); err != nil {
		return fmt.Errorf("%w: -peers: %v", errUsage, err)
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
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{Token: tok, MaxBody: int64(maxBody), RequestTimeout: *timeout, Logger: logger, Node: *node,
		MaxRequestSensitivity: reqSens, Peers: peerList, Upstream: *upstream})
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
	unowned, err := omoidehttp.Unowned(ctx, mem.Store, peerList, *upstream)
	if err != nil {
		ln.Close()
		mem.Close()
		return err
	}
	logger.Info("listening", "addr", "http://"+ln.Addr().String(), "db", sc.db,
		"embedder", mem.Store.Embedder().Identity().String(), "analyzer", mem.Store.Analyzer().Name(), "auth", tok != "",
		"returns_up_to", reqSens.String())
	if unowned > 0 {
		logger.Warn("this node holds people another node owns: their retrievals and writes go to the owner, which does not hold them; move them there (omoide move -proxy, docs/scale-out.md)", "people", unowned)
	}
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
	h.Wait()
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
