package omoidemcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one message of StdioTransport: a recall with a long
// conversation or a remember of a whole exchange fits many times over.
const MaxLineBytes = 8 << 20

// StdioTransport is the stdio transport of "omoide mcp": one JSON-RPC
// message a line, as the protocol's stdio transport says, read more
// forgivingly than the SDK's own. A line that is no message (not JSON, cut
// short, a batch, another version of JSON-RPC, an object as id, two
// messages, longer than MaxLineBytes) is answered with a JSON-RPC error
// (-32700 or -32600) and the next line is read; the session goes on. When
// In ends, the requests already read are finished and answered before the
// connection reports the end: a client that writes its calls and closes its
// side gets every answer.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
}

// Connect returns the connection over In and Out; it is called once.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{in: bufio.NewReaderSize(t.In, 64<<10), out: t.Out, pending: map[string]bool{}, closed: make(chan struct{}),
		lines: make(chan lineRead)}
	c.answered = sync.NewCond(&c.mu)
	// The lines are read apart, so that Close (a signal, the server's end)
	// unblocks a Read waiting for input that may never come.
	go func() {
		for {
			line, err := c.line()
			if errors.Is(err, io.EOF) && len(line) > 0 { // a last line without its newline, then the end
				select {
				case c.lines <- lineRead{line, nil}:
				case <-c.closed:
					return
				}
				line = nil
			}
			select {
			case c.lines <- lineRead{line, err}:
			case <-c.closed:
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	return c, nil
}

// lineRead is one line the reader read, or why it read none.
type lineRead struct {
	line []byte
	err  error
}

type stdioConn struct {
	in  *bufio.Reader
	out io.Writer

	mu       sync.Mutex // guards out, pending, done
	pending  map[string]bool
	answered *sync.Cond // signalled when a pending request is answered or the connection closes
	done     bool
	closed   chan struct{}
	once     sync.Once
	lines    chan lineRead // the reader's lines, in order
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message; a bad line is answered and skipped.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var line []byte
		var err error
		select {
		case r := <-c.lines:
			line, err = r.line, r.err
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if errors.Is(err, io.EOF) && len(line) == 0 {
			c.drain()
			return nil, io.EOF
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errLineTooLong) {
			return nil, err
		}
		if errors.Is(err, errLineTooLong) {
			c.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message is at most %d bytes", MaxLineBytes))
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		msg, id, code, why := decodeLine(line)
		if msg == nil {
			c.refuse(id, code, why)
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending[idKey(req.ID)] = true
			c.mu.Unlock()
		}
		return msg, nil
	}
}

// errLineTooLong is line's error for a line over MaxLineBytes, read to its
// end and dropped.
var errLineTooLong = errors.New("line too long")

// line reads one line without its newline, never holding more than
// MaxLineBytes of it.
func (c *stdioConn) line() ([]byte, error) {
	var buf []byte
	for {
		part, err := c.in.ReadSlice('\n')
		if len(buf)+len(part) > MaxLineBytes+1 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.in.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

// decodeLine decodes one message, or says why the line is none: the error
// code, the message and, when the line names one, the id to answer.
func decodeLine(line []byte) (msg jsonrpc.Message, id json.RawMessage, code int64, why string) {
	if line[0] == '[' {
		return nil, nil, jsonrpc.CodeInvalidRequest, "batches are not accepted: send one message a line"
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	var head struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, jsonrpc.CodeParseError, "not JSON: " + err.Error()
	}
	if dec.More() {
		return nil, nil, jsonrpc.CodeParseError, "more than one JSON value on a line: send one message a line"
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, "not a JSON-RPC message: want an object"
	}
	if len(head.ID) > 0 && head.ID[0] != '"' && head.ID[0] != 'n' && (head.ID[0] < '0' || head.ID[0] > '9') && head.ID[0] != '-' {
		return nil, nil, jsonrpc.CodeInvalidRequest, "an id is a string or a number"
	}
	if head.JSONRPC != "2.0" {
		return nil, head.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("jsonrpc %q: want \"2.0\"", head.JSONRPC)
	}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, head.ID, jsonrpc.CodeInvalidRequest, "not a JSON-RPC message: " + err.Error()
	}
	return m, nil, 0, ""
}

// refuse answers a line that is no message.
func (c *stdioConn) refuse(id json.RawMessage, code int64, why string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: why}})
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Write(append(b, '\n'))
}

// Write writes one message a line; a response answers its request.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.out.Write(append(b, '\n')); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		delete(c.pending, idKey(resp.ID))
		c.answered.Broadcast()
	}
	return nil
}

// drain waits until every request read has been answered, or the
// connection is closed.
func (c *stdioConn) drain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 && !c.done {
		c.answered.Wait()
	}
}

func (c *stdioConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.done = true
		c.answered.Broadcast()
		c.mu.Unlock()
		close(c.closed)
	})
	return nil
}

// idKey is a request id as a map key.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }
