// Command omoide stores a chat companion's past exchanges and finds the ones
// worth reminding the model of.
//
// Usage:
//
//	omoide <command> [flags]
//
// Commands:
//
//	demo     load the Japanese demo conversations into a temporary store and answer a few questions
//	ingest   add episodes from JSON Lines files or conversation transcripts
//	retrieve find the episodes worth reminding the model of, with their score parts
//	delete   delete episodes by id or external id
//	forget   delete every episode of a person
//	stats    describe the store: embedder, analyzer, row counts, size
//	reembed  recompute every vector with another embedder
//	check    verify that the episodes, text index and vector index agree
//	reindex  rebuild the text and vector indexes from the episodes
//	serve    run the HTTP JSON API
//
// The commands that open a store share the flags -db, -embedder, -endpoint,
// -model, -dim, -key-env and -preset, whose defaults come from the
// environment variables OMOIDE_DB, OMOIDE_EMBEDDER, OMOIDE_ENDPOINT,
// OMOIDE_MODEL, OMOIDE_DIM and OMOIDE_PRESET. The API key of an openai
// embedder is read from the environment variable -key-env names
// (OPENAI_API_KEY by default), never from a flag.
//
// Run "omoide <command> -help" for a command's flags. Exit status: 0 on
// success, 1 on failure, 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // -tz works without the system zoneinfo
)

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"demo", "load the Japanese demo conversations into a temporary store and answer a few questions", runDemo},
	{"ingest", "add episodes from JSON Lines files or conversation transcripts", runIngest},
	{"retrieve", "find the episodes worth reminding the model of, with their score parts", runRetrieve},
	{"delete", "delete episodes by id or external id", runDelete},
	{"forget", "delete every episode of a person", runForget},
	{"stats", "describe the store: embedder, analyzer, row counts, size", runStats},
	{"reembed", "recompute every vector with another embedder", runReembed},
	{"check", "verify that the episodes, text index and vector index agree", runCheck},
	{"reindex", "rebuild the text and vector indexes from the episodes", runReindex},
	{"serve", "run the HTTP JSON API (omoide serve -help for the endpoints)", runServe},
}

// errUsage marks an error in how the command was called (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "omoide %s: %v\n", c.name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "omoide %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "omoide: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: omoide <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"omoide <command> -help\" for a command's flags.")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("omoide "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses args, wrapping a bad flag as a usage error.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}
