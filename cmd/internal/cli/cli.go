// Package cli holds what the commands omoide and bench share: the dispatch
// of a program's subcommands with its exit statuses, flag parsing that turns
// a bad flag into a usage error, the flags that choose the embedder
// (EmbedderFlags), flag types (ByteSize, IDs) and the progress bar of long
// runs.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// ErrUsage marks an error in how a command was called (exit status 2).
var ErrUsage = errors.New("usage")

// Command is one subcommand of a program.
type Command struct {
	Name, Summary string
	Run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// Program is a command line of subcommands: "omoide <command> [flags]".
type Program struct {
	Name     string // the program, "omoide"; it prefixes every message
	Noun     string // what a subcommand is called in messages: "command", "mode"
	Commands []Command
}

// Main runs the command line os.Args[1:] until it returns or an interrupt or
// SIGTERM cancels it, and exits with its status (Run).
func (p Program) Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	status := p.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

// Run runs the subcommand args[0] with the rest of args and returns the exit
// status: 0 on success or when help was asked for, 1 on failure, 2 on a usage
// error (ErrUsage, a bad flag, no or an unknown subcommand). A failure is
// printed to stderr as "prog command: error".
func (p Program) Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" { // "prog help command" is "prog command -help"
		args = []string{args[1], "-help"}
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		p.Usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range p.Commands {
		if c.Name != args[0] {
			continue
		}
		err := c.Run(ctx, args[1:], stdout, stderr)
		if err == nil || errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "%s %s: %v\n", p.Name, c.Name, err)
		if errors.Is(err, ErrUsage) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stderr, "%s: unknown %s %q\n", p.Name, p.Noun, args[0])
	p.Usage(stderr)
	return 2
}

// Usage prints the synopsis and the subcommands with their summaries.
func (p Program) Usage(w io.Writer) {
	width := 0
	for _, c := range p.Commands {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(w, "usage: %s <%s> [flags]\n\n%ss:\n", p.Name, p.Noun, p.Noun)
	for _, c := range p.Commands {
		fmt.Fprintf(w, "  %-*s %s\n", width+1, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun \"%s <%s> -help\" (or \"%s help <%s>\") for a %s's flags.\n", p.Name, p.Noun, p.Name, p.Noun, p.Noun)
}

// NewFlagSet returns the flag set of the subcommand name of the program
// prog, named "prog name", that reports its errors to stderr instead of
// exiting.
func NewFlagSet(prog, name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(prog+" "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// Parse parses args, which hold flags only: a bad flag and a positional
// argument are usage errors. Asking for help returns flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	return nil
}

// ParseArgs parses args like Parse, but allows positional arguments among
// the flags (omoide ingest a.jsonl -db x.db) and returns them. Everything
// after "--" is positional.
func ParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseFlags parses the flags of args, wrapping a bad flag as a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return nil
}
