package omoidehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
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

// FuzzGeneratedApart: for two different names a and b, whatever a client
// does with a's name, b's memory is never read, deleted or changed through
// a request made for a: each request for a either acts on a's memory or
// fails with a 4xx (or is never sent). The client is the one generated
// from docs/openapi.json, as it is and over a normalising transport; each
// request goes with a's name in the header (its wire form) and without.
// The seeds pair every name of TestGeneratedClient, every refused one and
// a few look-alikes with three people.
func FuzzGeneratedApart(f *testing.F) {
	as := append(append(slices.Clone(genNames), genRefused...), "MIKA", "mika\t", "ｍｉｋａ", "mika%20", "%2e%2e", ".%2e", "mika/..", "", "%E3%81%AF%E3%82%8B%E3%81%8B")
	for _, b := range []string{"mika", "はるか", "a.b"} {
		for _, a := range as {
			if a != b {
				f.Add(a, b)
			}
		}
	}
	url := genServer(f)
	trusted := genClient(f, url, nil)
	clients := map[string]*gc.ClientWithResponses{"generated": trusted, "normalising": genClient(f, url, normalising{http.DefaultTransport})}
	n := 0
	f.Fuzz(func(t *testing.T, a, b string) {
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
		t.Cleanup(func() {
			trusted.DeleteV1UsersUserWithResponse(ctx, b, &gc.DeleteV1UsersUserParams{XOmoideUser: &asB})
			if episode.CheckUser(a) == nil {
				asA := omoidehttp.EncodeUser(a)
				trusted.DeleteV1UsersUserWithResponse(ctx, a, &gc.DeleteV1UsersUserParams{XOmoideUser: &asA})
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
				// check fails a request that is neither done nor a 4xx, and
				// an answer that holds b's memory.
				var done []string // the requests answered 2xx
				check := func(op string, r any, err error) {
					t.Helper()
					if err != nil {
						return // never sent
					}
					res := reflectResponse(r)
					if res.code >= 200 && res.code < 300 {
						done = append(done, fmt.Sprintf("%s: %d", op, res.code))
					}
					if res.code >= 500 || res.code < 200 || res.code >= 300 && res.code < 400 {
						t.Errorf("%s client, header %v, a=%q b=%q: %s answered %s", cname, header, a, b, op, body(r))
					}
					if strings.Contains(string(res.body), bMark) {
						t.Errorf("%s client, header %v: a request for %q read %q's memory: %s: %s", cname, header, a, b, op, res.body)
					}
				}
				mine := gc.Record{Id: ptr("a"), UserText: ptr("秘密の合言葉はあおぞらペンギン"), ReplyText: ptr("覚えたよ")}
				r1, err := c.PostV1UsersUserEpisodesWithResponse(ctx, a, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: h}, episodes(t, mine))
				check("POST /v1/users/{a}/episodes", r1, err)
				overB := gc.Record{Id: &bExt, UserText: ptr("上書き"), ReplyText: ptr("上書き")}
				r2, err := c.PutV1UsersUserEpisodesWithResponse(ctx, a, &gc.PutV1UsersUserEpisodesParams{XOmoideUser: h}, episodes(t, overB))
				check("PUT /v1/users/{a}/episodes", r2, err)
				overB.User = &a
				r3, err := c.PutV1EpisodesWithResponse(ctx, &gc.PutV1EpisodesParams{XOmoideUser: h}, episodes(t, overB))
				check("PUT /v1/episodes", r3, err)
				q := genAsk()
				r4, err := c.PostV1UsersUserRetrieveWithResponse(ctx, a, &gc.PostV1UsersUserRetrieveParams{XOmoideUser: h}, q)
				check("POST /v1/users/{a}/retrieve", r4, err)
				q.User = &a
				r5, err := c.PostV1RetrieveWithResponse(ctx, &gc.PostV1RetrieveParams{XOmoideUser: h}, q)
				check("POST /v1/retrieve", r5, err)
				r6, err := c.PostV1UsersUserPackWithResponse(ctx, a, &gc.PostV1UsersUserPackParams{XOmoideUser: h}, gc.PackRequest{Text: q.Text, Recent: q.Recent, Now: q.Now})
				check("POST /v1/users/{a}/pack", r6, err)
				r7, err := c.GetV1UsersUserEpisodesWithResponse(ctx, a, &gc.GetV1UsersUserEpisodesParams{XOmoideUser: h})
				check("GET /v1/users/{a}/episodes", r7, err)
				for _, ext := range []string{bExt, fmt.Sprint(bID)} {
					r, err := c.DeleteV1UsersUserEpisodesExternalIdWithResponse(ctx, a, ext, &gc.DeleteV1UsersUserEpisodesExternalIdParams{XOmoideUser: h})
					check("DELETE /v1/users/{a}/episodes/"+ext, r, err)
				}
				r8, err := c.DeleteV1EpisodesIdWithResponse(ctx, bID, &gc.DeleteV1EpisodesIdParams{XOmoideUser: hv})
				check("DELETE /v1/episodes/{b's id}", r8, err)
				hold, err := c.PostV1UsersUserHoldWithResponse(ctx, a, &gc.PostV1UsersUserHoldParams{XOmoideUser: h}, gc.HoldRequest{Seconds: ptr(60)})
				check("POST /v1/users/{a}/hold", hold, err)
				if err == nil && hold.JSON200 != nil {
					// b's record again: a write, stored as a no-op unless held.
					w, err := trusted.PostV1UsersUserEpisodesWithResponse(ctx, b, &gc.PostV1UsersUserEpisodesParams{XOmoideUser: &asB}, episodes(t, bRec))
					if err != nil || w.JSON200 == nil {
						t.Errorf("%s client, header %v: a hold taken for %q holds %q: %v %s", cname, header, a, b, err, body(w))
					}
					rel, err := c.DeleteV1UsersUserHoldWithResponse(ctx, a, &gc.DeleteV1UsersUserHoldParams{XOmoideUser: h, XOmoideHold: hold.JSON200.Token})
					check("DELETE /v1/users/{a}/hold", rel, err)
				}
				r9, err := c.DeleteV1UsersUserWithResponse(ctx, a, &gc.DeleteV1UsersUserParams{XOmoideUser: h})
				check("DELETE /v1/users/{a}", r9, err)
				if after := snapshot(t, trusted, b, asB); after != before {
					t.Fatalf("%s client, header %v: requests for %q changed %q's memory:\nbefore %s\nafter  %s\nanswered 2xx: %s",
						cname, header, a, b, before, after, strings.Join(done, "; "))
				}
			}
		}
	})
}

// snapshot is user's memory as their export shows it.
func snapshot(t *testing.T, c *gc.ClientWithResponses, user, as string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range genExport(t, c, user, as) {
		fmt.Fprintf(&b, "%s/%s/%s/%s;", deref(r.User), deref(r.Id), deref(r.UserText), deref(r.ReplyText))
	}
	return b.String()
}
