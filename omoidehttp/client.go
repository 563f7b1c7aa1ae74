package omoidehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
)

// Client calls a node that serves this API. Its zero value with a BaseURL
// works. It is safe for concurrent use.
type Client struct {
	BaseURL string       // e.g. http://127.0.0.1:8765
	Token   string       // the node's bearer token, if it has one
	HTTP    *http.Client // nil: http.DefaultClient
}

// Do sends body (as JSON, when not nil) to the path under BaseURL with the
// header h (may be nil) and decodes a 200's answer into out (when not nil);
// any other status is an error that carries the node's message.
func (c Client) Do(ctx context.Context, method, path string, h http.Header, body, out any) error {
	u := strings.TrimRight(c.BaseURL, "/") + path
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return err
	}
	if h != nil {
		req.Header = h.Clone()
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorAnswer
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s %s: %d: %s", method, u, resp.StatusCode, e.Error)
		}
		return fmt.Errorf("%s %s: %d", method, u, resp.StatusCode)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return errors.Join(fmt.Errorf("%s %s: decoding the answer", method, u), err)
	}
	return nil
}

// As returns a header that routes a request as user (UserHeader): for a
// proxy that routes people to nodes.
func As(user string) http.Header {
	h := http.Header{}
	h.Set(UserHeader, EncodeUser(user))
	return h
}

// Forget forgets user on the node (DELETE /v1/users/{user}, confirmed in
// ForgetHeader): every episode and their name, erased. h, which may be nil,
// adds headers (a hold's token, HoldHeader).
func (c Client) Forget(ctx context.Context, user string, h http.Header) (Forgotten, error) {
	fh := http.Header{}
	if h != nil {
		fh = h.Clone()
	}
	fh.Set(ForgetHeader, EncodeUser(user))
	var f Forgotten
	err := c.Do(ctx, http.MethodDelete, "/v1/users/"+url.PathEscape(user), fh, nil, &f)
	return f, err
}

// Episodes returns every episode of user on the node, page by page (GET
// /v1/users/{user}/episodes), as records that POST /v1/episodes takes back.
func (c Client) Episodes(ctx context.Context, user string) ([]episode.Record, error) {
	return pages(ctx, c, "/v1/users/"+url.PathEscape(user)+"/episodes", func(p *EpisodePage) ([]episode.Record, string) {
		if p.Next == nil {
			return p.Episodes, ""
		}
		return p.Episodes, strconv.FormatInt(*p.Next, 10)
	})
}

// People returns every person of the node with their episode counts, page
// by page (GET /v1/users).
func (c Client) People(ctx context.Context) ([]sqlite.Person, error) {
	return pages(ctx, c, "/v1/users", func(p *People) ([]sqlite.Person, string) {
		if p.Next == nil {
			return p.Users, ""
		}
		return p.Users, *p.Next
	})
}

// pages reads a listing at path page by page (?limit=MaxPage&after=NEXT)
// until a page has no next or nothing in it; of returns a page's items and
// its next ("" for none).
func pages[P any, T any](ctx context.Context, c Client, path string, of func(*P) ([]T, string)) ([]T, error) {
	var all []T
	after := ""
	for {
		q := "?limit=" + strconv.Itoa(MaxPage)
		if after != "" {
			q += "&after=" + url.QueryEscape(after)
		}
		var page P
		if err := c.Do(ctx, http.MethodGet, path+q, nil, nil, &page); err != nil {
			return nil, err
		}
		items, next := of(&page)
		all = append(all, items...)
		if next == "" || len(items) == 0 {
			return all, nil
		}
		after = next
	}
}

// Node returns the name of the node that answers h's request (GET /v1/node;
// through a proxy, with As(user), the node the proxy routes user to).
func (c Client) Node(ctx context.Context, h http.Header) (string, error) {
	var n Node
	if err := c.Do(ctx, http.MethodGet, "/v1/node", h, nil, &n); err != nil {
		return "", err
	}
	return n.Node, nil
}
