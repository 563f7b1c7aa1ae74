package omoidehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
	gc "github.com/omoide/omoide/omoidehttp/internal/genclient"
)

// genNames are people named in every script, and with the characters a
// URL or a header treats specially: each is a person of their own.
var genNames = []string{
	"mika", "Zoë", "はるか", "王小明", "김민지", "Наташа", "فاطمة", "mika tanaka",
	"50%", "a+b", "why?", "#1", "tom&jerry", "semi;colon", "a.b", "...", "%41", "Mika",
}

// genRefused are names the rule refuses (episode.CheckUser): what a client
// or a header would change, or cannot carry.
var genRefused = []string{"..", ".", "a/b", `a\b`, " mika", "mika ", "mi\x01ka", strings.Repeat("a", 257)}

// genServer serves a new store over TCP with the default Config until the
// test ends, and returns its URL.
func genServer(t testing.TB) string {
	t.Helper()
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	h := omoidehttp.NewHandler(mem, omoidehttp.Config{})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })
	return srv.URL
}

// genClient is the client oapi-codegen makes from docs/openapi.json, over
// rt (nil: Go's default transport).
func genClient(t testing.TB, url string, rt http.RoundTripper) *gc.ClientWithResponses {
	t.Helper()
	if rt == nil {
		rt = http.DefaultTransport
	}
	c, err := gc.NewClientWithResponses(url, gc.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ptr is a pointer to v, for the generated types' optional fields.
func ptr[T any](v T) *T { return &v }

// marker is the word only person i's episodes hold.
func marker(i int) string { return fmt.Sprintf("zq%dmarkqz", i) }

// record is an episode of user holding their marker.
func record(user, ext string, i int) gc.Record {
	return gc.Record{Id: ptr(ext), User: ptr(user), UserText: ptr("秘密の合言葉はあおぞらペンギン " + marker(i)),
		ReplyText: ptr("覚えたよ"), OccurredAt: ptr(time.Date(2026, 2, 20, 10, 0, 0, 0, time.UTC))}
}

// episodes is the body of a store: recs as a JSON array.
func episodes(t *testing.T, recs ...gc.Record) gc.Episodes {
	t.Helper()
	var e gc.Episodes
	if err := e.FromEpisodes0(recs); err != nil {
		t.Fatal(err)
	}
	return e
}

// genAsk is a retrieval of the secret, with candidates, as of the
// episodes' month.
func genAsk() gc.RetrieveRequest {
	return gc.RetrieveRequest{Text: "合言葉なんだっけ", Recent: &[]gc.Message{}, WithCandidates: ptr(true),
		Now: ptr(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))}
}

// TestGeneratedClient drives a live server only through the client
// generated from docs/openapi.json, for people named in every script and
// with URL and header specials: each stores, retrieves, packs, exports,
// deletes by id and by external id, is held and released, and is
// forgotten, seeing only their own memory throughout; a forget leaves
// nothing. Names the rule refuses get 400 (4xx where the client itself
// turns a dot segment into another path) and reach no one.
func TestGeneratedClient(t *testing.T) {
	ctx := context.Background()
	c := genClient(t, genServer(t), nil)
	type person struct {
		name, as string // as: the header's wire form
		ids      []int  // stored, the first by the path, the second by the header
	}
	people := make([]*person, len(genNames))
	for i, name := range genNames {
		p := &person{name: name, as: omoidehttp.EncodeUser(name)}
		people[i] = p
		byPath, err := c.PostV1UsersUserEpisodesWithResponse(ctx, name, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &p.as}, episodes(t, record(name, "p1", i)))
		if err != nil || byPath.JSON200 == nil {
			t.Fatalf("%q: POST /v1/users/{user}/episodes: %v %s", name, err, body(byPath))
		}
		byHeader, err := c.PostV1EpisodesWithResponse(ctx, &gc.PostV1EpisodesParams{XOmoideUser: &p.as}, episodes(t, record(name, "p2", i), record("", "p3", i)))
		if err != nil || byHeader.JSON200 == nil {
			t.Fatalf("%q: POST /v1/episodes: %v %s", name, err, body(byHeader))
		}
		p.ids = append(byPath.JSON200.Ids, byHeader.JSON200.Ids...)
		if len(p.ids) != 3 {
			t.Fatalf("%q: stored ids %v, want 3", name, p.ids)
		}
	}

	// Each sees their own three episodes and no one else's, every way.
	for i, p := range people {
		q := genAsk()
		q.User = &p.name
		res, err := c.PostV1RetrieveWithResponse(ctx, &gc.PostV1RetrieveParams{XOmoideUser: &p.as}, q)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("%q: POST /v1/retrieve: %v %s", p.name, err, body(res))
		}
		checkOwn(t, p.name, "retrieve", i, res.Body, append(res.JSON200.Hits, deref(res.JSON200.Candidates)...))
		byPath, err := c.PostV1UsersUserRetrieveWithResponse(ctx, p.name, &gc.PostV1UsersUserRetrieveParams{XOmoideUser: &p.as}, genAsk())
		if err != nil || byPath.JSON200 == nil {
			t.Fatalf("%q: POST /v1/users/{user}/retrieve: %v %s", p.name, err, body(byPath))
		}
		checkOwn(t, p.name, "retrieve by path", i, byPath.Body, append(byPath.JSON200.Hits, deref(byPath.JSON200.Candidates)...))
		pq := gc.PackRequest{Text: "合言葉なんだっけ", Recent: &[]gc.Message{}, Now: genAsk().Now, Strategy: ptr(gc.Full)}
		pack, err := c.PostV1UsersUserPackWithResponse(ctx, p.name, &gc.PostV1UsersUserPackParams{XOmoideUser: &p.as}, pq)
		if err != nil || pack.JSON200 == nil {
			t.Fatalf("%q: POST /v1/users/{user}/pack: %v %s", p.name, err, body(pack))
		}
		checkOwn(t, p.name, "pack", i, pack.Body, pack.JSON200.Hits)
		if !strings.Contains(pack.JSON200.Section, marker(i)) {
			t.Errorf("%q: the packed section quotes none of their episodes: %q", p.name, pack.JSON200.Section)
		}
		page := genExport(t, c, p.name, p.as)
		if len(page) != 3 {
			t.Errorf("%q: exported %d episodes, want 3", p.name, len(page))
		}
		for _, r := range page {
			if r.User == nil || *r.User != p.name || !strings.Contains(*r.UserText, marker(i)) {
				t.Errorf("%q: exported %q's %q", p.name, deref(r.User), deref(r.UserText))
			}
		}
	}

	// The names the rule refuses: 400, or another 4xx where the client
	// resolved a dot segment into another route; mika's memory stays whole.
	mika := people[0]
	for _, bad := range genRefused {
		as := omoidehttp.EncodeUser(bad)
		id := mika.ids[0]
		statuses := map[string]int{}
		if r, err := c.PostV1UsersUserEpisodesWithResponse(ctx, bad, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &as}, episodes(t, record("", "x", 0))); err == nil {
			statuses["add"] = r.StatusCode()
		}
		if r, err := c.PostV1UsersUserRetrieveWithResponse(ctx, bad, &gc.PostV1UsersUserRetrieveParams{XOmoideUser: &as}, genAsk()); err == nil {
			statuses["retrieve"] = r.StatusCode()
			if strings.Contains(string(r.Body), marker(0)) {
				t.Errorf("%q: retrieve answered mika's episode: %s", bad, r.Body)
			}
		}
		if r, err := c.GetV1UsersUserEpisodesWithResponse(ctx, bad, &gc.GetV1UsersUserEpisodesParams{XOmoideUser: &as}); err == nil {
			statuses["export"] = r.StatusCode()
			if strings.Contains(string(r.Body), marker(0)) {
				t.Errorf("%q: export answered mika's episode: %s", bad, r.Body)
			}
		}
		if r, err := c.DeleteV1UsersUserEpisodesExternalIdWithResponse(ctx, bad, fmt.Sprint(id), &gc.DeleteV1UsersUserEpisodesExternalIdParams{XOmoideUser: &as}); err == nil {
			statuses["delete by external id"] = r.StatusCode()
		}
		if r, err := c.DeleteV1EpisodesIdWithResponse(ctx, id, &gc.DeleteV1EpisodesIdParams{XOmoideUser: as}); err == nil {
			statuses["delete by id"] = r.StatusCode()
		}
		if r, err := c.PostV1UsersUserHoldWithResponse(ctx, bad, &gc.PostV1UsersUserHoldParams{XOmoideUser: &as}, gc.HoldRequest{}); err == nil {
			statuses["hold"] = r.StatusCode()
		}
		if r, err := c.DeleteV1UsersUserWithResponse(ctx, bad, &gc.DeleteV1UsersUserParams{XOmoideUser: &as, XOmoideForget: as}); err == nil {
			statuses["forget"] = r.StatusCode()
		}
		dots := bad == "." || bad == ".."
		for op, code := range statuses {
			if code != http.StatusBadRequest && (!dots || code < 400 || code > 499) {
				t.Errorf("%q: %s answered %d, want 400", bad, op, code)
			}
		}
		if len(statuses) == 0 && !strings.ContainsRune(bad, '\x01') {
			t.Errorf("%q: no request was sent", bad)
		}
		if got := genExport(t, c, mika.name, mika.as); len(got) != 3 {
			t.Fatalf("after requests as %q mika has %d episodes, want 3", bad, len(got))
		}
	}

	// Deletes, holds and forgets, person by person: the others stay whole.
	for i, p := range people {
		// Another person's episode, by its store id, under this one's name:
		// 404, whoever asks.
		if i+1 < len(people) {
			o := people[i+1]
			other, err := c.DeleteV1EpisodesIdWithResponse(ctx, o.ids[1], &gc.DeleteV1EpisodesIdParams{XOmoideUser: p.as})
			if err != nil || other.StatusCode() != http.StatusNotFound {
				t.Fatalf("%q: DELETE /v1/episodes/%d, %q's: %v %s, want 404", p.name, o.ids[1], o.name, err, body(other))
			}
		}
		del, err := c.DeleteV1EpisodesIdWithResponse(ctx, p.ids[0], &gc.DeleteV1EpisodesIdParams{XOmoideUser: p.as})
		if err != nil || del.JSON200 == nil || del.JSON200.Deleted != 1 {
			t.Fatalf("%q: DELETE /v1/episodes/%d: %v %s", p.name, p.ids[0], err, body(del))
		}
		ext, err := c.DeleteV1UsersUserEpisodesExternalIdWithResponse(ctx, p.name, "p2", &gc.DeleteV1UsersUserEpisodesExternalIdParams{XOmoideUser: &p.as})
		if err != nil || ext.JSON200 == nil || ext.JSON200.Deleted != 1 {
			t.Fatalf("%q: DELETE /v1/users/{user}/episodes/p2: %v %s", p.name, err, body(ext))
		}
		hold, err := c.PostV1UsersUserHoldWithResponse(ctx, p.name, &gc.PostV1UsersUserHoldParams{XOmoideUser: &p.as}, gc.HoldRequest{Seconds: ptr(60)})
		if err != nil || hold.JSON200 == nil || hold.JSON200.User != p.name {
			t.Fatalf("%q: POST /v1/users/{user}/hold: %v %s", p.name, err, body(hold))
		}
		held, err := c.PostV1UsersUserEpisodesWithResponse(ctx, p.name, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &p.as}, episodes(t, record(p.name, "p4", i)))
		if err != nil || held.JSON503 == nil || held.HTTPResponse.Header.Get("Retry-After") == "" {
			t.Fatalf("%q: a write while held: %v %s, want 503 with Retry-After", p.name, err, body(held))
		}
		withToken, err := c.PostV1UsersUserEpisodesWithResponse(ctx, p.name, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &p.as, XOmoideHold: &hold.JSON200.Token}, episodes(t, record(p.name, "p4", i)))
		if err != nil || withToken.JSON200 == nil {
			t.Fatalf("%q: a write with the hold's token: %v %s", p.name, err, body(withToken))
		}
		rel, err := c.DeleteV1UsersUserHoldWithResponse(ctx, p.name, &gc.DeleteV1UsersUserHoldParams{XOmoideUser: &p.as, XOmoideHold: hold.JSON200.Token})
		if err != nil || rel.JSON200 == nil || !rel.JSON200.Released {
			t.Fatalf("%q: DELETE /v1/users/{user}/hold: %v %s", p.name, err, body(rel))
		}
		forget, err := c.DeleteV1UsersUserWithResponse(ctx, p.name, &gc.DeleteV1UsersUserParams{XOmoideUser: &p.as, XOmoideForget: p.as})
		if err != nil || forget.JSON200 == nil || forget.JSON200.Deleted != 2 {
			t.Fatalf("%q: DELETE /v1/users/{user}: %v %s, want 2 deleted (p3 and p4)", p.name, err, body(forget))
		}
		if left := genExport(t, c, p.name, p.as); len(left) != 0 {
			t.Errorf("%q: %d episodes left after the forget", p.name, len(left))
		}
		q := genAsk()
		q.User = &p.name
		if res, err := c.PostV1RetrieveWithResponse(ctx, &gc.PostV1RetrieveParams{XOmoideUser: &p.as}, q); err != nil || res.JSON200 == nil || len(res.JSON200.Hits)+len(deref(res.JSON200.Candidates)) != 0 {
			t.Errorf("%q: a retrieval after the forget: %v %s", p.name, err, body(res))
		}
		for _, o := range people[i+1:] {
			if got := genExport(t, c, o.name, o.as); len(got) != 3 {
				t.Fatalf("%q has %d episodes after %q's deletes and forget, want 3", o.name, len(got), p.name)
			}
		}
	}
	users, err := c.GetV1UsersWithResponse(ctx, &gc.GetV1UsersParams{})
	if err != nil || users.JSON200 == nil || len(users.JSON200.Users) != 0 {
		t.Errorf("after every forget, GET /v1/users: %v %s", err, body(users))
	}
}

// checkOwn fails unless every hit is user's and holds their marker i, one
// at least, and the answer holds no one else's marker.
func checkOwn(t *testing.T, user, what string, i int, raw []byte, hits []gc.Hit) {
	t.Helper()
	if len(hits) == 0 {
		t.Errorf("%q: %s found nothing of theirs", user, what)
	}
	for _, h := range hits {
		if h.User != user || !strings.Contains(h.UserText, marker(i)) {
			t.Errorf("%q: %s answered %q's %q", user, what, h.User, h.UserText)
		}
	}
	for j := range genNames {
		if j != i && strings.Contains(string(raw), marker(j)) {
			t.Errorf("%q: %s's answer holds %q's marker", user, what, genNames[j])
		}
	}
}

// genExport is every record of user's export, page by page.
func genExport(t *testing.T, c *gc.ClientWithResponses, user, as string) []gc.Record {
	t.Helper()
	var out []gc.Record
	params := &gc.GetV1UsersUserEpisodesParams{XOmoideUser: &as, Limit: ptr(2)}
	for {
		page, err := c.GetV1UsersUserEpisodesWithResponse(context.Background(), user, params)
		if err != nil || page.JSON200 == nil {
			t.Fatalf("%q: GET /v1/users/{user}/episodes: %v %s", user, err, body(page))
		}
		out = append(out, page.JSON200.Episodes...)
		if page.JSON200.Next == nil {
			return out
		}
		params.After = page.JSON200.Next
	}
}

// response is what a generated response (a pointer to a struct with
// HTTPResponse and Body) carries: its status code, 0 for none, and body.
type response struct {
	code int
	body []byte
}

// reflectResponse reads r, a generated response, nil included.
func reflectResponse(r any) response {
	v := reflect.ValueOf(r)
	if !v.IsValid() || v.IsNil() {
		return response{}
	}
	v = v.Elem()
	var out response
	if res, _ := v.FieldByName("HTTPResponse").Interface().(*http.Response); res != nil {
		out.code = res.StatusCode
	}
	out.body, _ = v.FieldByName("Body").Interface().([]byte)
	return out
}

// body is a generated response's status and body, for a failure's message.
func body(r any) string {
	res := reflectResponse(r)
	if res.code == 0 {
		return "no response"
	}
	return fmt.Sprintf("%d: %s", res.code, res.body)
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
