package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/omoide/omoide/inspect"
	"github.com/omoide/omoide/omoidehttp"
)

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return inspectStore(ctx, args, stdout, stderr, serveHooks{})
}

// inspectStore is the inspect subcommand: the inspector alone over a store,
// on loopback, until ctx is done.
func inspectStore(ctx context.Context, args []string, stdout, stderr io.Writer, hooks serveHooks) error {
	fs := newFlagSet("inspect", stderr)
	sc := addStoreFlags(fs)
	sc.addRetrieveFlags(fs)
	addr := fs.String("addr", "127.0.0.1:8766", "the loopback `host:port` to listen on (port 0: any free one)")
	write := fs.Bool("write", false, "open the store for writing, so that memories can be deleted and people forgotten (default: read-only)")
	token := addTokenFlags(fs, "require this token, entered once in the browser")
	maxSens := fs.String("max-request-sensitivity", "normal", "the most private `level` shown, in lists, searches and retrievals (as serve's): normal, private or secret")
	tz := fs.String("tz", "Local", "the people's time `zone` for time expressions and evidence dates")
	setUsage(fs, "omoide inspect -db FILE [flags]", `Inspect serves the inspector over a store on loopback and prints its URL: the people, each
person's memories, and a message asked as that person, drawn as the pipeline sees it (each search's
hits, every candidate's score parts and probability, and why it was injected or not). The store is
opened read-only unless -write. "omoide serve" serves the same pages at /ui/ (docs/inspect.md).
`)
	if err := sc.parse(args); err != nil {
		return err
	}
	pack := sc.pack()
	ceiling, err := ceilingAndZone(*maxSens, *tz, &pack)
	if err != nil {
		return err
	}
	if !loopbackAddr(*addr) {
		return fmt.Errorf("%w: -addr %s: the inspector listens on loopback only (127.0.0.1:PORT, [::1]:PORT, localhost:PORT); to serve it further, use omoide serve with a token", errUsage, *addr)
	}
	tok, err := token.value()
	if err != nil {
		return err
	}
	sc.readOnly = sc.readOnly || !*write
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", *addr, err)
	}
	mem, err := sc.openMemory(ctx, true, pack)
	if err != nil {
		ln.Close()
		return err
	}
	mem.Store.Analyzer().Index("起動") // load the dictionary before the first page
	ui := inspect.New(mem, inspect.Config{Token: tok, MaxSensitivity: ceiling, ReadOnly: sc.readOnly})
	root := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			http.Redirect(w, r, inspect.DefaultBase, http.StatusSeeOther)
			return
		}
		http.Error(w, "omoide inspect: the inspector is at "+inspect.DefaultBase, http.StatusNotFound)
	})
	mode := "read-only"
	if !sc.readOnly {
		mode = "deletes and forgets allowed"
	}
	fmt.Fprintf(stdout, "omoide inspect: http://%s%s (%s, %s; Ctrl-C stops)\n", ln.Addr(), inspect.DefaultBase, sc.db, mode)
	serveErr := omoidehttp.Serve(ctx, ln, ui.Beside(root), omoidehttp.ServeOptions{Server: hooks.apply(ln.Addr())})
	if err := mem.Close(); err != nil {
		serveErr = errors.Join(serveErr, fmt.Errorf("close the store: %w", err))
	}
	return serveErr
}

// loopbackAddr reports whether addr (host:port, to listen on or bound)
// names loopback: localhost, or an IP address of 127.0.0.0/8 or ::1.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
