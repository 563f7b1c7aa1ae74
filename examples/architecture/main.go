// Command architecture is the code docs/architecture.md shows, whole, so that
// it compiles and runs (TestDocMirrorsProgram keeps the two the same): the
// store and the retriever under the library's layers, and the zero rule.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "omoide-architecture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.db")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

	// The store (episode/sqlite) holds episodes (the model, package episode).
	hash, err := embed.NewHash(embed.HashOptions{})
	if err != nil {
		return err
	}
	store, err := sqlite.Open(ctx, path, sqlite.Options{Embedder: hash})
	if err != nil {
		return err
	}
	defer store.Close()
	_, err = store.Add(ctx, []episode.Episode{{
		User: "haruka", UserText: "駅前に新しいラーメン屋ができた", ReplyText: "行ってみたいね",
		OccurredAt: now.Add(-48 * time.Hour),
	}})
	if err != nil {
		return err
	}

	// The zero rule: retriever.Options{} is retriever.DefaultOptions().
	r, err := retriever.New(store, retriever.Options{})
	if err != nil {
		return err
	}
	req := retriever.Request{User: "haruka", Text: "駅前のラーメン屋どうだった？", Recent: []retriever.Message{}, Now: now}
	res, err := r.Retrieve(ctx, req)
	if err != nil {
		return err
	}

	def, err := retriever.New(store, retriever.DefaultOptions())
	if err != nil {
		return err
	}
	same, err := def.Retrieve(ctx, req)
	if err != nil {
		return err
	}
	res.Trace, same.Trace = retriever.Trace{}, retriever.Trace{}
	fmt.Fprintln(w, len(res.Hits), reflect.DeepEqual(res, same))
	return nil
}
