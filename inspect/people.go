package inspect

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
)

// peopleView is the people page's data.
type peopleView struct {
	Filter string
	People []sqlite.PersonActivity
	Next   string // the next page's URL, "" on the last
	Flash  string
}

func (v peopleView) PageTitle() string { return "People" }

// people lists the store's people, PageSize at a time, in byte order of
// their names, those holding the filter's text only.
func (h *Handler) people(r *http.Request) (view, error) {
	q := r.URL.Query()
	v := peopleView{Filter: q.Get("q"), Flash: flash(q)}
	ps, err := h.mem.Store.PeopleWith(r.Context(), sqlite.PeopleQuery{After: q.Get("after"), Contains: v.Filter, MaxSensitivity: h.cfg.MaxSensitivity, Limit: PageSize + 1})
	if err != nil {
		return view{}, err
	}
	if len(ps) > PageSize {
		ps = ps[:PageSize]
		v.Next = h.cfg.Base + "?" + url.Values{"q": {v.Filter}, "after": {ps[len(ps)-1].User}}.Encode()
	}
	v.People = ps
	return view{name: "people", data: v}, nil
}

// personView is a person's page's data.
type personView struct {
	User     string
	Path     string // the person's page
	Shown    int    // the person's episodes up to the ceiling
	Ceiling  episode.Sensitivity
	Search   string
	Memories []memory
	Next     string // the next (older) page's URL
	Newest   bool   // a later page: a link back to the newest
	Prev     string // a search's page before
	From0    int    // the first match's place on a search page (1, 51, ...)
	To0      int    // the last's
	// Kind, State, From and To narrow the page (their form's values: a
	// kind's and a state's name, days in the inspector's zone); Kinds and
	// States are the choices; FilterErr says what is wrong with one.
	Kind, State, From, To string
	Kinds, States         []string
	FilterErr             string
	Flash                 string
	ReadOnly              bool
}

func (v personView) PageTitle() string { return v.User }

// memory is one episode as a page shows it: its texts clipped, the whole of
// them on its detail page.
type memory struct {
	episode.Episode
	User, Reply      string // clipped
	Clipped          bool
	Detail, Delete   string // its detail page, its delete form's action
	Edit             string // its edit form's action
	Kind, Sens, Stat string
}

// clipRunes is how much of a text a list shows.
const clipRunes = 280

func (h *Handler) memoryOf(e episode.Episode) memory {
	m := memory{Episode: e, Kind: e.Kind.String(), Sens: e.Sensitivity.String(), Stat: e.State.String()}
	var cu, cr bool
	m.User, cu = clip(e.UserText, clipRunes)
	m.Reply, cr = clip(e.ReplyText, clipRunes)
	m.Clipped = cu || cr
	base := h.personPath(e.User) + "/episodes/" + strconv.FormatInt(e.ID, 10)
	m.Detail, m.Delete, m.Edit = base, base+"/delete", base+"/edit"
	return m
}

// clip returns s cut to n runes, and whether it was cut.
func clip(s string, n int) (string, bool) {
	i := 0
	for j := range s {
		if i == n {
			return s[:j], true
		}
		i++
	}
	return s, false
}

// personPath is the URL path of user's page: the name in the user header's
// wire form (percent-encoded UTF-8; omoidehttp.EncodeUser), with the bytes
// a path cannot hold as they are escaped too.
func (h *Handler) personPath(user string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString(h.cfg.Base + "people/")
	for i := 0; i < len(user); i++ {
		c := user[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`%"#<>?[\]^`+"`{|}/;", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// user returns the person the path names, who must hold an episode the
// ceiling shows, and how many: a person whose memories are all above it is
// as absent.
func (h *Handler) user(r *http.Request) (string, int, error) {
	user := r.PathValue("user")
	if err := episode.CheckStoredUser(user); err != nil {
		return "", 0, badRequest("The path names no person: %s.", strings.TrimPrefix(err.Error(), "user "))
	}
	n, err := h.mem.Store.CountUpTo(r.Context(), user, h.cfg.MaxSensitivity)
	if err != nil {
		return "", 0, err
	}
	if n == 0 {
		return "", 0, notFound("No person named %q is stored here.", user)
	}
	return user, n, nil
}

// person shows one person's memories newest first, PageSize at a time, or
// those a search finds.
func (h *Handler) person(r *http.Request) (view, error) {
	user, shown, err := h.user(r)
	if err != nil {
		return view{}, err
	}
	q := r.URL.Query()
	v := personView{User: user, Path: h.personPath(user), Shown: shown, Search: strings.TrimSpace(q.Get("q")), Flash: flash(q), ReadOnly: h.readOnly(),
		Ceiling: h.cfg.MaxSensitivity, Kinds: []string{"episode", "fact", "summary", "loop"}, States: []string{"raw", "validated", "consolidated", "archived"}}
	var eps []episode.Episode
	if v.Search != "" {
		// Page p of the matches, best first: the first p pages read again
		// (a search is one BM25 query; MaxSearchPages bounds the work).
		p := 1
		if ps := q.Get("page"); ps != "" {
			if p, err = strconv.Atoi(ps); err != nil || p < 1 || p > MaxSearchPages {
				return view{}, badRequest("%q is no page: a search shows pages 1 to %d.", ps, MaxSearchPages)
			}
		}
		eps, err = h.mem.Store.Search(r.Context(), user, v.Search, h.cfg.MaxSensitivity, p*PageSize+1)
		if err != nil {
			return view{}, err
		}
		v.From0 = (p-1)*PageSize + 1
		if len(eps) > p*PageSize {
			eps = eps[:p*PageSize]
			if p < MaxSearchPages {
				v.Next = v.Path + "?" + url.Values{"q": {v.Search}, "page": {strconv.Itoa(p + 1)}}.Encode()
			}
		}
		if p > 1 {
			v.Prev = v.Path + "?" + url.Values{"q": {v.Search}, "page": {strconv.Itoa(p - 1)}}.Encode()
		}
		eps = eps[min(len(eps), (p-1)*PageSize):]
		v.To0 = v.From0 + len(eps) - 1
	} else {
		cursor := func(k string) (sqlite.Cursor, bool, error) {
			c := q.Get(k)
			if c == "" {
				return sqlite.Cursor{}, false, nil
			}
			cur, err := sqlite.ParseCursor(c)
			if err != nil {
				return cur, false, badRequest("The page's cursor is not one this inspector wrote: %v.", err)
			}
			return cur, true, nil
		}
		after, older, err := cursor("after")
		if err != nil {
			return view{}, err
		}
		before, newer, err := cursor("before")
		if err != nil {
			return view{}, err
		}
		f, keep, ferr := h.pageFilter(q, &v)
		if ferr != "" {
			v.FilterErr = ferr
			return view{name: "person", data: v, status: http.StatusBadRequest}, nil
		}
		link := func(k string, e episode.Episode) string {
			l := url.Values{}
			for key, vals := range keep {
				l[key] = vals
			}
			l.Set(k, sqlite.CursorOf(e).String())
			return v.Path + "?" + l.Encode()
		}
		switch {
		case newer: // the page before: the PageSize just newer than the cursor
			if eps, err = h.mem.Store.NewerWhere(r.Context(), user, before, f, PageSize+1); err != nil {
				return view{}, err
			}
			if len(eps) > PageSize {
				eps = eps[1:] // the newest one read shows that more are newer
				v.Prev = link("before", eps[0])
			}
			v.Newest = len(eps) > 0 && v.Prev != ""
			if len(eps) > 0 {
				v.Next = link("after", eps[len(eps)-1])
			}
		default:
			if eps, err = h.mem.Store.NewestWhere(r.Context(), user, after, f, PageSize+1); err != nil {
				return view{}, err
			}
			if len(eps) > PageSize {
				eps = eps[:PageSize]
				v.Next = link("after", eps[len(eps)-1])
			}
			if older && len(eps) > 0 {
				v.Newest, v.Prev = true, link("before", eps[0])
			}
		}
	}
	if err != nil {
		return view{}, err
	}
	for _, e := range eps {
		v.Memories = append(v.Memories, h.memoryOf(e))
	}
	return view{name: "person", data: v}, nil
}

// detailView is one memory's page.
type detailView struct {
	memory
	Person   string // the person's page
	Ask      string // the ask page, about to say why not this one
	ReadOnly bool
	Flash    string
}

func (v detailView) PageTitle() string { return fmt.Sprintf("Memory %d", v.ID) }

// episode returns the episode the path names, which must be the path's
// person's and shown by the ceiling.
func (h *Handler) episode(r *http.Request) (string, episode.Episode, error) {
	user, _, err := h.user(r)
	if err != nil {
		return "", episode.Episode{}, err
	}
	id, err := pathID(r)
	if err != nil {
		return "", episode.Episode{}, err
	}
	e, err := h.mem.Store.Get(r.Context(), id)
	if errors.Is(err, episode.ErrNotFound) || err == nil && !h.shows(user, e) {
		return "", episode.Episode{}, notFound("%s has no memory %d.", user, id)
	}
	return user, e, err
}

// pathID is the episode id the path names.
func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("%q is no episode id: an id is a positive whole number.", r.PathValue("id"))
	}
	return id, nil
}

// shows reports whether e is user's and the ceiling shows it: another
// person's episode, or one above the ceiling, is as absent.
func (h *Handler) shows(user string, e episode.Episode) bool {
	return e.User == user && e.Sensitivity <= h.cfg.MaxSensitivity
}

// refuseReadOnly is the error of a change asked of a read-only inspector;
// what says what would have changed.
func (h *Handler) refuseReadOnly(what string) error {
	if !h.readOnly() {
		return nil
	}
	return &statusError{http.StatusForbidden, "Read-only", "This inspector is read-only: " + what + " (omoide inspect -write allows it)."}
}

func (h *Handler) detail(r *http.Request) (view, error) {
	user, e, err := h.episode(r)
	if err != nil {
		return view{}, err
	}
	m := h.memoryOf(e)
	m.User, m.Reply, m.Clipped = e.UserText, e.ReplyText, false
	return view{name: "detail", data: detailView{memory: m, Person: h.personPath(user), ReadOnly: h.readOnly(),
		Ask: h.cfg.Base + "ask?" + url.Values{"user": {user}, "why": {strconv.FormatInt(e.ID, 10)}}.Encode(), Flash: flash(r.URL.Query())}}, nil
}

// deleteEpisode deletes one memory and goes back to the person's page,
// saying so; a memory already gone is said to be, and nothing changes.
func (h *Handler) deleteEpisode(r *http.Request) (view, error) {
	if err := h.refuseReadOnly("nothing is deleted"); err != nil {
		return view{}, err
	}
	user, _, err := h.user(r)
	if err != nil {
		return view{}, err
	}
	id, err := pathID(r)
	if err != nil {
		return view{}, err
	}
	back := h.personPath(user) + "?" + url.Values{"id": {strconv.FormatInt(id, 10)}}.Encode() + "&done="
	e, err := h.mem.Store.Get(r.Context(), id)
	switch {
	case errors.Is(err, episode.ErrNotFound):
		return view{redirect: back + doneGone}, nil
	case err != nil:
		return view{}, err
	case !h.shows(user, e):
		return view{}, notFound("%s has no memory %d.", user, id)
	}
	d, err := h.mem.Delete(r.Context(), id)
	if err != nil {
		return view{}, err
	}
	if len(d.Episodes) == 0 {
		return view{redirect: back + doneGone}, nil
	}
	return view{redirect: back + doneDeleted}, nil
}

// editEpisode replaces one memory's texts as the API's PUT does
// (Memory.Update, by its external id: the new version gets a new id, the old
// one is erased) and goes to the new version's page. A memory without an
// external id cannot be replaced so: its page says so.
func (h *Handler) editEpisode(r *http.Request) (view, error) {
	if err := h.refuseReadOnly("nothing is edited"); err != nil {
		return view{}, err
	}
	user, e, err := h.episode(r)
	if err != nil {
		return view{}, err
	}
	if e.ExternalID == "" {
		return view{}, badRequest("Memory %d has no external id: an edit replaces a memory by its external id, as the API's PUT does; delete it and store the new text instead.", e.ID)
	}
	ne := e
	ne.ID, ne.UserText, ne.ReplyText = 0, r.PostFormValue("user_text"), r.PostFormValue("reply_text")
	if strings.TrimSpace(ne.UserText) == "" && strings.TrimSpace(ne.ReplyText) == "" {
		return view{}, badRequest("Write what the person said, or the reply: a memory holds a text.")
	}
	if ne.UserText == e.UserText && ne.ReplyText == e.ReplyText {
		return view{redirect: h.personPath(user) + "/episodes/" + strconv.FormatInt(e.ID, 10) + "?done=" + doneUnchanged}, nil
	}
	ids, err := h.mem.Update(r.Context(), ne)
	if errors.Is(err, episode.ErrTooLong) {
		return view{}, badRequest("Too long: %v.", err)
	}
	if err != nil {
		return view{}, err
	}
	return view{redirect: h.personPath(user) + "/episodes/" + strconv.FormatInt(ids[0], 10) + "?" +
		url.Values{"done": {doneEdited}, "was": {strconv.FormatInt(e.ID, 10)}}.Encode()}, nil
}

// forget forgets a person, when the form's confirmation is their name.
func (h *Handler) forget(r *http.Request) (view, error) {
	if err := h.refuseReadOnly("nobody is forgotten"); err != nil {
		return view{}, err
	}
	user, _, err := h.user(r)
	if err != nil {
		return view{}, err
	}
	if r.PostFormValue("confirm") != user {
		return view{redirect: h.personPath(user) + "?done=" + doneUnconfirmed}, nil
	}
	e, err := h.mem.Forget(r.Context(), user)
	if err != nil {
		return view{}, err
	}
	// The name stays out of the URL, which the browser's history keeps.
	return view{redirect: h.cfg.Base + "?" + url.Values{"n": {strconv.Itoa(e.Episodes)}, "done": {doneForgot}}.Encode()}, nil
}

// What a form did, as the page it leads to says it: the URL carries a code
// and a number, never text, so that no link can put words in the
// inspector's mouth.
const (
	doneDeleted     = "deleted"
	doneGone        = "gone"
	doneForgot      = "forgot"
	doneUnconfirmed = "unconfirmed"
	doneEdited      = "edited"
	doneUnchanged   = "unchanged"
)

// flash returns the message of the code q's done names, "" for none or an
// unknown one.
func flash(q url.Values) string {
	num := func(k string) (int64, bool) {
		n, err := strconv.ParseInt(q.Get(k), 10, 64)
		return n, err == nil && n >= 0
	}
	switch q.Get("done") {
	case doneDeleted:
		if id, ok := num("id"); ok {
			return fmt.Sprintf("Deleted memory %d, its text erased from the store's file.", id)
		}
	case doneGone:
		if id, ok := num("id"); ok {
			return fmt.Sprintf("Memory %d was already gone: nothing was deleted.", id)
		}
	case doneForgot:
		if n, ok := num("n"); ok {
			return fmt.Sprintf("Forgot the person: %s and the name erased.", count(int(n), "memory", "memories"))
		}
	case doneUnconfirmed:
		return "Not forgotten: type the person's name exactly as it is shown to confirm."
	case doneEdited:
		if id, ok := num("was"); ok {
			return fmt.Sprintf("Edited: memory %d replaced by this one, its old text erased from the store's file.", id)
		}
	case doneUnchanged:
		return "Not edited: the texts are as they were."
	}
	return ""
}

// export writes the person's memories that the ceiling shows as the JSON
// Lines ingest reads.
func (h *Handler) export(w http.ResponseWriter, r *http.Request) {
	user, _, err := h.user(r)
	if err != nil {
		h.page(func(*http.Request) (view, error) { return view{}, err })(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="memories.jsonl"`)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var after sqlite.Cursor
	for {
		eps, err := h.mem.Store.Newest(r.Context(), user, after, h.cfg.MaxSensitivity, 1000)
		if err != nil {
			return // the status is sent: the body ends short
		}
		for _, e := range eps {
			if enc.Encode(episode.RecordOf(e)) != nil {
				return
			}
		}
		if len(eps) < 1000 {
			return
		}
		after = sqlite.Cursor{OccurredAt: eps[len(eps)-1].OccurredAt, ID: eps[len(eps)-1].ID}
	}
}

func queryEscape(s string) string { return url.QueryEscape(s) }

// ago says how long before now t was, roughly.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in the future"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%d days ago", int(d.Hours()/24))
	case d < 730*24*time.Hour:
		return fmt.Sprintf("%d months ago", int(d.Hours()/24/30))
	}
	return fmt.Sprintf("%d years ago", int(d.Hours()/24/365))
}

// pageFilter reads the person page's kind, state, from and to into a
// filter (the days in the inspector's zone, to inclusive), keeps their
// values in v for the form and returns them as the query a next page keeps,
// or says what is wrong with one.
func (h *Handler) pageFilter(q url.Values, v *personView) (sqlite.PageFilter, url.Values, string) {
	f := sqlite.PageFilter{MaxSensitivity: h.cfg.MaxSensitivity}
	keep := url.Values{}
	v.Kind, v.State, v.From, v.To = q.Get("kind"), q.Get("state"), q.Get("from"), q.Get("to")
	if v.Kind != "" {
		k, err := episode.ParseKind(v.Kind)
		if err != nil {
			return f, nil, err.Error()
		}
		f.Kinds = []episode.Kind{k}
		keep.Set("kind", v.Kind)
	}
	if v.State != "" {
		st, err := episode.ParseState(v.State)
		if err != nil {
			return f, nil, err.Error()
		}
		f.States = []episode.State{st}
		keep.Set("state", v.State)
	}
	day := func(s, what string) (time.Time, string) {
		t, err := time.ParseInLocation("2006-01-02", s, h.zone())
		if err != nil {
			return t, fmt.Sprintf("%q is no day for %s: write 2025-07-22.", s, what)
		}
		return t, ""
	}
	if v.From != "" {
		t, why := day(v.From, "from")
		if why != "" {
			return f, nil, why
		}
		f.Since = t
		keep.Set("from", v.From)
	}
	if v.To != "" {
		t, why := day(v.To, "to")
		if why != "" {
			return f, nil, why
		}
		f.Until = t.AddDate(0, 0, 1)
		keep.Set("to", v.To)
	}
	return f, keep, ""
}
