// Package inspect is omoide's inspector: a handler any Go program mounts
// (as "omoide serve" mounts it at /ui/) that shows in a browser a store's
// people, a person's memories, and a retrieval as a picture — each search's
// hits, the fused candidates with their score parts and probability, and
// why each was injected or not. Its pages are server-rendered html/template
// with every asset embedded: nothing is fetched from elsewhere, and no
// toolchain is needed beyond go build.
//
//	mem, _ := omoide.Open(ctx, omoide.Config{Path: "memory.db"})
//	ui := inspect.New(mem, inspect.Config{})
//	http.ListenAndServe("127.0.0.1:8765", ui.Beside(api)) // /ui/ to ui, the rest to api
//
// Beside, not a ServeMux: a ServeMux answers an unclean path with a redirect
// that clients follow with the same method.
package inspect

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/cleanpath"
	"github.com/omoide/omoide/internal/hosts"
	"github.com/omoide/omoide/retriever"
)

// DefaultBase is where New mounts the inspector when Config.Base is "".
const DefaultBase = "/ui/"

// DefaultRequestTimeout bounds one page's work when Config.RequestTimeout is
// 0.
const DefaultRequestTimeout = 30 * time.Second

// PageSize is how many people or memories a page lists.
const PageSize = 50

// MaxSearchPages bounds how deep a person's search pages: 20 pages of 50,
// best first, each page a search again.
const MaxSearchPages = 20

// cookieName holds a signed-in browser's session.
const cookieName = "omoide_inspect"

// Config configures New. Its zero value works: no token, mounted at /ui/,
// answering under loopback names only, normal episodes only, deletes and
// forgets allowed.
type Config struct {
	// Token is the bearer token the pages require; "" requires none. A
	// browser enters it once on the sign-in page and keeps a session for
	// SessionLifetime in an HttpOnly, SameSite=Strict cookie; a program
	// sends "Authorization: Bearer TOKEN".
	Token string
	// Hosts are the host names (or addresses, with or without a port) an
	// inspector without a Token answers under besides loopback ones
	// (localhost, *.localhost, 127.0.0.0/8, ::1); any other Host is a 421.
	// A page of another site that rebinds its name to this machine's
	// address sends its own name, so it can neither read nor change
	// anything here. With a Token every Host is answered: the token
	// decides.
	Hosts []string
	// Base is the path the handler is mounted at, ending in "/"; "" is
	// DefaultBase. Every link it renders starts with it.
	Base string
	// MaxSensitivity is the most private level shown: an episode above it
	// appears on no page, in no search, export or retrieval, as in
	// omoidehttp.Config.MaxRequestSensitivity. Its zero shows normal
	// episodes only.
	MaxSensitivity episode.Sensitivity
	// ReadOnly hides and refuses deleting a memory and forgetting a
	// person (a store opened read-only refuses them anyway).
	ReadOnly bool
	// RequestTimeout bounds one page's work; 0 is DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Now is the clock of a retrieval that names no time; nil is time.Now.
	Now func() time.Time
}

// Handler serves the inspector's pages over a Memory. It is safe for
// concurrent use. Deletes and forgets are POST forms, refused from another
// origin (http.CrossOriginProtection).
type Handler struct {
	mem      *omoide.Memory
	cfg      Config
	mux      *http.ServeMux
	sessions sessions // signed-in browsers
	failed   failures // wrong tokens, by client
	clock    func() time.Time
	cop      *http.CrossOriginProtection
	pages    map[string]*template.Template
	presets  sync.Map // preset name → *presetRetriever
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New returns the inspector over mem. The caller keeps mem open while the
// handler serves.
func New(mem *omoide.Memory, cfg Config) *Handler {
	cfg.Base = cmp.Or(cfg.Base, DefaultBase)
	if !strings.HasSuffix(cfg.Base, "/") {
		cfg.Base += "/"
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{mem: mem, cfg: cfg, mux: http.NewServeMux(), clock: time.Now, cop: http.NewCrossOriginProtection()}
	h.pages = parsePages(h)
	b := cfg.Base
	h.mux.HandleFunc("GET "+b+"static/{name}", h.static)
	h.mux.HandleFunc("GET "+b+"{$}", h.page(h.people))
	h.mux.HandleFunc("GET "+b+"signin", h.signinPage)
	h.mux.HandleFunc("POST "+b+"signin", h.signin)
	h.mux.HandleFunc("POST "+b+"signout", h.signout)
	h.mux.HandleFunc("GET "+b+"people/{user}", h.page(h.person))
	h.mux.HandleFunc("GET "+b+"people/{user}/episodes/{id}", h.page(h.detail))
	h.mux.HandleFunc("POST "+b+"people/{user}/episodes/{id}/delete", h.page(h.deleteEpisode))
	h.mux.HandleFunc("POST "+b+"people/{user}/episodes/{id}/edit", h.page(h.editEpisode))
	h.mux.HandleFunc("POST "+b+"people/{user}/forget", h.page(h.forget))
	h.mux.HandleFunc("GET "+b+"people/{user}/export.jsonl", h.export)
	h.mux.HandleFunc("GET "+b+"ask", h.page(h.ask))
	h.mux.HandleFunc(b, func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusNotFound, "error", errorView{Title: "Not found", Message: fmt.Sprintf("The inspector has no page %s.", r.URL.Path)})
	})
	return h
}

// ServeHTTP sets the pages' security headers, refuses an unclean path and
// a Host it does not answer under, requires the token (but for the sign-in
// page and the static assets), refuses a form from another origin, and
// routes the request. It answers with a redirect only within its own
// pages, and always a 303, which a client follows with a GET: to sign in,
// after signing in or out, and after a form.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// Scripts and styles from this handler only: an episode's text can
	// never run, even if a template failed to escape it.
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer") // the ask page's URL holds a message
	hd.Set("Cache-Control", "no-store")
	if err := cleanpath.Check(r.URL.EscapedPath(), r.URL.EscapedPath() == h.cfg.Base); err != nil {
		// ServeMux would redirect to the cleaned path, with the same method.
		h.render(w, r, http.StatusBadRequest, "error", errorView{Title: "Bad request", Message: "No page here: " + err.Error() + "."})
		return
	}
	if h.cfg.Token == "" && !hosts.Allowed(r.Host, h.cfg.Hosts) {
		h.render(w, r, http.StatusMisdirectedRequest, "error", errorView{Title: "Not this address",
			Message: "This inspector has no token, so it answers only at the addresses it was started for (127.0.0.1, localhost): a page of another site may have given its own name this machine's address. Open it at http://127.0.0.1 or http://localhost, or give it a token."})
		return
	}
	if r.URL.Path == strings.TrimSuffix(h.cfg.Base, "/") {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.render(w, r, http.StatusNotFound, "error", errorView{Title: "Not found", Message: "The inspector is at " + h.cfg.Base + "."})
			return
		}
		http.Redirect(w, r, h.cfg.Base, http.StatusSeeOther)
		return
	}
	if err := h.cop.Check(r); err != nil {
		h.render(w, r, http.StatusForbidden, "error", errorView{Title: "Refused", Message: "A form from another site may not change memories here: " + err.Error()})
		return
	}
	open := r.URL.Path == h.cfg.Base+"signin" || strings.HasPrefix(r.URL.Path, h.cfg.Base+"static/")
	if h.cfg.Token != "" && !open && !h.admit(w, r) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.RequestTimeout)
	defer cancel()
	h.mux.ServeHTTP(w, r.WithContext(ctx))
}

// admit reports whether r carries the token, as a bearer header or a
// session's cookie, and answers r itself when it does not: the sign-in page
// for a browser's GET, else 401; 429 for a bearer from an address that gave
// too many wrong tokens lately, unread (the right one too: a guess learns
// nothing), and a wrong bearer counts as one.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) bool {
	tok, bearer := bearerOf(r)
	switch {
	case bearer && h.tooMany(w, r):
		return false
	case bearer && h.tokenIs(tok):
		return true
	case bearer:
		h.failed.fail(clientOf(r), h.clock())
	case h.session(r):
		return true
	case r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, ".jsonl"):
		http.Redirect(w, r, h.cfg.Base+"signin?next="+queryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="omoide"`)
	h.render(w, r, http.StatusUnauthorized, "error", errorView{Title: "Sign in", Message: "This inspector needs its token: sign in first."})
	return false
}

// Beside returns a handler that serves the inspector at its Base, every
// path under it and Base without its final slash, and rest at every other
// path, choosing by the path's prefix alone. A ServeMux holding both would
// answer an unclean path ("//", "..") with a redirect to its cleaned form,
// which clients follow with the same method, before either could refuse
// it; each refuses one itself (rest as omoidehttp.Handler does).
func (h *Handler) Beside(rest http.Handler) http.Handler {
	base := h.cfg.Base
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, base) || r.URL.Path == strings.TrimSuffix(base, "/") {
			h.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	})
}

// bearerOf returns the token of r's Authorization header, and whether it
// has one.
func bearerOf(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return tok, ok && strings.EqualFold(scheme, "Bearer")
}

// authorized reports whether r carries the token, as a bearer header, or a
// session's cookie (signin.go).
func (h *Handler) authorized(r *http.Request) bool {
	if tok, ok := bearerOf(r); ok {
		return h.tokenIs(tok)
	}
	return h.session(r)
}

// session reports whether r carries the cookie of a session that has not
// ended.
func (h *Handler) session(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	return err == nil && h.sessions.valid(c.Value, h.clock())
}

// static serves the embedded script and style sheet by name: no listing of
// the folder and no redirect, which http.FileServer makes of some names.
func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil || strings.ContainsAny(name, "/\\") {
		h.render(w, r, http.StatusNotFound, "error", errorView{Title: "Not found", Message: fmt.Sprintf("The inspector has no file %q.", name)})
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// statusError is an error shown as a page with its status.
type statusError struct {
	status int
	title  string
	msg    string
}

func (e *statusError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &statusError{http.StatusNotFound, "Not found", fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &statusError{http.StatusBadRequest, "Bad request", fmt.Sprintf(format, args...)}
}

// view is what a page handler returns: the template to render, its data and
// status, or a redirect.
type view struct {
	name     string
	data     any
	status   int
	redirect string
}

// page adapts a page handler: its view rendered, or its error as a page.
func (h *Handler) page(f func(r *http.Request) (view, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := f(r)
		if err != nil {
			var se *statusError
			if !errors.As(err, &se) {
				se = &statusError{http.StatusInternalServerError, "Error", err.Error()}
				if errors.Is(err, context.DeadlineExceeded) {
					se.status, se.title = http.StatusServiceUnavailable, "Too slow"
				}
			}
			h.render(w, r, se.status, "error", errorView{Title: se.title, Message: se.msg})
			return
		}
		if v.redirect != "" {
			http.Redirect(w, r, v.redirect, http.StatusSeeOther)
			return
		}
		h.render(w, r, cmp.Or(v.status, http.StatusOK), v.name, v.data)
	}
}

// errorView is the error page's data.
type errorView struct {
	Title, Message string
}

// layout is what every page's frame shows.
type layout struct {
	Base       string
	Title      string
	SignedIn   bool // a token is required and this browser holds it: a sign-out button
	About      bool // the store's file, embedder, analyzer and ceiling are shown: to one who may see the pages
	Store      string
	Embedder   string
	Analyzer   string
	Decision   string
	Ceiling    episode.Sensitivity
	ReadOnly   bool
	Page       any
	Generated  time.Duration
	generating time.Time
}

// render writes the page name with data inside the layout.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	t := h.pages[name]
	l := layout{Base: h.cfg.Base, Title: titleOf(name, data), Page: data}
	if h.cfg.Token != "" {
		l.SignedIn = h.authorized(r)
		l.About = l.SignedIn
	} else {
		l.About = hosts.Allowed(r.Host, h.cfg.Hosts)
	}
	if l.About {
		meta := h.mem.Store.Meta()
		l.Store, l.Embedder, l.Analyzer = h.mem.Store.Path(), meta.Embedder.String(), meta.Analyzer
		l.Decision, l.Ceiling, l.ReadOnly = h.mem.Retriever.Decision(), h.cfg.MaxSensitivity, h.readOnly()
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", l); err != nil {
		http.Error(w, "inspector: render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprint(w, b.String())
}

// readOnly reports whether deleting and forgetting are off.
func (h *Handler) readOnly() bool { return h.cfg.ReadOnly || h.mem.Store.ReadOnly() }

// titled is a page's data that names its title.
type titled interface{ PageTitle() string }

func titleOf(name string, data any) string {
	if t, ok := data.(titled); ok {
		return t.PageTitle()
	}
	if e, ok := data.(errorView); ok {
		return e.Title
	}
	return name
}

func (e errorView) PageTitle() string { return e.Title }

// capped is f showing no more than the ceiling.
func (h *Handler) capped(f retriever.Filter) retriever.Filter {
	f.MaxSensitivity = min(f.MaxSensitivity, h.cfg.MaxSensitivity)
	return f
}
