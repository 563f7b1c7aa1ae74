package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/inspect"
	"github.com/omoide/omoide/internal/hosts"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/omoidemcp"
)

// serveHooks let tests learn the bound address and when shutdown began, and
// inspect or shorten the HTTP server's timeouts.
type serveHooks struct {
	ready      func(addr net.Addr)    // called once listening
	onShutdown func()                 // called when shutdown has closed the listener
	server     func(srv *http.Server) // called with the configured server before it serves
}

// apply returns ServeOptions.Server calling the hooks, ready last (a test
// holds the server once it is told the address).
func (hooks serveHooks) apply(addr net.Addr) func(*http.Server) {
	return func(srv *http.Server) {
		if hooks.onShutdown != nil {
			srv.RegisterOnShutdown(hooks.onShutdown)
		}
		if hooks.server != nil {
			hooks.server(srv)
		}
		if hooks.ready != nil {
			hooks.ready(addr)
		}
	}
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return serve(ctx, args, stdout, stderr, serveHooks{})
}

// serve is the serve subcommand: it runs the HTTP API until ctx is done.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, hooks serveHooks) error {
	c, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	mem, ln, err := c.open(ctx)
	if err != nil {
		return err
	}
	h := c.handler(mem, ln.Addr())
	if err := c.announce(ctx, mem, ln.Addr()); err != nil {
		ln.Close()
		mem.Close()
		return err
	}
	serveErr := omoidehttp.Serve(ctx, ln, h, omoidehttp.ServeOptions{RequestTimeout: c.http.RequestTimeout,
		ShutdownTimeout: c.shutdownTimeout, Logger: c.http.Logger, Server: hooks.apply(ln.Addr())})
	if err := mem.Close(); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("close the store: %w", err))
	}
	c.http.Logger.Info("stopped")
	return serveErr
}

// handler is the tree serve serves at addr: the API, the MCP tools at /mcp
// and the inspector at /ui/. Nothing in it answers with a redirect but the
// inspector's 303s to its own pages: the inspector is chosen by the path's
// prefix (inspect.Handler.Beside), and each part refuses an unclean path itself. Without a
// token, /ui/ and /mcp answer only under the names of this machine's
// loopback and of addr (a page of another site rebinding its name to it is
// refused), and beyond loopback /ui/ is read-only.
func (c *serveConfig) handler(mem *omoide.Memory, addr net.Addr) http.Handler {
	api := omoidehttp.NewHandler(mem, c.http)
	known := hosts.Of(addr.String())
	if c.mcp {
		tools := omoidemcp.NewHandler(mem, omoidemcp.Config{MaxSensitivity: c.http.MaxRequestSensitivity, AllowForgetPerson: c.forgetPerson, ReadOnly: c.sc.readOnly, MaxBody: c.http.MaxBody})
		forUser := tools.For
		if c.http.Token == "" {
			forUser = func(user string) http.Handler { return omoidehttp.LocalHostsOnly(tools.For(user), known) }
		}
		api.HandlePerson("/mcp", forUser)
	}
	if !c.ui {
		return api
	}
	ui := inspect.New(mem, inspect.Config{Token: c.http.Token, Hosts: known, MaxSensitivity: c.http.MaxRequestSensitivity,
		RequestTimeout: c.http.RequestTimeout, ReadOnly: c.uiReadOnly(addr)})
	return ui.Beside(api)
}

// uiReadOnly reports whether the inspector is mounted read-only: when the
// server listens beyond loopback without a token, where anyone who reaches
// it could otherwise delete and forget from a browser.
func (c *serveConfig) uiReadOnly(addr net.Addr) bool {
	return c.http.Token == "" && !loopbackAddr(addr.String())
}

// serveConfig is what serve's flags say.
type serveConfig struct {
	sc              *storeConfig
	addr            string
	http            omoidehttp.Config
	pack            memorypack.Options
	shutdownTimeout time.Duration
	ui              bool // mount the inspector at /ui/
	mcp             bool // mount the MCP tools at /mcp
	forgetPerson    bool // with the forget_person tool
}

// parseServe reads serve's flags.
func parseServe(args []string, stderr io.Writer) (*serveConfig, error) {
	fs := newFlagSet("serve", stderr)
	sc := addStoreFlags(fs)
	sc.addRetrieveFlags(fs)
	addr := fs.String("addr", "127.0.0.1:8765", "the `host:port` to listen on")
	token := addTokenFlags(fs, "require \"Authorization: Bearer TOKEN\" of every request but /healthz, and sign-in at /ui/")
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
	mcpOn := fs.Bool("mcp", true, "serve the MCP tools at /mcp (streamable HTTP, the person in the "+omoidehttp.UserHeader+" header; docs/mcp.md), behind the same token")
	forgetPerson := fs.Bool("allow-forget-person", false, "with -mcp: add the forget_person tool, which erases every memory of the person and their name")
	ui := fs.Bool("ui", true, "serve the inspector at /ui/ (a browser's view of the people, their memories and why one was injected; docs/inspect.md), behind the same token and -max-request-sensitivity; beyond loopback without a token, read-only")
	setUsage(fs, "omoide serve [flags]", `Serve runs an HTTP JSON API over the store, for backends not written in Go. It listens on
loopback by default and logs each request (method, route, status, duration, and the person by a
keyed hash) to stderr; it never logs a name, message text, the token or the API key.

`+omoidehttp.Doc+`
Beside the API: /ui/, the inspector (a browser's view of the people, their memories and why a memory
was injected; -ui=false leaves it out; docs/inspect.md), and /mcp, the person's memory as MCP tools
over streamable HTTP, the person in the `+omoidehttp.UserHeader+` header (-mcp=false leaves it out;
docs/mcp.md), both behind the same token.

`+`SIGINT or SIGTERM stops accepting connections, waits up to -shutdown-timeout for the requests in
flight (an accepted write is stored before the process exits), then closes the store.
`)
	if err := sc.parse(args); err != nil {
		return nil, err
	}
	if *timeout <= 0 || *shutdownTimeout <= 0 {
		return nil, fmt.Errorf("%w: -timeout and -shutdown-timeout must be positive", errUsage)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return nil, fmt.Errorf("%w: -log-level %q: want debug, info, warn or error", errUsage, *logLevel)
	}
	tok, err := token.value()
	if err != nil {
		return nil, err
	}
	c := &serveConfig{sc: sc, addr: *addr, pack: sc.pack(), shutdownTimeout: *shutdownTimeout, ui: *ui, mcp: *mcpOn, forgetPerson: *forgetPerson, http: omoidehttp.Config{
		Token: tok, MaxBody: int64(maxBody), RequestTimeout: *timeout, Node: *node,
		Peers: nodeList(*peers), Upstream: cmp.Or(*upstream, *addr),
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}}
	if c.http.MaxRequestSensitivity, err = ceilingAndZone(*maxReqSens, *tz, &c.pack); err != nil {
		return nil, err
	}
	if c.pack.Strategy, err = memorypack.ParseStrategy(*strategy); err != nil {
		return nil, fmt.Errorf("%w: -strategy: %v", errUsage, err)
	}
	if err := omoidehttp.CheckPeers(c.http.Peers, c.http.Upstream); err != nil {
		return nil, fmt.Errorf("%w: -peers: %v", errUsage, err)
	}
	sc.checkpointWait = *checkpointWait
	if sc.checkpointWait == 0 {
		sc.checkpointWait = -1 // the flag's 0 is no wait; the Config's is the default
	}
	return c, nil
}

// open listens, then opens the memory: an address it cannot listen on
// (-addr :99999, a port in use) fails before a store is created or opened.
func (c *serveConfig) open(ctx context.Context) (*omoide.Memory, net.Listener, error) {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-addr %s: %w", c.addr, err)
	}
	mem, err := c.sc.openMemory(ctx, false, c.pack)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	// Load the analyzer's dictionary now, not during the first request
	// (kagome takes about half a second the first time).
	mem.Store.Analyzer().Index("起動")
	return mem, ln, nil
}

// announce logs what serves where, and warns of an open door and of people
// another node owns.
func (c *serveConfig) announce(ctx context.Context, mem *omoide.Memory, addr net.Addr) error {
	logger := c.http.Logger
	if c.http.Token == "" && !loopbackAddr(addr.String()) {
		logger.Warn("listening beyond loopback without a token: anyone who can reach this address can read and erase memories")
		if c.ui {
			logger.Warn("the inspector at /ui/ is read-only: give a token (" + envToken + " or -token-file) to delete and forget from it")
		}
	}
	unowned, err := omoidehttp.Unowned(ctx, mem.Store, c.http.Peers, c.http.Upstream)
	if err != nil {
		return err
	}
	logger.Info("listening", "addr", "http://"+addr.String(), "db", c.sc.db,
		"embedder", mem.Store.Embedder().Identity().String(), "analyzer", mem.Store.Analyzer().Name(), "auth", c.http.Token != "",
		"returns_up_to", c.http.MaxRequestSensitivity.String())
	if unowned > 0 {
		logger.Warn("this node holds people another node owns: their retrievals and writes go to the owner, which does not hold them; move them there (omoide move -proxy, docs/scale-out.md)", "people", unowned)
	}
	return nil
}
