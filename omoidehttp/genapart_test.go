package omoidehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/omoidehttp"
	gc "github.com/omoide/omoide/omoidehttp/internal/genclient"
)

// normalising is the transport of a client that changes what it sends as
// browsers, Node's fetch and openapi-fetch do: the path's dot segments
// resolved (WHATWG URL: "..", ".", and their %2e spellings, so that
// /v1/users/../episodes/18 goes out as /v1/episodes/18), and each header
// value's surrounding white space trimmed (as Node's fetch does, and as
// every HTTP server's parsing does on arrival).
type normalising struct{ next http.RoundTripper }

func (n normalising) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	u := *r.URL
	escaped := resolveDots(u.EscapedPath())
	path, err := url.PathUnescape(escaped)
	if err != nil {
		return nil, fmt.Errorf("normalising %q: %w", escaped, err)
	}
	u.Path, u.RawPath = path, escaped
	r.URL = &u
	for k, vs := range r.Header {
		for i, v := range vs {
			vs[i] = strings.Trim(v, " \t")
		}
		r.Header[k] = vs
	}
	return n.next.RoundTrip(r)
}

// resolveDots removes the dot segments of an escaped path (RFC 3986
// 5.2.4), reading %2e as a dot as the WHATWG URL parser does.
func resolveDots(p string) string {
	segs := strings.Split(p, "/")
	var out []string
	for i, s := range segs {
		last := i == len(segs)-1
		switch strings.ToLower(strings.ReplaceAll(strings.ToLower(s), "%2e", ".")) {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// TestResolveDots: the normalising transport resolves dot segments as the
// WHATWG URL parser does, %2e spellings too, and leaves other dots alone.
func TestResolveDots(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/users/../episodes/18": "/v1/episodes/18", "/v1/users/%2e%2e/episodes/18": "/v1/episodes/18",
		"/v1/users/.%2E/episodes": "/v1/episodes", "/v1/users/./episodes": "/v1/users/episodes",
		"/v1/users/..": "/v1/", "/v1/users/.": "/v1/users/", "/v1/users/...": "/v1/users/...", "/v1/users/a.b": "/v1/users/a.b",
	} {
		if got := resolveDots(in); got != want {
			t.Errorf("resolveDots(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzGeneratedApart: for two different names a and b and an external id,
// whatever a client does with a's name and the id, b's memory is never read,
// deleted or changed through a request made for a: each request for a
// either acts on a's memory or fails with a 4xx (or is never sent), and
// nothing answers 3xx. The clients are the one generated from
// docs/openapi.json, as it is (it resolves dot segments, and follows
// redirects with the method kept, as Go's net/http does) and over a
// normalising transport, and omoidehttp.Client; each request goes with a's
// name in the header (its wire form) and without. Besides the generated
// requests, bodies are sent that name b twice over: a duplicate key, or a
// key differing from "user" only by case, which another parser would read
// as a. The snapshot of b holds the store id of each episode, so that a
// deleted episode written again does not pass for the same one; a request
// aimed at b's episode must fail, never answer 2xx.
//
// With an id the rule takes, a's delete of that id removes that episode of
// a's and no other; with one it refuses, the request is a 4xx, or a client
// that resolves dot segments sends another request for a (its own path):
// never b's. The seeds pair every name of TestGeneratedClient, every
// refused one and a few look-alikes with four people, each with an id from
// apartIDs, and はるか with the person literally named by her wire form.
func FuzzGeneratedApart(f *testing.F) {
	literal := "%E3%81%AF%E3%82%8B%E3%81%8B"
	as := append(append(slices.Clone(genNames), genRefused...), "MIKA", "mika\t", "ｍｉｋａ", "mika%20", "%2e%2e", ".%2e", "mika/..", "", literal)
	i := 0
	for _, b := range []string{"mika", "はるか", "a.b", literal} {
		for _, a := range as {
			if a != b {
				f.Add(a, b, apartIDs[i%len(apartIDs)])
				i++
			}
		}
	}
	for _, id := range apartIDs {
		f.Add("はるか", literal, id)
	}
	base := genServer(f)
	trusted := genClient(f, base, nil)
	clients := map[string]*gc.ClientWithResponses{"generated": trusted, "normalising": genClient(f, base, normalising{http.DefaultTransport})}
	n := 0
	f.Fuzz(func(t *testing.T, a, b, id string) {
		if a == b || episode.CheckUser(b) != nil {
			return
		}
		n++
		ctx := context.Background()
		asB, bMark := omoidehttp.EncodeUser(b), fmt.Sprintf("zqB%dqz", n)
		bExt := fmt.Sprintf("b%d", n)
		bRec := gc.Record{Id: &bExt, UserText: ptr("秘密の合言葉はあおぞらペンギン " + bMark), ReplyText: ptr("覚えたよ"), OccurredAt: genAsk().Now}
		stored, err := trusted.PostV1UsersUserEpisodesWithResponse(ctx, b, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &asB}, episodes(t, bRec))
		if err != nil || stored.JSON200 == nil {
			t.Fatalf("storing %q's episode: %v %s", b, err, body(stored))
		}
		bID := stored.JSON200.Ids[0]
		// b also has an episode under a's id, where the rule takes it.
		if episode.CheckExternalID(id) == nil && id != "" && id != bExt {
			twin := gc.Record{Id: &id, UserText: ptr("同じidのbの話 " + bMark), ReplyText: ptr("うん"), OccurredAt: genAsk().Now}
			if r, err := trusted.PostV1UsersUserEpisodesWithResponse(ctx, b, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &asB}, episodes(t, twin)); err != nil || r.JSON200 == nil {
				t.Fatalf("storing %q's episode %q: %v %s", b, id, err, body(r))
			}
		}
		t.Cleanup(func() {
			trusted.DeleteV1UsersUserWithResponse(ctx, b, &gc.DeleteV1UsersUserParams{XOmoideUser: &asB, XOmoideForget: asB})
			if episode.CheckUser(a) == nil {
				asA := omoidehttp.EncodeUser(a)
				trusted.DeleteV1UsersUserWithResponse(ctx, a, &gc.DeleteV1UsersUserParams{XOmoideUser: &asA, XOmoideForget: asA})
			}
		})
		before := snapshot(t, trusted, b, asB)
		for cname, c := range clients {
			for _, header := range []bool{true, false} {
				var h *string
				hv := ""
				if header {
					hv = omoidehttp.EncodeUser(a)
					h = &hv
				}
				// check fails a request that is neither done nor a 4xx
				// (a 3xx among them: nothing redirects), an answer that holds
				// b's memory, and a 2xx where the request must fail.
				var done []string // the requests answered 2xx
				check := func(op string, r any, err error, mustFail bool) {
					t.Helper()
					if err != nil {
						return // never sent
					}
					res := reflectResponse(r)
					if res.code >= 200 && res.code < 300 {
						done = append(done, fmt.Sprintf("%s: %d", op, res.code))
						if mustFail {
							t.Errorf("%s client, header %v, a=%q b=%q: %s, aimed at b's episode, answered %s", cname, header, a, b, op, body(r))
						}
					}
					if res.code >= 500 || res.code < 200 || res.code >= 300 && res.code < 400 {
						t.Errorf("%s client, header %v, a=%q b=%q: %s answered %s", cname, header, a, b, op, pytext.Clip(body(r), 300))
					}
					if strings.Contains(string(res.body), bMark) {
						t.Errorf("%s client, header %v: a request for %q read %q's memory: %s: %s", cname, header, a, b, op, pytext.Clip(string(res.body), 300))
					}
				}
				mine := gc.Record{Id: ptr("a"), UserText: ptr("秘密の合言葉はあおぞらペンギン"), ReplyText: ptr("覚えたよ")}
				r1, err := c.PostV1UsersUserEpisodesWithResponse(ctx, a, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: h}, episodes(t, mine))
				check("POST /v1/users/{a}/episodes", r1, err, false)
				overB := gc.Record{Id: &bExt, UserText: ptr("上書き"), ReplyText: ptr("上書き")}
				r2, err := c.PutV1UsersUserEpisodesWithResponse(ctx, a, &gc.PutV1UsersUserEpisodesParams{XOmoideUser: h}, episodes(t, overB))
				check("PUT /v1/users/{a}/episodes", r2, err, false)
				overB.User = &a
				r3, err := c.PutV1EpisodesWithResponse(ctx, &gc.PutV1EpisodesParams{XOmoideUser: h}, episodes(t, overB))
				check("PUT /v1/episodes", r3, err, false)
				q := genAsk()
				r4, err := c.PostV1UsersUserRetrieveWithResponse(ctx, a, &gc.PostV1UsersUserRetrieveParams{XOmoideUser: h}, q)
				check("POST /v1/users/{a}/retrieve", r4, err, false)
				q.User = &a
				r5, err := c.PostV1RetrieveWithResponse(ctx, &gc.PostV1RetrieveParams{XOmoideUser: h}, q)
				check("POST /v1/retrieve", r5, err, false)
				r6, err := c.PostV1UsersUserPackWithResponse(ctx, a, &gc.PostV1UsersUserPackParams{XOmoideUser: h}, gc.PackRequest{Text: q.Text, Recent: q.Recent, Now: q.Now})
				check("POST /v1/users/{a}/pack", r6, err, false)
				r7, err := c.GetV1UsersUserEpisodesWithResponse(ctx, a, &gc.GetV1UsersUserEpisodesParams{XOmoideUser: h})
				check("GET /v1/users/{a}/episodes", r7, err, false)
				// bExt is a's too (the PUTs above), b's store id never is.
				for _, ext := range []string{bExt, fmt.Sprint(bID)} {
					r, err := c.DeleteV1UsersUserEpisodesExternalIdWithResponse(ctx, a, ext, &gc.DeleteV1UsersUserEpisodesExternalIdParams{XOmoideUser: h})
					check("DELETE /v1/users/{a}/episodes/"+ext, r, err, ext != bExt)
				}
				r8, err := c.DeleteV1EpisodesIdWithResponse(ctx, bID, &gc.DeleteV1EpisodesIdParams{XOmoideUser: hv})
				check("DELETE /v1/episodes/{b's id}", r8, err, true)
				// Bodies that name b beside a: each must be refused, or be
				// read as a alone.
				for _, raw := range apartBodies(a, b) {
					rr, err := c.PostV1RetrieveWithBodyWithResponse(ctx, &gc.PostV1RetrieveParams{XOmoideUser: h}, "application/json", strings.NewReader(raw.retrieve))
					check("POST /v1/retrieve "+raw.retrieve, rr, err, false)
					rp, err := c.PostV1PackWithBodyWithResponse(ctx, &gc.PostV1PackParams{XOmoideUser: h}, "application/json", strings.NewReader(raw.retrieve))
					check("POST /v1/pack "+raw.retrieve, rp, err, false)
					rw, err := c.PutV1EpisodesWithBodyWithResponse(ctx, &gc.PutV1EpisodesParams{XOmoideUser: h}, "application/json", strings.NewReader(raw.store))
					check("PUT /v1/episodes "+raw.store, rw, err, false)
				}
				// a's delete of the fuzzed id: the episode of a's with that
				// id, where the rule takes it, and nothing of b's.
				if idOK := episode.CheckExternalID(id) == nil && id != ""; idOK && episode.CheckUser(a) == nil {
					rec := gc.Record{Id: &id, UserText: ptr("aの話"), ReplyText: ptr("うん")}
					rs, err := trusted.PutV1UsersUserEpisodesWithResponse(ctx, a, &gc.PutV1UsersUserEpisodesParams{XOmoideUser: ptr(omoidehttp.EncodeUser(a))}, episodes(t, rec))
					if err != nil || rs.JSON200 == nil {
						t.Fatalf("storing %q's episode %q: %v %s", a, id, err, body(rs))
					}
					aBefore := snapshot(t, trusted, a, omoidehttp.EncodeUser(a))
					rd, err := c.DeleteV1UsersUserEpisodesExternalIdWithResponse(ctx, a, id, &gc.DeleteV1UsersUserEpisodesExternalIdParams{XOmoideUser: h})
					check("DELETE /v1/users/{a}/episodes/{id}", rd, err, false)
					if after := snapshot(t, trusted, a, omoidehttp.EncodeUser(a)); after != aBefore && after != without(aBefore, id) {
						t.Errorf("%s client, header %v: deleting %q's episode %q left\n%q\nfrom\n%q", cname, header, a, id, after, aBefore)
					}
				} else {
					rd, err := c.DeleteV1UsersUserEpisodesExternalIdWithResponse(ctx, a, id, &gc.DeleteV1UsersUserEpisodesExternalIdParams{XOmoideUser: h})
					check("DELETE /v1/users/{a}/episodes/{id}", rd, err, false)
				}
				// omoidehttp.Client escapes the path and, as Go's net/http,
				// follows a redirect with the method kept.
				var hdr http.Header
				if header {
					hdr = omoidehttp.As(a)
				}
				err = omoidehttp.Client{BaseURL: base}.Do(ctx, http.MethodDelete, "/v1/users/"+url.PathEscape(a)+"/episodes/"+url.PathEscape(id), hdr, nil, nil)
				if err != nil && (strings.Contains(err.Error(), ": 5") || strings.Contains(err.Error(), ": 3")) {
					t.Errorf("omoidehttp.Client, header %v: deleting %q's episode %q: %v", header, a, id, err)
				}
				hold, err := c.PostV1UsersUserHoldWithResponse(ctx, a, &gc.PostV1UsersUserHoldParams{XOmoideUser: h}, gc.HoldRequest{Seconds: ptr(60)})
				check("POST /v1/users/{a}/hold", hold, err, false)
				if err == nil && hold.JSON200 != nil {
					// b's record again: a write, stored as a no-op (b's own id
					// again) unless held, or deleted meanwhile.
					w, err := trusted.PostV1UsersUserEpisodesWithResponse(ctx, b, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &asB}, episodes(t, bRec))
					if err != nil || w.JSON200 == nil {
						t.Errorf("%s client, header %v: a hold taken for %q holds %q: %v %s", cname, header, a, b, err, body(w))
					} else if w.JSON200.Ids[0] != bID {
						t.Errorf("%s client, header %v: %q's episode %d was gone: written again as %d", cname, header, b, bID, w.JSON200.Ids[0])
					}
					rel, err := c.DeleteV1UsersUserHoldWithResponse(ctx, a, &gc.DeleteV1UsersUserHoldParams{XOmoideUser: h, XOmoideHold: hold.JSON200.Token})
					check("DELETE /v1/users/{a}/hold", rel, err, false)
				}
				r9, err := c.DeleteV1UsersUserWithResponse(ctx, a, &gc.DeleteV1UsersUserParams{XOmoideUser: h, XOmoideForget: omoidehttp.EncodeUser(a)})
				check("DELETE /v1/users/{a}", r9, err, false)
				if after := snapshot(t, trusted, b, asB); after != before {
					t.Fatalf("%s client, header %v: requests for %q changed %q's memory:\nbefore %q\nafter  %q\nanswered 2xx: %s",
						cname, header, a, b, before, after, strings.Join(done, "; "))
				}
			}
		}
	})
}

// apartIDs are the seeds' external ids: ids the rule takes, and dot
// segments plain and percent-encoded, separators, the query and fragment
// marks, which it refuses.
var apartIDs = []string{"x", "..", ".", "%2e%2e", ".%2E", "a/b", `..\..`, "..?", "#..", "%2F..", " .. ", "m%25", "はるか"}

// apartBody is a retrieval and a store naming b beside a, as another parser
// would read them two ways.
type apartBody struct{ retrieve, store string }

// apartBodies are bodies that name a and b in one object: a duplicate key,
// a key differing from "user" only by case (Go's decoder matches keys
// without case, Unicode folding included: ſ is s), in either order.
func apartBodies(a, b string) []apartBody {
	qa, qb := strconv.Quote(a), strconv.Quote(b)
	var out []apartBody
	for _, pair := range [][2]string{
		{`"user":` + qa + `,"user":` + qb, ""}, {`"user":` + qb + `,"user":` + qa, ""},
		{`"user":` + qa + `,"USER":` + qb, ""}, {`"USER":` + qb + `,"user":` + qa, ""},
		{`"user":` + qa + `,"uſer":` + qb, ""}, {`"User":` + qb, ""},
	} {
		out = append(out, apartBody{
			retrieve: `{` + pair[0] + `,"text":"合言葉なんだっけ","recent":[],"with_candidates":true,"now":"2026-03-01T12:00:00Z"}`,
			store:    `[{` + pair[0] + `,"id":"x","user_text":"上書き"}]`,
		})
	}
	// At depth: a second "episodes" key, or one differing by case.
	out = append(out, apartBody{
		retrieve: `{"user":` + qa + `,"text":"x","filter":{"max_age_days":1,"MAX_AGE_DAYS":null},"recent":[]}`,
		store:    `{"episodes":[{"user":` + qa + `,"user_text":"x"}],"Episodes":[{"user":` + qb + `,"id":"x","user_text":"上書き"}]}`,
	})
	return out
}

// snapshot is user's memory as their export shows it, each episode with
// its store id (pages of one episode, whose next is that episode's id): a
// line an episode, its store id, user, id and texts apart by U+001F, which
// no name or id holds.
func snapshot(t *testing.T, c *gc.ClientWithResponses, user, as string) string {
	t.Helper()
	var b strings.Builder
	params := &gc.GetV1UsersUserEpisodesParams{XOmoideUser: &as, Limit: ptr(1)}
	for {
		page, err := c.GetV1UsersUserEpisodesWithResponse(context.Background(), user, params)
		if err != nil || page.JSON200 == nil {
			t.Fatalf("%q: GET /v1/users/{user}/episodes: %v %s", user, err, body(page))
		}
		if len(page.JSON200.Episodes) == 0 || page.JSON200.Next == nil {
			return b.String()
		}
		r := page.JSON200.Episodes[0]
		fmt.Fprintf(&b, "%d\x1f%s\x1f%s\x1f%s\x1f%s\n", *page.JSON200.Next, deref(r.User), deref(r.Id), deref(r.UserText), deref(r.ReplyText))
		params.After = page.JSON200.Next
	}
}

// without is a snapshot without the episode whose external id is id.
func without(snap, id string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(snap, "\n") {
		if f := strings.Split(line, "\x1f"); line != "" && (len(f) < 3 || f[2] != id) {
			b.WriteString(line)
		}
	}
	return b.String()
}
