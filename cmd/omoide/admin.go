package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/omoidehttp"
	"github.com/omoide/omoide/tokenize"
)

const deleteDescription = `Delete removes episodes from the store (the episode, its text index row and its vector, in one
transaction): by store id (-id, repeatable) or by the caller's external id (-external-id with
-user). An id the store does not hold is an error (exit status 1) after the others are deleted.

`

func runDelete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("delete", stderr)
	sc := addStoreFlags(fs)
	var ids cli.IDs
	fs.Var(&ids, "id", "the store `id` of an episode to delete (repeatable, or comma-separated)")
	ext := fs.String("external-id", "", "the external `id` of the episode to delete (needs -user)")
	user := fs.String("user", "", "the person of -external-id")
	setUsage(fs, "omoide delete -id N [-id M ...] | -external-id X -user U", deleteDescription)
	if err := sc.parse(args); err != nil {
		return err
	}
	switch {
	case len(ids) > 0 && (*ext != "" || *user != ""):
		return fmt.Errorf("%w: give -id, or -external-id with -user, not both", errUsage)
	case len(ids) == 0 && *ext == "":
		return fmt.Errorf("%w: nothing to delete: give -id N, or -external-id X -user U", errUsage)
	case *ext != "" && *user == "":
		return fmt.Errorf("%w: -external-id needs -user (external ids are per person)", errUsage)
	}
	store, err := sc.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if *ext != "" {
		id, err := store.IDByExternal(ctx, *user, *ext)
		if err != nil {
			return err
		}
		if id == 0 {
			return fmt.Errorf("no episode of user %q has external id %q", *user, *ext)
		}
		ids = cli.IDs{id}
	}
	d, err := store.Delete(ctx, ids...)
	if err != nil {
		return err
	}
	for _, e := range d.Episodes {
		fmt.Fprintf(stdout, "deleted episode %d (user %q, external id %q, %s)\n", e.ID, e.User, e.ExternalID, e.OccurredAt.Format(time.RFC3339))
	}
	fmt.Fprintf(stdout, "%d episodes deleted\n", len(d.Episodes))
	if len(d.Missing) > 0 {
		missing := make([]string, len(d.Missing))
		for i, id := range d.Missing {
			missing[i] = strconv.FormatInt(id, 10)
		}
		return fmt.Errorf("no episode with id %s", strings.Join(missing, ", "))
	}
	return nil
}

// openPersonStore parses the flags of a command about one person (-user,
// required) and opens the store.
func (sc *storeConfig) openPersonStore(ctx context.Context, args []string, user *string) (*sqlite.Store, error) {
	if err := sc.parse(args); err != nil {
		return nil, err
	}
	if *user == "" {
		return nil, fmt.Errorf("%w: -user is required", errUsage)
	}
	return sc.openStore(ctx)
}

func runForget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("forget", stderr)
	sc := addStoreFlags(fs)
	user := fs.String("user", "", "the person to forget entirely (required); asks nothing")
	setUsage(fs, "omoide forget -user U", "Forget removes every episode of a person from the store, without asking.\n\n")
	store, err := sc.openPersonStore(ctx, args, user)
	if err != nil {
		return err
	}
	defer store.Close()
	er, err := store.Forget(ctx, *user)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "forgot %q: %d episodes removed, %d bytes freed and zeroed", *user, er.Episodes, er.BytesFreed)
	if !er.Checkpointed {
		fmt.Fprint(stdout, " (the write-ahead log was busy: its copies go at the next checkpoint)")
	}
	fmt.Fprintf(stdout, "\n%s\n", omoidehttp.ForgetCopies)
	return nil
}

func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("restore", stderr)
	sc := addStoreFlags(fs)
	from := fs.String("from", "", "the copy to bring back: an \"omoide backup\" file or a replica restored by Litestream (required)")
	setUsage(fs, "omoide restore -from FILE -db STORE", `Restore brings a copy back as the store: the file -from replaces the store -db; every person the
store forgot after the copy was taken is forgotten again in it, and every episode it deleted or
replaced since is deleted again, from the store's record of erasures (keyed hashes, no names or
texts). A person who asked to be forgotten stays forgotten, and a deleted episode or the old text
of an updated one stays gone, whatever copy comes back; the store keeps its record and its file
mode. Restore refuses while a process holds the store (omoide serve, -readonly too, ingest),
naming it: stop it first, and Litestream too. Without a store at -db (a node lost with its disk)
the copy comes back as it is: nothing can be erased again.

`)
	if err := sc.parse(args); err != nil {
		return err
	}
	if *from == "" {
		return fmt.Errorf("%w: -from is required", errUsage)
	}
	if sc.readOnly {
		return fmt.Errorf("%w: -readonly: restore replaces the store", errUsage)
	}
	start := time.Now()
	r, err := sqlite.Restore(ctx, *from, sc.db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s: %d episodes of %d people; %d people forgotten again, %d episodes deleted again (of %d erasures on record), %s\n",
		sc.db, *from, r.Episodes, r.People, r.Forgotten, r.Deleted, r.Erasures, time.Since(start).Round(time.Millisecond))
	return nil
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", stderr)
	sc := addStoreFlags(fs)
	user := fs.String("user", "", "the person whose episodes to write (required)")
	out := fs.String("o", "-", "write to this `file` (\"-\": standard output)")
	setUsage(fs, "omoide export -user U [-o FILE]", `Export writes every episode of a person, in the order they were added, as the JSON Lines that
"omoide ingest" reads: export, forget and ingest give the person back as they were. An episode
stored without an external id is written with the id "`+episode.ExportIDPrefix+`<its id>".

`)
	store, err := sc.openPersonStore(ctx, args, user)
	if err != nil {
		return err
	}
	defer store.Close()
	w := stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		w = f
	}
	n, err := store.Export(ctx, *user, w)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d episodes of %q\n", n, *user)
	return nil
}

func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", stderr)
	sc := addStoreFlags(fs)
	out := fs.String("o", "", "the new `file` of the copy (required; never overwritten)")
	setUsage(fs, "omoide backup -o FILE", `Backup writes a consistent copy of the store to a new file while other processes (omoide serve)
go on reading and writing it: one snapshot, compacted, with no free pages. The copy is a store
of its own ("omoide check -db FILE").

`)
	if err := sc.parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -o is required", errUsage)
	}
	store, err := sc.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	if err := store.Backup(ctx, *out); err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup: %s, %d bytes in %s\n", *out, st.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stats", stderr)
	sc := addStoreFlags(fs)
	asJSON := fs.Bool("json", false, "print the statistics as JSON")
	setUsage(fs, "omoide stats [-json]", `Stats describes the store: its schema version, embedder, analyzer and row counts. The episodes,
the text index and the vector index hold one row per episode each; "inconsistent" says they
do not. "unsearched" counts the episodes the preset's filter leaves out of every search (the
default: private and secret episodes, archived ones), which a request's filter can admit
(retrieve -max-sensitivity private, -states; over HTTP "filter").

`)
	if err := sc.parse(args); err != nil {
		return err
	}
	store, err := sc.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	p, _ := omoide.LookupPreset(sc.preset) // validated
	js, err := wire.StoreStats(ctx, sc.db, store, p.Retriever)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, js)
	}
	state := "consistent"
	if !js.Consistent {
		state = "inconsistent: the episodes, text index and vector index counts differ"
	}
	for _, row := range [][2]any{{"store", sc.db}, {"schema", js.SchemaVersion}, {"embedder", js.Embedder}, {"analyzer", js.Analyzer},
		{"episodes", js.Episodes}, {"users", js.Users}, {"fts rows", js.FTSRows}, {"vector rows", js.VectorRows}, {"rows", state},
		{"file size", fmt.Sprintf("%s (%d bytes, with the WAL)", cli.HumanBytes(js.FileBytes), js.FileBytes)},
		{"free", fmt.Sprintf("%s (%d bytes: pages removals freed, reused before the file grows)", cli.HumanBytes(js.FreeBytes), js.FreeBytes)},
		{"decision", js.Decision},
		{"unsearched", fmt.Sprintf("%s: episodes the %s preset does not search unless a request's filter admits them", *js.Unsearched, sc.preset)},
	} {
		fmt.Fprintf(stdout, "%-14s %v\n", row[0], row[1])
	}
	return nil
}

const reembedDescription = `Reembed recomputes every episode's vector with the embedder the flags describe and records it as
the store's embedder, in one transaction: if anything fails, the store keeps its old vectors.
Run it after changing the embedder (model, dimension, or hash <-> openai); it refuses while a
process holds the store (omoide serve), naming it: stop it first. Afterwards open the store with
the new embedder flags.

`

func runReembed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reembed", stderr)
	sc := addStoreFlags(fs)
	batch := fs.Int("batch", sqlite.DefaultReembedBatch, "episodes per embedder call")
	showProgress := fs.Bool("progress", false, "draw the progress bar on stderr even when it is not a terminal")
	setUsage(fs, "omoide reembed [flags]", reembedDescription)
	if err := sc.parse(args); err != nil {
		return err
	}
	if *batch <= 0 {
		return fmt.Errorf("%w: -batch %d: must be positive", errUsage, *batch)
	}
	if err := sc.mustExist(); err != nil {
		return err
	}
	e, err := sc.emb.Embedder()
	if err != nil {
		return err
	}
	old := "unknown"
	if m, err := sqlite.ReadMeta(ctx, sc.db); err == nil {
		old = m.Embedder.String()
	}
	n, elapsed, err := cli.WithProgress(stderr, *showProgress, func(progress func(done, total int)) (int, error) {
		return sqlite.Reembed(ctx, sc.db, e, *batch, progress)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "re-embedded %d episodes: %s -> %s, %s, %s episodes/s\n",
		n, old, e.Identity(), elapsed.Round(time.Millisecond), cli.Rate(n, elapsed))
	return nil
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", stderr)
	sc := addStoreFlags(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	setUsage(fs, "omoide check [-json]", `Check verifies that the store records its embedder identity and analyzer and that the vector
index has the recorded dimension; that the episodes, the text index and the vector index agree
row for row, every episode has its quantized vector and every vector sits in its person's
partition; that the per-person counts are right; and that SQLite's integrity check passes. It
also names the people whose names break the name rule and the episodes whose external ids break
the id rule (stored before them). It only reads. Exit status 1 when it finds a problem, such a name
or such an id; "omoide reindex" rebuilds both indexes from the episodes.

`)
	if err := sc.parse(args); err != nil {
		return err
	}
	store, err := sc.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	r, err := store.Check(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(stdout, r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "store      %s\nembedder   %s (vector table: %d dimensions)\nanalyzer   %s\nepisodes   %d (fts %d, vectors %d)\n",
			sc.db, r.Recorded.Embedder, r.VectorDim, r.Recorded.Analyzer, r.Episodes, r.FTSRows, r.VectorRows)
		for _, p := range r.Problems {
			fmt.Fprintf(stdout, "problem    %s\n", p)
		}
		if len(r.Problems) == 0 {
			fmt.Fprintln(stdout, "ok         the three tables agree")
		}
		for _, b := range r.BadNames {
			fmt.Fprintf(stdout, "name       %q: %s\n", b.User, strings.TrimPrefix(b.Problem, "user "))
		}
		for _, b := range r.BadIDs {
			fmt.Fprintf(stdout, "id         episode %d (user %q): external id %s\n", b.ID, b.User, strings.TrimPrefix(b.Problem, "external id "))
		}
	}
	var errs []error
	if len(r.Problems) > 0 {
		errs = append(errs, fmt.Errorf("%d problems found; run omoide reindex", len(r.Problems)))
	}
	if len(r.BadNames) > 0 {
		errs = append(errs, fmt.Errorf("%d people have names the name rule refuses (docs/reliability.md, \"A person's name\"): they can be exported and forgotten (omoide export, omoide forget -user), and take new episodes under another name", len(r.BadNames)))
	}
	if len(r.BadIDs) > 0 {
		errs = append(errs, fmt.Errorf("%d episodes have external ids the id rule refuses (docs/reliability.md, \"An episode's external id\"): they can be exported, and deleted by their store ids (omoide delete -id N, DELETE /v1/episodes/{id})", len(r.BadIDs)))
	}
	return errors.Join(errs...)
}

func runReindex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reindex", stderr)
	sc := addStoreFlags(fs)
	showProgress := fs.Bool("progress", false, "draw the progress bar on stderr even when it is not a terminal")
	analyzer := fs.String("analyzer", "", "move the store to this `analyzer` (cjk, cjk+ja: Han-only text as Japanese, kagome+snowball, kagome, bigram, raw): rebuild the text index with it and record it; the vectors stay")
	setUsage(fs, "omoide reindex [-analyzer NAME]", `Reindex rebuilds the text index and the vector index from the episodes table, with the store's
analyzer and embedder (give the embedder flags it was built with), in one transaction. Use it
when "omoide check" reports a problem.

A server may hold the store meanwhile: its writes wait for the rebuild's transaction (up to
its busy timeout), and its searches see the rebuilt indexes once it commits.

With -analyzer it rebuilds the text index only, with that analyzer, and records it: a store
built before the cjk analyzer moves to it with "omoide reindex -analyzer cjk". It refuses while
a process holds the store (omoide serve), naming it, since that would go on searching with the
old analyzer: stop it first.

`)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *analyzer != "" {
		a, err := tokenize.ByName(*analyzer)
		if err != nil {
			return fmt.Errorf("%w: -analyzer: %v", errUsage, err)
		}
		if err := sc.validate(); err != nil {
			return err
		}
		n, elapsed, err := cli.WithProgress(stderr, *showProgress, func(progress func(done, total int)) (int, error) {
			return sqlite.Reanalyze(ctx, sc.db, a, progress)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "analyzed %d episodes with %s in %s, %s episodes/s\n", n, a.Name(), elapsed.Round(time.Millisecond), cli.Rate(n, elapsed))
		return nil
	}
	mem, err := sc.openMemory(ctx, true, memorypack.Options{})
	if err != nil {
		return err
	}
	defer mem.Close()
	n, elapsed, err := cli.WithProgress(stderr, *showProgress, func(progress func(done, total int)) (int, error) {
		return mem.Store.Reindex(ctx, progress)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reindexed %d episodes in %s, %s episodes/s\n", n, elapsed.Round(time.Millisecond), cli.Rate(n, elapsed))
	return nil
}
