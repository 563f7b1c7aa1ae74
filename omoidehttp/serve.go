package omoidehttp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultShutdownTimeout is how long Serve's shutdown waits for the requests
// in flight under ServeOptions whose ShutdownTimeout is zero.
const DefaultShutdownTimeout = 30 * time.Second

// ServeOptions are Serve's settings. The zero value is their defaults.
type ServeOptions struct {
	// RequestTimeout is the handler's time limit of one request
	// (Config.RequestTimeout), which the server's write timeout leaves room
	// for; 0: DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ShutdownTimeout is how long a shutdown waits for the requests in
	// flight before cancelling them; 0: DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Logger receives the server's errors (at warn) and the shutdown's
	// progress; nil logs nothing.
	Logger *slog.Logger
	// Server, when not nil, is called with the configured server before it
	// serves: to change a timeout, or to register a function to run at
	// shutdown (http.Server.RegisterOnShutdown).
	Server func(*http.Server)
}

// The server's timeouts besides the write timeout, which is the read
// timeout, the request timeout and writeSlack together: a slow client can
// hold a connection no longer than these.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = time.Minute
	idleTimeout       = 2 * time.Minute
	writeSlack        = 10 * time.Second
)

// Serve serves h on ln until ctx is done, then shuts down: it stops
// accepting connections, waits up to ShutdownTimeout for the requests in
// flight, then cancels those still running and closes their connections. It
// returns once every request it began has ended, so that an accepted write
// is stored before the program goes on to close what the handler uses (the
// Memory). Requests run under a context of their own, not under ctx: what
// stops the server does not cancel the writes in flight.
//
// Every timeout of the server is set (headers 10 s, body 1 min, idle 2 min,
// the answer the body's time, RequestTimeout and 10 s more). Serve closes ln.
// It returns nil after a shutdown that finished in time, an error wrapping
// context.DeadlineExceeded after one that did not, and the error that
// stopped the server otherwise (as a listener's accept error).
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts ServeOptions) error {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	var inflight sync.WaitGroup
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inflight.Add(1)
			defer inflight.Done()
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      readTimeout + opts.RequestTimeout + writeSlack,
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if opts.Server != nil {
		opts.Server(srv)
	}
	defer inflight.Wait()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		// Serve failed: stop the requests still running.
		cancelBase()
		srv.Close()
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: waiting for the requests in flight", "timeout", opts.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), opts.ShutdownTimeout)
	err := srv.Shutdown(sctx)
	cancel()
	if err != nil {
		logger.Warn("shutdown timed out: cancelling the requests still in flight")
		cancelBase()
		srv.Close()
		err = fmt.Errorf("shutdown: %w", err)
	}
	<-errc // http.ErrServerClosed
	return err
}
