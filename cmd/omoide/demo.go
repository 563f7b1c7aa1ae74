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
	if err := parse(fs, args); err != nil {
		return err
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		return fmt.Errorf("%w: -tz: %v", errUsage, err)
	}
	dir, err := os.MkdirTemp("", "omoide-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	start := time.Now()
	p, err := omoide.LookupPreset(*preset)
	if err != nil {
		return fmt.Errorf("%w: -preset: %v", errUsage, err)
	}
	pack := p.Pack
	pack.Location = loc
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(dir, "demo.db"), Preset: *preset, Pack: pack, Location: loc})
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
	start = time.Now()
	if _, err := mem.Add(ctx, eps...); err != nil {
		return err
	}
	users := map[string]bool{}
	for _, e := range eps {
		users[e.User] = true
	}
	fmt.Fprintf(stdout, "omoide demo: %d episodes of %d people stored in %s (store opened in %s, preset %s, store %s)\n\n",
		len(eps), len(users), time.Since(start).Round(time.Millisecond), opened.Round(time.Millisecond), *preset, dir)

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
	return nil
}
