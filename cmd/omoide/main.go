// Command omoide stores a chat companion's past exchanges and finds the ones
// worth reminding the model of.
//
// Usage:
//
//	omoide <command> [flags]
//
// "omoide -help" lists the commands and "omoide <command> -help" gives a
// command's flags.
//
// The commands that open a store share the flags -db, -embedder, -endpoint,
// -model, -dim, -key-env and -preset, whose defaults come from the
// environment variables OMOIDE_DB, OMOIDE_EMBEDDER, OMOIDE_ENDPOINT,
// OMOIDE_MODEL, OMOIDE_DIM and OMOIDE_PRESET. The API key of an openai
// embedder is read from the environment variable -key-env names
// (OPENAI_API_KEY by default), never from a flag.
//
// Exit status: 0 on success, 1 on failure, 2 on a usage error.
package main

import (
	"flag"
	"io"
	_ "time/tzdata" // -tz works without the system zoneinfo

	"github.com/omoide/omoide/cmd/internal/cli"
)

// program is omoide's command line.
var program = cli.Program{Name: "omoide", Noun: "command", Commands: []cli.Command{
	{Name: "demo", Summary: "load the Japanese demo conversations into a store (temporary, or -db) and answer a few questions", Run: runDemo},
	{Name: "ingest", Summary: "add episodes from JSON Lines files or conversation transcripts", Run: runIngest},
	{Name: "retrieve", Summary: "find the episodes worth reminding the model of, with their score parts", Run: runRetrieve},
	{Name: "delete", Summary: "delete episodes by id or external id", Run: runDelete},
	{Name: "forget", Summary: "delete every episode of a person", Run: runForget},
	{Name: "backup", Summary: "write a consistent copy of the store while it is in use", Run: runBackup},
	{Name: "restore", Summary: "bring a backup or a restored replica back as the store, forgetting again who was forgotten since", Run: runRestore},
	{Name: "export", Summary: "write a person's episodes as the JSON Lines that ingest reads", Run: runExport},
	{Name: "move", Summary: "move people between two running nodes (serve), losing nothing", Run: runMove},
	{Name: "stats", Summary: "describe the store: embedder, analyzer, row counts, size", Run: runStats},
	{Name: "reembed", Summary: "recompute every vector with another embedder", Run: runReembed},
	{Name: "check", Summary: "verify that the episodes, text index and vector index agree", Run: runCheck},
	{Name: "reindex", Summary: "rebuild the text and vector indexes from the episodes", Run: runReindex},
	{Name: "learn", Summary: "learn word vectors for the analyzer's terms from conversations", Run: runLearn},
	{Name: "inspect", Summary: "look at a store in the browser: people, memories, and why a memory was or was not injected", Run: runInspect},
	{Name: "mcp", Summary: "serve one person's memory as MCP tools over stdio, for a desktop client or an agent", Run: runMCP},
	{Name: "serve", Summary: "run the HTTP JSON API (omoide serve -help for the endpoints)", Run: runServe},
}}

// errUsage marks an error in how the command was called (exit status 2).
var errUsage = cli.ErrUsage

func main() { program.Main() }

// newFlagSet returns the flag set of a command, which reports errors instead
// of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet("omoide", name, stderr)
}

// parse parses args, flags only, wrapping a bad flag as a usage error.
var parse = cli.Parse
