// Package omoidemcp serves a person's memory as Model Context Protocol tools,
// for an agent or a chat client to plug in: recall, remember, list_memories
// and forget_memory (and forget_person when allowed). A server acts for the
// one person it is made for: no tool has an argument that names a person, so
// a model talked into naming another reads nobody else's memories.
//
//	mem, _ := omoide.Open(ctx, omoide.Config{Path: "memory.db"})
//	srv, _ := omoidemcp.NewServer(mem, "haruka", omoidemcp.Config{})
//	srv.Run(ctx, &mcp.StdioTransport{})  // what "omoide mcp -user haruka" does
//
// Over HTTP, Config.Handler serves each request as the person the caller
// names (omoidehttp mounts it at /mcp, the person in the X-Omoide-User
// header).
package omoidemcp

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/strictjson"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/retriever"
)

// The tools' names, fixed so that configurations can be shared.
const (
	ToolRecall       = "recall"
	ToolRemember     = "remember"
	ToolListMemories = "list_memories"
	ToolForgetMemory = "forget_memory"
	ToolForgetPerson = "forget_person"
)

// DefaultMaxBody is the request body bound of a Handler whose Config.MaxBody
// is 0: the REST API's (omoidehttp.DefaultMaxBody).
const DefaultMaxBody = 4 << 20

// DefaultPage and MaxPage bound a list_memories page.
const (
	DefaultPage = 20
	MaxPage     = 100
)

// Version is the server's version in the MCP handshake.
const Version = "1"

// Config configures NewServer. Its zero value works: normal episodes only,
// no forget_person, the system clock.
type Config struct {
	// MaxSensitivity is the most private level recall and list_memories
	// return, whatever the preset's filter (omoidehttp's
	// MaxRequestSensitivity; the commands' -max-request-sensitivity), and
	// the most private a remember may store: a memory no tool could ever
	// show is refused, not stored out of reach. forget_memory deletes the
	// person's own memory at any level. Its zero is normal episodes only.
	MaxSensitivity episode.Sensitivity
	// AllowForgetPerson adds the forget_person tool, which erases every
	// memory of the person and their name.
	AllowForgetPerson bool
	// Now is the clock of a recall or a remember that names no time; nil is
	// time.Now.
	Now func() time.Time
	// MaxBody bounds a request's body over HTTP (Handler), as the REST
	// API's Config.MaxBody does (its -max-body); 0: DefaultMaxBody. A
	// recall with a long conversation fits many times over: only the last
	// retriever.DefaultContextMessages of its recent turns count.
	MaxBody int64
	// ReadOnly lists only the tools that write nothing (recall,
	// list_memories): a read-only store (the commands' -readonly) offers no
	// tool that could only fail.
	ReadOnly bool
}

// tools is one person's tools over a memory.
type tools struct {
	mem  *omoide.Memory
	user string
	cfg  Config
}

// NewServer returns an MCP server whose tools act for user alone; user must
// be a person's name (episode.CheckUser). It is safe for concurrent use, and
// may be connected to any transport (mcp.StdioTransport, an HTTP handler).
func NewServer(mem *omoide.Memory, user string, cfg Config) (*mcp.Server, error) {
	return newServer(mem, user, cfg, nil)
}

// newServer is NewServer with a schema cache shared by the servers a
// Handler makes, one a request.
func newServer(mem *omoide.Memory, user string, cfg Config, cache *mcp.SchemaCache) (*mcp.Server, error) {
	if err := episode.CheckUser(user); err != nil {
		return nil, fmt.Errorf("omoidemcp: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	t := &tools{mem: mem, user: user, cfg: cfg}
	// No list_changed: the tools never change while a session lasts; no
	// logging capability: the server sends no log messages.
	s := mcp.NewServer(&mcp.Implementation{Name: "omoide", Title: "omoide: long-term memory of a conversation", Version: version()},
		&mcp.ServerOptions{Instructions: instructions, SchemaCache: cache, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	yes, no := true, false
	var errs []error
	errs = append(errs, addTool(s, &mcp.Tool{Name: ToolRecall, Title: "Recall",
		Description: "The past exchanges with this person worth remembering now, given their new message (and the turns just before it), as an EPISODE_EVIDENCE section to read before replying; nothing when no memory bears on it. Call it with each new message.",
		Annotations: &mcp.ToolAnnotations{Title: "Recall", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}}, t.recall, schemaOfRecall))
	if !cfg.ReadOnly {
		errs = append(errs, addTool(s, &mcp.Tool{Name: ToolRemember, Title: "Remember",
			Description: "Store one exchange with this person (their message and your reply) so that later recalls can find it. Give an id to make a retry store it once.",
			Annotations: &mcp.ToolAnnotations{Title: "Remember", DestructiveHint: &no, OpenWorldHint: &no}}, t.remember, schemaOfRemember))
	}
	errs = append(errs, addTool(s, &mcp.Tool{Name: ToolListMemories, Title: "List memories",
		Description: "This person's memories, newest first, a page at a time: pass next_cursor back as cursor for the next page.",
		Annotations: &mcp.ToolAnnotations{Title: "List memories", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}}, t.list, schemaOfList))
	if !cfg.ReadOnly {
		errs = append(errs, addTool(s, &mcp.Tool{Name: ToolForgetMemory, Title: "Forget a memory",
			Description: "Delete one of this person's memories by its id (from recall or list_memories): its text is erased from the store, not hidden.",
			Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}}, t.forgetMemory, schemaOfForgetMemory))
	}
	if cfg.AllowForgetPerson && !cfg.ReadOnly {
		errs = append(errs, addTool(s, &mcp.Tool{Name: ToolForgetPerson, Title: "Forget this person",
			Description: "Erase every memory of this person and their name, at their request. It cannot be undone: confirm must be the person's name.",
			Annotations: &mcp.ToolAnnotations{Title: "Forget this person", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}}, t.forgetPerson, schemaOfForgetPerson))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// version is the server's version in the handshake: the module's, as the
// binary was built (a tagged release, or a pseudo-version of a commit), or
// Version when the build says none (go test, go run).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return Version + "+" + s.Value[:12]
			}
		}
	}
	return Version
}

// addTool adds a tool whose arguments are described by the schema of In
// that adjust completes (enums, bounds, formats: what the prose says, said
// to a validator) and read by strict. The SDK validates the arguments
// against that schema and hands them on as a map, never decoding them into
// In itself: a wrong type is strict's error, in the tool's words, not Go's.
func addTool[In, Out any](s *mcp.Server, tool *mcp.Tool, f func(context.Context, In) (Out, error), adjust func(*jsonschema.Schema)) error {
	sch, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("omoidemcp: the schema of %s: %w", tool.Name, err)
	}
	adjust(sch)
	tool.InputSchema = sch
	mcp.AddTool(s, tool, strict(f))
	return nil
}

func ptr[T any](v T) *T { return &v }

// The arguments' schemas, as their prose says them.
func schemaOfRecall(s *jsonschema.Schema) {
	p := s.Properties
	p["message"].MinLength, p["message"].MaxLength = ptr(1), ptr(retriever.MaxMessageBytes)
	p["now"].Format = "date-time"
	turn := p["recent"].Items
	turn.Properties["role"].Enum = []any{"user", "assistant"}
	turn.Properties["content"].MaxLength = ptr(retriever.MaxMessageBytes)
}

func schemaOfRemember(s *jsonschema.Schema) {
	p := s.Properties
	p["user_text"].MaxLength, p["reply_text"].MaxLength = ptr(episode.MaxTextBytes), ptr(episode.MaxTextBytes)
	p["occurred_at"].Format = "date-time"
	p["kind"].Enum = []any{"episode", "fact", "summary", "loop"}
	p["sensitivity"].Enum = []any{"normal", "private", "secret"}
	p["id"].MinLength, p["id"].MaxLength = ptr(1), ptr(episode.MaxExternalIDLen)
}

func schemaOfList(s *jsonschema.Schema) {
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = ptr(1.0), ptr(float64(MaxPage))
}

func schemaOfForgetMemory(s *jsonschema.Schema) {
	s.Properties["id"].Minimum = ptr(1.0)
}

func schemaOfForgetPerson(s *jsonschema.Schema) {
	s.Properties["confirm"].MaxLength = ptr(episode.MaxUserLen)
}

const instructions = `omoide is this person's long-term memory of your conversations. Call recall with each new message and read what it returns before replying; call remember after each exchange worth keeping. Every tool acts for this person only.`

// strict wraps a tool so that its arguments are read as omoide reads every
// input before the tool runs: valid UTF-8 without a lone surrogate, no
// unknown or repeated field, each value of its type (internal/strictjson).
// The SDK has validated them against the schema, but decoding replaces bad
// UTF-8 with U+FFFD silently, which would store a changed text.
func strict[In, Out any](f func(context.Context, In) (Out, error)) mcp.ToolHandlerFor[map[string]any, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, Out, error) {
		var in In
		var zero Out
		args := []byte(req.Params.Arguments)
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		if err := strictjson.DecodeBytesAt(args, "arguments", &in); err != nil {
			return nil, zero, err
		}
		out, err := f(ctx, in)
		if err != nil {
			return nil, zero, err
		}
		var res *mcp.CallToolResult
		if tx, ok := any(out).(texter); ok {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tx.text()}}}
		}
		return res, out, nil
	}
}

// texter is a result whose content for the model is a text of its own,
// not its JSON.
type texter interface{ text() string }

// text is recall's content: the evidence as the model reads it, or why
// there is none.
func (o RecallOutput) text() string {
	var b strings.Builder
	if o.Evidence != "" {
		b.WriteString(strings.TrimRight(o.Evidence, "\n"))
		// the ids, so that the model can act on one (forget_memory)
		b.WriteString("\n\nMemories recalled (id, date):")
		for _, m := range o.Memories {
			fmt.Fprintf(&b, " #%d (%s)", m.ID, m.OccurredAt.Format(time.DateOnly))
		}
	} else {
		b.WriteString("Nothing recalled: " + o.Declined + ".")
	}
	if o.LeftOut > 0 {
		fmt.Fprintf(&b, "\n%d %s left out: %s the recent turns themselves.", o.LeftOut, plural(o.LeftOut, "memory", "memories"), plural(o.LeftOut, "it is", "they are"))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RecallInput is recall's arguments.
type RecallInput struct {
	Message string         `json:"message" jsonschema:"the person's new message"`
	Recent  []wire.Message `json:"recent,omitempty" jsonschema:"the turns just before it, oldest first, each {role: user or assistant, content}; only the last 6 count; absent: none (the stored memories are never taken for the conversation)"`
	Now     string         `json:"now,omitempty" jsonschema:"the time of the message, RFC 3339 (e.g. 2026-05-01T21:30:00+09:00); absent: now. Time expressions such as yesterday are read from it"`
}

// RecallOutput is recall's structured result.
type RecallOutput struct {
	Evidence string   `json:"evidence" jsonschema:"the EPISODE_EVIDENCE section to read before replying; empty when nothing is recalled"`
	Memories []Memory `json:"memories" jsonschema:"the memories recalled, most relevant first"`
	Declined string   `json:"declined,omitempty" jsonschema:"why nothing was recalled, when nothing was"`
	LeftOut  int      `json:"left_out,omitempty" jsonschema:"memories left out because they are the recent turns themselves"`
}

// Memory is one memory as the tools return it.
type Memory struct {
	ID          int64     `json:"id" jsonschema:"the memory's id, for forget_memory"`
	ExternalID  string    `json:"external_id,omitempty" jsonschema:"the id it was remembered with, if any"`
	OccurredAt  time.Time `json:"occurred_at" jsonschema:"when the exchange happened"`
	UserText    string    `json:"user_text" jsonschema:"what the person said"`
	ReplyText   string    `json:"reply_text" jsonschema:"what was replied"`
	Kind        string    `json:"kind" jsonschema:"episode, fact, summary or loop"`
	Sensitivity string    `json:"sensitivity" jsonschema:"normal, private or secret"`
	Probability float64   `json:"probability,omitempty" jsonschema:"recall only: the relevance model's probability that it bears on the message"`
	Why         string    `json:"why,omitempty" jsonschema:"recall only: why it was recalled"`
}

func memoryOf(e episode.Episode) Memory {
	return Memory{ID: e.ID, ExternalID: e.ExternalID, OccurredAt: e.OccurredAt, UserText: e.UserText, ReplyText: e.ReplyText,
		Kind: e.Kind.String(), Sensitivity: e.Sensitivity.String()}
}

func (t *tools) recall(ctx context.Context, in RecallInput) (RecallOutput, error) {
	if strings.TrimSpace(in.Message) == "" {
		return RecallOutput{}, errors.New("message is empty: give the person's new message")
	}
	// An MCP server is not fed every exchange (the agent picks what to
	// remember and holds the conversation), so the store's newest memories
	// never stand in for missing recent turns.
	req := retriever.Request{User: t.user, Text: in.Message, Now: t.cfg.Now(), Recent: []retriever.Message{}}
	if in.Recent != nil {
		recent, err := wire.Messages(in.Recent)
		if err != nil {
			return RecallOutput{}, err
		}
		if recent != nil {
			req.Recent = recent
		}
	}
	if in.Now != "" {
		now, err := time.Parse(time.RFC3339, in.Now)
		if err != nil {
			return RecallOutput{}, fmt.Errorf("now %q: want RFC 3339, e.g. 2026-05-01T21:30:00+09:00", in.Now)
		}
		req.Now = now
	}
	f := t.mem.Retriever.Options().Filter
	f.MaxSensitivity = min(f.MaxSensitivity, t.cfg.MaxSensitivity)
	req.Filter = &f
	if err := req.Validate(); err != nil {
		return RecallOutput{}, err
	}
	section, res, err := t.mem.Evidence(ctx, req)
	if err != nil {
		return RecallOutput{}, err
	}
	out := RecallOutput{Evidence: section, Memories: []Memory{}, Declined: res.Trace.Declined, LeftOut: res.Trace.Echoes}
	for _, h := range res.Hits {
		m := memoryOf(h.Episode)
		m.Probability, m.Why = h.Probability, h.Reason
		out.Memories = append(out.Memories, m)
	}
	if len(out.Memories) == 0 && out.Declined == "" {
		out.Declined = "no memory bears on the message"
		if res.Trace.Skipped != "" {
			out.Declined = res.Trace.Skipped
		}
	}
	return out, nil
}

// RememberInput is remember's arguments.
type RememberInput struct {
	UserText    string `json:"user_text" jsonschema:"what the person said"`
	ReplyText   string `json:"reply_text,omitempty" jsonschema:"what you replied (empty for a note of the person's alone)"`
	OccurredAt  string `json:"occurred_at,omitempty" jsonschema:"when, RFC 3339; absent: now"`
	Kind        string `json:"kind,omitempty" jsonschema:"episode (the default), fact, summary or loop"`
	Sensitivity string `json:"sensitivity,omitempty" jsonschema:"normal (the default), private or secret: private and secret memories are recalled only where the server admits them"`
	ID          string `json:"id,omitempty" jsonschema:"your id for this exchange: the same id and content again stores nothing, so a retry is safe"`
}

// RememberOutput is remember's result.
type RememberOutput struct {
	ID     int64  `json:"id" jsonschema:"the memory's id"`
	Stored string `json:"stored" jsonschema:"added, or present when the same id and content were stored before"`
}

func (t *tools) remember(ctx context.Context, in RememberInput) (RememberOutput, error) {
	e := episode.Episode{User: t.user, ExternalID: in.ID, UserText: in.UserText, ReplyText: in.ReplyText, OccurredAt: t.cfg.Now().UTC().Truncate(time.Second)}
	if strings.TrimSpace(in.UserText) == "" && strings.TrimSpace(in.ReplyText) == "" {
		return RememberOutput{}, errors.New("user_text is empty: give what the person said")
	}
	var err error
	if in.OccurredAt != "" {
		if e.OccurredAt, err = time.Parse(time.RFC3339, in.OccurredAt); err != nil {
			return RememberOutput{}, fmt.Errorf("occurred_at %q: want RFC 3339, e.g. 2026-05-01T21:30:00+09:00", in.OccurredAt)
		}
	}
	if in.Kind != "" {
		if e.Kind, err = episode.ParseKind(in.Kind); err != nil {
			return RememberOutput{}, err
		}
	}
	if in.Sensitivity != "" {
		if e.Sensitivity, err = episode.ParseSensitivity(in.Sensitivity); err != nil {
			return RememberOutput{}, err
		}
	}
	if e.Sensitivity > t.cfg.MaxSensitivity {
		return RememberOutput{}, fmt.Errorf("sensitivity %s is above what this server shows (%s): it would be stored where no recall, list or forget of this server reaches it, so it was not; the server's -max-request-sensitivity %s admits it", e.Sensitivity, t.cfg.MaxSensitivity, e.Sensitivity)
	}
	if in.ID != "" {
		if err := episode.CheckExternalID(in.ID); err != nil {
			return RememberOutput{}, err
		}
		if in.OccurredAt == "" {
			// A retry of a remember that left the time to now: the time
			// stored the first time, not this call's, is its content.
			id, err := t.mem.Store.IDByExternal(ctx, t.user, in.ID)
			if err != nil {
				return RememberOutput{}, err
			}
			if id != 0 {
				if old, err := t.mem.Store.Get(ctx, id); err == nil {
					e.OccurredAt = old.OccurredAt
				}
			}
		}
	}
	r, err := t.mem.Put(ctx, false, e)
	if errors.Is(err, episode.ErrConflict) {
		return RememberOutput{}, fmt.Errorf("id %q is already a memory with other content: remember this one under another id, or forget_memory that one first", in.ID)
	}
	if err != nil {
		return RememberOutput{}, err
	}
	out := RememberOutput{ID: r.IDs[0], Stored: "added"}
	if r.Added == 0 {
		out.Stored = "present"
	}
	return out, nil
}

// ListInput is list_memories' arguments.
type ListInput struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the page before; absent: the newest"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 100; absent: 20"`
}

// ListOutput is a page of list_memories.
type ListOutput struct {
	Memories   []Memory `json:"memories" jsonschema:"newest first"`
	NextCursor string   `json:"next_cursor,omitempty" jsonschema:"pass it as cursor for the next page; absent on the last"`
}

func (t *tools) list(ctx context.Context, in ListInput) (ListOutput, error) {
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultPage
	case limit < 1 || limit > MaxPage:
		return ListOutput{}, fmt.Errorf("limit %d: want 1 to %d", limit, MaxPage)
	}
	var after sqlite.Cursor
	if in.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err == nil {
			after, err = sqlite.ParseCursor(string(b))
		}
		if err != nil {
			return ListOutput{}, fmt.Errorf("cursor %q is not one list_memories gave: start again without one", in.Cursor)
		}
	}
	eps, err := t.mem.Store.Newest(ctx, t.user, after, t.cfg.MaxSensitivity, limit+1)
	if err != nil {
		return ListOutput{}, err
	}
	out := ListOutput{Memories: []Memory{}}
	if len(eps) > limit {
		eps = eps[:limit]
		out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(sqlite.CursorOf(eps[len(eps)-1]).String()))
	}
	for _, e := range eps {
		out.Memories = append(out.Memories, memoryOf(e))
	}
	return out, nil
}

// ForgetMemoryInput is forget_memory's arguments.
type ForgetMemoryInput struct {
	ID int64 `json:"id" jsonschema:"the memory's id, from recall or list_memories"`
}

// ForgetMemoryOutput is forget_memory's result.
type ForgetMemoryOutput struct {
	Deleted int64 `json:"deleted" jsonschema:"the id of the memory deleted"`
}

func (t *tools) forgetMemory(ctx context.Context, in ForgetMemoryInput) (ForgetMemoryOutput, error) {
	if in.ID <= 0 {
		return ForgetMemoryOutput{}, fmt.Errorf("id %d: a memory's id is a positive number, from recall or list_memories", in.ID)
	}
	e, err := t.mem.Store.Get(ctx, in.ID)
	if errors.Is(err, episode.ErrNotFound) || err == nil && e.User != t.user {
		// Another person's memory is as absent; the person's own goes at
		// any level, the ceiling bounding what is shown, not what may go.
		return ForgetMemoryOutput{}, fmt.Errorf("id %d: this person has no such memory (already forgotten, or never stored)", in.ID)
	}
	if err != nil {
		return ForgetMemoryOutput{}, err
	}
	d, err := t.mem.Delete(ctx, in.ID)
	if err != nil {
		return ForgetMemoryOutput{}, err
	}
	if len(d.Episodes) == 0 {
		return ForgetMemoryOutput{}, fmt.Errorf("id %d: this person has no such memory (already forgotten, or never stored)", in.ID)
	}
	return ForgetMemoryOutput{Deleted: in.ID}, nil
}

// ForgetPersonInput is forget_person's arguments.
type ForgetPersonInput struct {
	Confirm string `json:"confirm" jsonschema:"the person's name, exactly: what the person asked to have forgotten"`
}

// ForgetPersonOutput is forget_person's result.
type ForgetPersonOutput struct {
	Erased int `json:"erased" jsonschema:"how many memories were erased"`
}

func (t *tools) forgetPerson(ctx context.Context, in ForgetPersonInput) (ForgetPersonOutput, error) {
	if in.Confirm != t.user {
		return ForgetPersonOutput{}, errors.New("confirm is not this person's name: nothing was forgotten")
	}
	e, err := t.mem.Forget(ctx, t.user)
	if err != nil {
		return ForgetPersonOutput{}, err
	}
	return ForgetPersonOutput{Erased: e.Episodes}, nil
}

// Handler serves the tools over streamable HTTP, one person per request:
// each request is served by a server made for the person For was given
// (stateless: no session outlives a request, so no request acts for a
// person another request named). It is safe for concurrent use.
type Handler struct {
	mem   *omoide.Memory
	cfg   Config
	cache *mcp.SchemaCache
}

// NewHandler returns the HTTP side of the tools over mem.
func NewHandler(mem *omoide.Memory, cfg Config) *Handler {
	return &Handler{mem: mem, cfg: cfg, cache: mcp.NewSchemaCache()}
}

// For returns the streamable HTTP handler of user's tools. A name that is no
// person's is a 400.
func (h *Handler) For(user string) http.Handler {
	srv, err := newServer(h.mem, user, h.cfg, h.cache)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, err.Error(), http.StatusBadRequest) })
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: cmp.Or(h.cfg.MaxBody, DefaultMaxBody)})
}
