package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidemcp"
)

func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", stderr)
	sc := addStoreFlags(fs)
	sc.addRetrieveFlags(fs)
	user := fs.String("user", "", "the person whose memory this is (required): every tool acts for them alone")
	maxSens := fs.String("max-request-sensitivity", "normal", "the most private `level` recall and list_memories return: normal, private or secret")
	forgetPerson := fs.Bool("allow-forget-person", false, "add the forget_person tool, which erases every memory of the person and their name")
	tz := fs.String("tz", "Local", "the person's time `zone`: of time expressions (\"昨日\") and the evidence dates")
	setUsage(fs, "omoide mcp -db FILE -user NAME [flags]", `Mcp serves one person's memory as Model Context Protocol tools over standard input and output, for
a desktop client or an agent to launch: recall, remember, list_memories and forget_memory
(docs/mcp.md). The person is fixed by -user: no tool takes a person as an argument. The store is
created when missing. Logs go to standard error; standard output carries the protocol only.
`)
	if err := sc.parse(args); err != nil {
		return err
	}
	if *user == "" {
		return fmt.Errorf("%w: -user is required: the person whose memory this is", errUsage)
	}
	if err := episode.CheckUser(*user); err != nil {
		return fmt.Errorf("%w: -user: %v", errUsage, err)
	}
	pack := sc.pack()
	ceiling, err := ceilingAndZone(*maxSens, *tz, &pack)
	if err != nil {
		return err
	}
	mem, err := sc.openMemory(ctx, false, pack)
	if err != nil {
		return err
	}
	srv, err := omoidemcp.NewServer(mem, *user, omoidemcp.Config{MaxSensitivity: ceiling, AllowForgetPerson: *forgetPerson, ReadOnly: sc.readOnly})
	if err == nil {
		err = srv.Run(ctx, &omoidemcp.StdioTransport{In: os.Stdin, Out: stdout})
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			err = nil // the client closed its end, or a signal stopped the process
		}
	}
	if cerr := mem.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close the store: %w", cerr))
	}
	return err
}
