package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/demo"
	"github.com/omoide/omoide/internal/pytext"
)

// demoQueries are the demo's questions (ids in demo/queries.jsonl).
var demoQueries = []string{"haruka:q01", "kenta:q05", "misaki:q09"}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr)
	preset := fs.String("preset", omoide.PresetDefault, "retriever preset: default or reference")
	queries := fs.String("queries", strings.Join(demoQueries, ","), "comma-separated query ids of the demo data to answer, or \"all\"")
	tz := fs.String("tz", "Asia/Tokyo", "the people's time `zone`: of time expressions, day windows and the evidence dates")
	db := fs.String("db", "", "keep the demo store in this `file` (created, or a demo store made before), to look at it with omoide inspect; default: a temporary store, removed after")
	if err := parse(fs, args); err != nil {
		return err
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		return fmt.Errorf("%w: -tz: %v", errUsage, err)
	}
	path := *db
	if path == "" {
		dir, err := os.MkdirTemp("", "omoide-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "demo.db")
	}

	start := time.Now()
	p, err := omoide.LookupPreset(*preset)
	if err != nil {
		return fmt.Errorf("%w: -preset: %v", errUsage, err)
	}
	pack := p.Pack
	pack.Location = loc
	mem, err := omoide.Open(ctx, omoide.Config{Path: path, Preset: *preset, Pack: pack, Location: loc})
	if err != nil {
		return err
	}
	defer mem.Close()
	opened := time.Since(start)

	eps, err := demo.Episodes()
	if err != nil {
		return fmt.Errorf("demo episodes: %w", err)
	}
	qs, err := demo.Queries()
	if err != nil {
		return fmt.Errorf("demo queries: %w", err)
	}
	users := map[string]bool{}
	for _, e := range eps {
		users[e.User] = true
	}
	if err := demoOnly(ctx, mem, users); err != nil {
		return err
	}
	start = time.Now()
	if _, err := mem.Put(ctx, false, eps...); err != nil { // a demo store made before holds them already
		return err
	}
	fmt.Fprintf(stdout, "omoide demo: %d episodes of %d people stored in %s (store opened in %s, preset %s, store %s)\n\n",
		len(eps), len(users), time.Since(start).Round(time.Millisecond), opened.Round(time.Millisecond), *preset, path)

	want := map[string]bool{}
	for _, id := range strings.Split(*queries, ",") {
		want[strings.TrimSpace(id)] = true
	}
	asked := 0
	for _, q := range qs {
		if !want["all"] && !want[q.ID] {
			continue
		}
		asked++
		section, res, err := mem.Evidence(ctx, q.Request())
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		fmt.Fprintf(stdout, "━━ %s (%s), now %s\n", q.ID, q.User, q.Now.In(loc).Format("2006-01-02 15:04 MST"))
		for _, m := range q.Context {
			fmt.Fprintf(stdout, "   %-9s %s\n", m.Role+":", m.Content)
		}
		fmt.Fprintf(stdout, "   %-9s %s\n", "message:", q.Text)
		fmt.Fprintf(stdout, "   retrieved in %s: %d episodes\n", res.Trace.Total.Round(10*time.Microsecond), len(res.Hits))
		for _, h := range res.Hits {
			fmt.Fprintf(stdout, "   %-6s p %.2f  score %.3f  %s  %s\n", h.Relevance, h.Probability, h.Score,
				h.Episode.OccurredAt.In(loc).Format("2006-01-02"), pytext.Clip(h.Episode.UserText, 40))
		}
		if section == "" {
			fmt.Fprint(stdout, "\n   (nothing to inject)\n\n")
			continue
		}
		fmt.Fprintf(stdout, "\n%s\n", section)
	}
	if asked == 0 {
		return fmt.Errorf("%w: no demo query matches -queries %q", errUsage, *queries)
	}
	if *db != "" {
		fmt.Fprintf(stdout, "The store is kept in %s: see why each memory was or was not injected in a browser with\n\n    go run -tags sqlite_fts5 ./cmd/omoide inspect -db %s\n", *db, *db)
	}
	return nil
}

// demoOnly refuses a -db store that holds someone the demo does not: the
// demo adds its people to a store it made, never to a person's own.
func demoOnly(ctx context.Context, mem *omoide.Memory, users map[string]bool) error {
	ps, err := mem.Store.People(ctx, "", len(users)+1)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if !users[p.User] {
			return fmt.Errorf("%w: -db %s holds people the demo did not store (%q): give the demo a file of its own", errUsage, mem.Store.Path(), p.User)
		}
	}
	return nil
}
