package omoidehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/retriever"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.json")

// TestOpenAPIFile: docs/openapi.json is the description the handler serves
// (go test ./omoidehttp -run TestOpenAPIFile -update rewrites it).
func TestOpenAPIFile(t *testing.T) {
	path := filepath.Join("..", "docs", "openapi.json")
	if *update {
		if err := os.WriteFile(path, OpenAPI(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, OpenAPI()) {
		t.Errorf("%s is not the description the handler serves: go test ./omoidehttp -run TestOpenAPIFile -update", path)
	}
}

// TestOpenAPIValidates: the description is a valid OpenAPI 3.1 document
// that names every route of the table; and a real request of every route,
// and the real answer to it, validate against it (pb33f's validator: the
// bodies against their JSON schemas, closed objects admitting no field the
// description lacks), an error answer too. A field added to an answer and
// not to the description fails here.
func TestOpenAPIValidates(t *testing.T) {
	doc, err := libopenapi.NewDocument(OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %v", e)
		}
		t.FailNow()
	}
	var described struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &described); err != nil {
		t.Fatal(err)
	}
	for _, rt := range routeTable() {
		if described.Paths[rt.path][strings.ToLower(rt.method)] == nil {
			t.Errorf("%s %s is not in the description", rt.method, rt.path)
		}
	}

	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	const token = "secret-token"
	h := NewHandler(mem, Config{Token: token, Node: "n1", MaxRequestSensitivity: 1})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })

	covered := map[string]bool{}
	call := func(route string, status int, method, path string, header http.Header, body string) []byte {
		t.Helper()
		covered[route] = true
		do := func() (*http.Request, *http.Response, []byte) {
			var r io.Reader
			if body != "" {
				r = strings.NewReader(body)
			}
			req, err := http.NewRequest(method, srv.URL+path, r)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range header {
				req.Header[k] = vs
			}
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if route != "GET /healthz" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			res.Body = io.NopCloser(bytes.NewReader(b))
			if body != "" {
				req.Body = io.NopCloser(strings.NewReader(body))
			}
			return req, res, b
		}
		req, res, b := do()
		if res.StatusCode != status {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, status, b)
		}
		var ok bool
		var verrs []*verrors.ValidationError
		if status == http.StatusOK {
			ok, verrs = v.ValidateHttpRequestResponse(req, res)
		} else {
			ok, verrs = v.ValidateHttpResponse(req, res)
		}
		if !ok {
			for _, e := range verrs {
				t.Errorf("%s %s: %s", method, path, describe(e))
			}
		}
		return b
	}
	rec := func(id, text string) string {
		return fmt.Sprintf(`{"id": %q, "user": "haruka", "user_text": %q, "reply_text": "いいね", "occurred_at": "2025-06-01T12:00:00Z", "kind": "episode"}`, id, text)
	}
	as := http.Header{UserHeader: {"haruka"}}
	call("POST /v1/episodes", 200, "POST", "/v1/episodes", nil, "["+rec("r1", "駅前のラーメン屋に行った")+","+rec("r2", "味噌ラーメンがおいしかった")+"]")
	call("PUT /v1/episodes", 200, "PUT", "/v1/episodes", nil, `{"episodes": [`+rec("r2", "味噌バターラーメンがおいしかった")+`]}`)
	call("POST /v1/users/{user}/episodes", 200, "POST", "/v1/users/haruka/episodes", nil, "["+rec("r3", "来週は京都に行く")+"]")
	call("PUT /v1/users/{user}/episodes", 200, "PUT", "/v1/users/haruka/episodes", nil, "["+rec("r3", "来週は奈良に行く")+"]")
	q := `{"user": "haruka", "text": "この前のラーメン屋どこだっけ", "recent": [{"role": "assistant", "content": "おかえり"}], "now": "2025-06-20T12:00:00Z", "with_candidates": true, "filter": {"max_sensitivity": "private"}, "inject_threshold": 0.3}`
	if res := answerOf[retriever.Result](t, call("POST /v1/retrieve", 200, "POST", "/v1/retrieve", nil, q)); len(res.Hits) == 0 {
		t.Errorf("retrieve found nothing: the answer's schema is not exercised: %v", res)
	}
	call("POST /v1/users/{user}/retrieve", 200, "POST", "/v1/users/haruka/retrieve", nil, `{"text": "ラーメン", "recent": null}`)
	if res := answerOf[retriever.Result](t, call("POST /v1/retrieve", 200, "POST", "/v1/retrieve", nil, `{"user": "haruka", "text": "What did Caroline research?", "recent": []}`)); res.Trace.UnknownNames == nil {
		t.Errorf("no unknown names in the trace: that part of its schema is not exercised: %+v", res.Trace)
	}
	call("POST /v1/pack", 200, "POST", "/v1/pack", nil, `{"user": "haruka", "text": "ラーメン屋どこ", "recent": [], "strategy": "full", "reasons": true, "tz": "Asia/Tokyo"}`)
	call("POST /v1/users/{user}/pack", 200, "POST", "/v1/users/haruka/pack", nil, `{"text": "天気", "recent": []}`)
	page := answerOf[EpisodePage](t, call("GET /v1/users/{user}/episodes", 200, "GET", "/v1/users/haruka/episodes?limit=1", nil, ""))
	if page.Next == nil {
		t.Fatal("a page of one of three episodes has no next")
	}
	call("GET /v1/users/{user}/episodes", 200, "GET", fmt.Sprintf("/v1/users/haruka/episodes?after=%d", *page.Next), nil, "")
	call("GET /v1/users", 200, "GET", "/v1/users?limit=1", nil, "")
	call("GET /v1/node", 200, "GET", "/v1/node", nil, "")
	hold := answerOf[Hold](t, call("POST /v1/users/{user}/hold", 200, "POST", "/v1/users/haruka/hold", nil, `{"seconds": 60}`))
	call("DELETE /v1/users/{user}/hold", 200, "DELETE", "/v1/users/haruka/hold", http.Header{HoldHeader: {hold.Token}}, "")
	call("DELETE /v1/users/{user}/episodes/{external_id}", 200, "DELETE", "/v1/users/haruka/episodes/r1", nil, "")
	stored := answerOf[Stored](t, call("POST /v1/episodes", 200, "POST", "/v1/episodes", as, "["+rec("r4", "猫を飼い始めた")+"]"))
	call("DELETE /v1/episodes/{id}", 200, "DELETE", fmt.Sprintf("/v1/episodes/%d", stored.IDs[0]), as, "")
	call("GET /v1/openapi.json", 200, "GET", "/v1/openapi.json", nil, "")
	call("GET /healthz", 200, "GET", "/healthz", nil, "")
	call("DELETE /v1/users/{user}", 400, "DELETE", "/v1/users/haruka", nil, "") // unconfirmed: refused, described
	call("DELETE /v1/users/{user}", 200, "DELETE", "/v1/users/haruka", http.Header{ForgetHeader: {"haruka"}}, "")
	call("POST /v1/retrieve", 400, "POST", "/v1/retrieve", nil, `{"user": "haruka", "text": "x", "unknown": 1}`)
	for _, rt := range routeTable() {
		if !covered[rt.method+" "+rt.path] {
			t.Errorf("%s %s: no request of it was validated", rt.method, rt.path)
		}
	}
}

// answerOf decodes an answer of the API into its type.
func answerOf[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %T from %s: %v", v, b, err)
	}
	return v
}

// describe is a validation error with the fields its schema failures name.
func describe(e *verrors.ValidationError) string {
	out := e.Message + ": " + e.Reason
	for _, f := range e.SchemaValidationErrors {
		out += fmt.Sprintf("; %s at %s", f.Reason, f.FieldPath)
	}
	return out
}

// TestOpenAPIHeldWrites: the routes described with X-Omoide-Hold and a 503
// with Retry-After are exactly those that refuse a held person's request
// without the hold's token, and each passes with it.
func TestOpenAPIHeldWrites(t *testing.T) {
	srv := liveServer(t, Config{})
	send := func(method, path, token, body string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(UserHeader, "haruka")
		req.Header.Set(ForgetHeader, "haruka") // a forget confirmed: the hold is what refuses it
		if token != "" {
			req.Header.Set(HoldHeader, token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res, out
	}
	var described struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]json.RawMessage `json:"headers"`
			} `json:"responses"`
			Parameters []struct {
				Name string `json:"name"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &described); err != nil {
		t.Fatal(err)
	}
	for _, tokened := range []bool{false, true} {
		res, b := send("POST", "/v1/episodes", "", `[{"user": "haruka", "user_text": "猫を飼い始めた", "reply_text": "いいね"}, {"id": "r1", "user": "haruka", "user_text": "犬も", "reply_text": "にぎやか"}]`)
		if res.StatusCode != 200 {
			t.Fatalf("storing haruka's episodes: %d %s", res.StatusCode, b)
		}
		stored := answerOf[Stored](t, b)
		_, b = send("POST", "/v1/users/haruka/hold", "", `{"seconds": 60}`)
		hold := answerOf[Hold](t, b)
		token := ""
		if tokened {
			token = hold.Token
		}
		for _, rt := range routeTable() {
			if rt.path == "/v1/users/{user}/hold" {
				continue
			}
			path := strings.NewReplacer("{user}", "haruka", "{id}", fmt.Sprint(stored.IDs[0]), "{external_id}", "r1").Replace(rt.path)
			body := map[string]string{"Episodes": `[{"id": "r9", "user": "haruka", "user_text": "x", "reply_text": "y"}]`,
				"RetrieveRequest": `{"text": "猫", "recent": []}`, "PackRequest": `{"text": "猫", "recent": []}`}[rt.body]
			res, out := send(rt.method, path, token, body)
			refused := res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != ""
			op := described.Paths[rt.path][strings.ToLower(rt.method)]
			_, retryAfter := op.Responses["503"].Headers["Retry-After"]
			holdParam := false
			for _, p := range op.Parameters {
				holdParam = holdParam || p.Name == HoldHeader
			}
			switch {
			case tokened && refused:
				t.Errorf("%s %s with the hold's token: %d %s", rt.method, rt.path, res.StatusCode, out)
			case !tokened && refused != (retryAfter && holdParam):
				t.Errorf("%s %s of a held person: %d (Retry-After %q); the description says 503 with Retry-After %v, X-Omoide-Hold %v",
					rt.method, rt.path, res.StatusCode, res.Header.Get("Retry-After"), retryAfter, holdParam)
			}
		}
		send("DELETE", "/v1/users/haruka/hold", hold.Token, "")
	}
}

// TestOpenAPIRanges: what the description says of "lang" (its pattern) and
// "inject_threshold" (its minimum and maximum) is what the server accepts.
func TestOpenAPIRanges(t *testing.T) {
	var described struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Pattern          string   `json:"pattern"`
					Minimum, Maximum *float64 `json:",omitempty"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPI(), &described); err != nil {
		t.Fatal(err)
	}
	props := described.Components.Schemas["RetrieveRequest"].Properties
	th := props["inject_threshold"]
	if th.Minimum == nil || th.Maximum == nil {
		t.Fatalf("inject_threshold has no range: %+v", th)
	}
	pattern, err := regexp.Compile(props["lang"].Pattern)
	if err != nil || props["lang"].Pattern == "" {
		t.Fatalf("lang's pattern %q: %v", props["lang"].Pattern, err)
	}

	srv := liveServer(t, Config{})
	status := func(field string, v any) int {
		t.Helper()
		value, _ := json.Marshal(v)
		body := fmt.Sprintf(`{"user": "haruka", "text": "猫", "recent": [], %q: %s}`, field, value)
		res, err := http.Post(srv.URL+"/v1/retrieve", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, lang := range []string{"", "ja", "JA", "ja-JP", "zh-Hant-TW", "ko", "EN-us", " ja", "ja ", "ja_JP", "ja-", "fr", "\u212Ao", "jpn", "ja-abcdefghi"} {
		if got, want := status("lang", lang) == 200, pattern.MatchString(lang); got != want {
			t.Errorf("lang %q: accepted %v, but the description's pattern says %v", lang, got, want)
		}
	}
	min, max := *th.Minimum, *th.Maximum
	for _, v := range []float64{min - 0.01, min, (min + max) / 2, max, max + 0.01} {
		if got, want := status("inject_threshold", v) == 200, v >= min && v <= max; got != want {
			t.Errorf("inject_threshold %v: accepted %v, but the description's range [%v, %v] says %v", v, got, min, max, want)
		}
	}
}

// liveServer serves a new store in a temporary folder with cfg, over TCP,
// until the test ends.
func liveServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	mem, err := omoide.Open(context.Background(), omoide.Config{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(mem, cfg)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })
	return srv
}
