package omoidemcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/omoidemcp"
)

// TestStdioLastLineAndEnd: a last line without its newline is read, and
// the call on it answered before the end is reported.
func TestStdioLastLineAndEnd(t *testing.T) {
	mem := openMemory(t)
	srv, err := omoidemcp.NewServer(mem, "はるか", omoidemcp.Config{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}` + "\n" +
		`{"jsonrpc": "2.0", "method": "notifications/initialized"}` + "\n" +
		`{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "remember", "arguments": {"user_text": "最後の行"}}}` // no newline
	var out strings.Builder
	if err := srv.Run(ctx, &omoidemcp.StdioTransport{In: strings.NewReader(in), Out: &out}); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(out.String(), `"id":2`) {
		t.Errorf("the last line's call was not answered: %q", out.String())
	}
	if n, _ := mem.Store.Count(ctx, "はるか"); n != 1 {
		t.Errorf("%d memories stored, want the last line's", n)
	}
}
