package omoidehttp

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/strictjson"
	"github.com/omoide/omoide/internal/wire"
)

func (s *Handler) addEpisodes(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.storeEpisodes(w, r, false)
}

// updateEpisodes is PUT /v1/episodes: as POST, but an episode whose (user,
// external id) is stored with other content replaces it (Memory.Update).
func (s *Handler) updateEpisodes(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.storeEpisodes(w, r, true)
}

// storeEpisodes decodes the body of POST and PUT /v1/episodes and stores
// them (Memory.Put, replacing other content when replace).
func (s *Handler) storeEpisodes(w http.ResponseWriter, r *http.Request, replace bool) (any, error) {
	raw, err := s.readBody(w, r)
	if err != nil {
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
		named(r, e.User)
	}
	for _, e := range eps {
		if err := s.owns(e.User); err != nil {
			return nil, err
		}
		if err := s.holds.check(w, r, e.User); err != nil {
			return nil, err
		}
	}
	res, err := s.mem.Put(r.Context(), replace, eps...)
	if err != nil {
		return nil, err
	}
	s.cfg.Logger.Debug("episodes stored", "added", res.Added, "replaced", res.Replaced, "present", res.Present)
	// Unsearched by default: what the preset's filter leaves out, and what
	// this server never returns (its ceiling).
	return Stored{IDs: res.IDs, Unsearched: wire.Unsearched(capped(s.mem.Retriever.Options().Filter, s.cfg.MaxRequestSensitivity), eps)}, nil
}

// decodeEpisodes decodes and validates the body of POST /v1/episodes (one
// JSON value, read within the body limit): a JSON array of episodes or
// {"episodes": [...]}. now stands in for a missing occurred_at; routed, when
// not "", is the person the request is routed by (routedUser), which fills a
// missing user and must be every episode's. Every error is a 400 naming the
// problem.
func decodeEpisodes(raw []byte, now time.Time, routed string) ([]episode.Episode, error) {
	var inputs []episode.Record
	switch b := bytes.TrimLeft(bytes.TrimPrefix(raw, []byte("\ufeff")), " \t\r\n"); {
	case len(b) > 0 && b[0] == '[':
		if err := strictjson.DecodeBytesAt(raw, "episodes", &inputs); err != nil {
			return nil, badRequest("invalid JSON body: %v", err)
		}
	case len(b) > 0 && b[0] == '{':
		var body struct {
			Episodes []episode.Record `json:"episodes"`
		}
		if err := strictjson.DecodeBytes(raw, &body); err != nil {
			return nil, badRequest("invalid JSON body: %v", err)
		}
		inputs = body.Episodes
	case len(b) == 0:
		return nil, badRequest(`empty body: want a JSON array of episodes, or {"episodes": [...]}`)
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

func (s *Handler) deleteEpisode(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 || r.PathValue("id")[0] == '+' {
		return nil, badRequest("episode id %q is not a positive integer", r.PathValue("id"))
	}
	user, routed, err := routedUser(r)
	if err != nil {
		return nil, err
	}
	// The person is named: a client that resolves dot segments sends a
	// person named ".." deleting their episode 18 (/v1/users/../episodes/18)
	// here, as /v1/episodes/18; without a name it could erase anyone's.
	if !routed {
		return nil, badRequest("DELETE /v1/episodes/%d needs the %s header naming whose episode it is", id, UserHeader)
	}
	// Only their episode (ids are never reused, nor move between people);
	// and a held person's is not deleted.
	e, err := s.mem.Store.Get(r.Context(), id)
	if errors.Is(err, episode.ErrNotFound) || err == nil && e.User != user {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode with id %d of user %q", id, user)}
	}
	if err != nil {
		return nil, err
	}
	// An episode held here is deleted here, whoever owns its person now
	// (Handler.person): ownership routes, it never keeps an erasure out.
	if err := s.holds.check(w, r, e.User); err != nil {
		return nil, err
	}
	d, err := s.mem.Delete(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if len(d.Episodes) == 0 {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode with id %d", id)}
	}
	return Deleted{Deleted: len(d.Episodes), ID: id}, nil
}

func (s *Handler) deleteExternal(w http.ResponseWriter, r *http.Request) (any, error) {
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
	d, err := s.mem.Delete(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if len(d.Episodes) == 0 { // deleted meanwhile
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no episode of user %q has external id %q", user, ext)}
	}
	return Deleted{Deleted: len(d.Episodes), ID: id}, nil
}

func (s *Handler) forget(w http.ResponseWriter, r *http.Request) (any, error) {
	user := r.PathValue("user")
	if err := confirmForget(r, user); err != nil {
		return nil, err
	}
	if err := s.holds.check(w, r, user); err != nil {
		return nil, err
	}
	er, err := s.mem.Forget(r.Context(), user)
	if err != nil {
		return nil, err
	}
	return Forgotten{User: user, Deleted: er.Episodes, BytesFreed: er.BytesFreed, Checkpointed: er.Checkpointed,
		Copies: ForgetCopies}, nil
}

// ForgetHeader confirms a forget: DELETE /v1/users/{user} erases the person
// only when this header names the path's person again, in UserHeader's wire
// form (EncodeUser). A delete whose path a client, proxy or template
// rewrote into the person's (DELETE /v1/users/kenji/episodes/.., an empty
// id) never carries it, so no rewritten delete becomes a forget.
const ForgetHeader = "X-Omoide-Forget"

// confirmForget refuses a forget of user that r does not confirm in
// ForgetHeader, saying how to.
func confirmForget(r *http.Request, user string) error {
	want := EncodeUser(user)
	switch got := r.Header.Values(ForgetHeader); {
	case len(got) == 0:
		return badRequest("DELETE /v1/users/{user} forgets the person, every memory and their name: confirm it with the header %s: %s (the path's person in the %s wire form); nothing was forgotten. To delete one episode: DELETE /v1/users/{user}/episodes/{external_id}", ForgetHeader, want, UserHeader)
	case len(got) > 1:
		return badRequest("the %s header is given %d times: name the path's person once; nothing was forgotten", ForgetHeader, len(got))
	case got[0] != want:
		return badRequest("the %s header does not name the path's person: send %s: %s (the %s wire form); nothing was forgotten", ForgetHeader, ForgetHeader, want, UserHeader)
	}
	return nil
}

// ForgetCopies says, in a forget's answer, what the forget does not reach at
// once and when it does: the copies taken before it (docs/scale-out.md,
// "Erasure in the replica"; docs/reliability.md, "Erasure in the copies").
const ForgetCopies = "copies taken before the forget keep the person: a Litestream replica set up as deploy/litestream.yml drops them within 27 h " +
	"(snapshot retention 24 h + 3 x interval 1 h); a backup keeps them until it is brought back with omoide restore, which forgets them again"

// MaxPage is the most episodes one page of GET /v1/users/{user}/episodes
// holds; defaultPage when the request names none.
const MaxPage, defaultPage = 1000, 100

// pageLimit is a listing's ?limit=N: 1 to MaxPage, defaultPage when absent.
func pageLimit(q url.Values) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return defaultPage, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxPage {
		return 0, badRequest("limit %q: want 1 to %d", v, MaxPage)
	}
	return n, nil
}

// listEpisodes is a person's episodes, page by page, in the records ingest
// reads: ?after=ID (the last page's next) and ?limit=N.
func (s *Handler) listEpisodes(w http.ResponseWriter, r *http.Request) (any, error) {
	user := r.PathValue("user")
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
	full := len(eps) == limit
	if n := pageCut(eps); n < len(eps) {
		eps, full = eps[:n], true
	}
	recs := make([]episode.Record, len(eps))
	for i, e := range eps {
		recs[i] = episode.RecordOf(e)
	}
	out := EpisodePage{User: user, Episodes: recs}
	if full {
		out.Next = &eps[len(eps)-1].ID
	}
	return out, nil
}

// MaxPageBytes bounds the text (texts, names, ids, sources) of one page of
// GET /v1/users/{user}/episodes: a page ends before the episode that would
// pass it, and always holds one. At MaxPage episodes of up to
// episode.MaxRecordBytes a page could otherwise be 17 MB.
const MaxPageBytes = 1 << 20

// pageCut returns how many of eps fit in a page of MaxPageBytes.
func pageCut(eps []episode.Episode) int {
	total := 0
	for i, e := range eps {
		total += len(e.UserText) + len(e.ReplyText) + len(e.User) + len(e.ExternalID) + len(e.Source)
		if total > MaxPageBytes && i > 0 {
			return i
		}
	}
	return len(eps)
}
