// The README's Go example, whole: a program to paste into your own module
// (go get github.com/omoide/omoide@latest; go run -tags sqlite_fts5 .).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/omoide/omoide"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// A store in a temporary directory, removed at the end; a real program keeps
	// its store, e.g. Path: "memory.db" (one SQLite file in the working directory).
	dir, err := os.MkdirTemp("", "omoide-readme")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		return err
	}
	// Hash embedder, cjk2 analyzer (Japanese by kagome, Chinese and Korean by bigrams), default preset. Location is the people's time zone: the day
	// that "昨日" names and the evidence dates (a Request's Location overrides it for one person).
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(dir, "memory.db"), Location: tokyo})
	if err != nil {
		return err
	}
	defer mem.Close()

	// After each exchange:
	_, err = mem.Add(ctx, omoide.Episode{
		User: "haruka", UserText: "昨日駅前のラーメン屋に行ったよ", ReplyText: "いいね！何を食べたの？",
		OccurredAt: time.Now(),
	})
	if err != nil {
		return err
	}

	// Before each reply: the section to put in the prompt ("" when nothing is worth injecting).
	// Per request, Filter replaces the searched set (a private conversation:
	// &omoide.Filter{MaxSensitivity: omoide.SensitivityPrivate, States: mem.Retriever.Options().Filter.States})
	// and InjectThreshold (a *float64) the inject threshold.
	section, res, err := mem.Evidence(ctx, omoide.Request{
		User:   "haruka",
		Text:   "この前のラーメン屋、また行きたいな",
		Recent: []omoide.Message{{Role: "assistant", Content: "おかえり！今日はどうだった？"}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, len(res.Hits), strings.Contains(section, "ラーメン屋"))

	// When a person asks to be forgotten: every episode and their name, erased.
	if _, err := mem.Forget(ctx, "haruka"); err != nil {
		return err
	}
	return nil
}
