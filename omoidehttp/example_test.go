package omoidehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/retriever"
)

// A Go backend mounts omoide's API in its own server, under a prefix of its
// choosing, beside its own routes. CleanPathsOnly keeps the backend's
// ServeMux from redirecting a path with a dot segment, which a client
// would follow with the same method into another route.
func ExampleNewHandler() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "omoidehttp-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(dir, "memory.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()

	api := omoidehttp.NewHandler(mem, omoidehttp.Config{})
	mux := http.NewServeMux()
	mux.Handle("/memory/", http.StripPrefix("/memory", api))
	srv := httptest.NewServer(omoidehttp.CleanPathsOnly(mux))
	defer func() { srv.Close(); api.Wait() }()

	post := func(path, body string) *http.Response {
		res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		return res
	}
	post("/memory/v1/episodes", `[{"user": "haruka", "user_text": "駅前に新しいラーメン屋ができたから行ってきた",
		"reply_text": "いいね！味はどうだった？", "occurred_at": "2025-06-02T19:00:00+09:00"}]`).Body.Close()
	res := post("/memory/v1/retrieve", `{"user": "haruka", "text": "この前のラーメン屋どこだっけ", "recent": [],
		"now": "2025-06-20T12:00:00+09:00"}`)
	defer res.Body.Close()
	var got retriever.Result // the answer decodes into the library's own type
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		log.Fatal(err)
	}
	for _, h := range got.Hits {
		fmt.Println(h.Relevance, h.Episode.UserText)
	}
	// Output:
	// high 駅前に新しいラーメン屋ができたから行ってきた
}
