package omoidehttp

import (
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/wire"
)

// The answers of the API, one Go type each: the handlers write them, the
// Client reads them, and OpenAPI describes them from their fields and tags
// (openapitypes.go), as it describes a retrieval's from retriever.Result. A
// field without omitempty is always in the answer, and required in its
// description; a "doc" tag is the field's description there.

// ErrorAnswer is the answer of every error: {"error": "..."}.
type ErrorAnswer struct {
	Error string `json:"error"`
}

// Pack answers POST /v1/pack: the rendered section and the retrieval behind
// it, the shape omoide retrieve -pack -json writes too. (POST /v1/retrieve
// answers a retriever.Result.)
type Pack = wire.Pack

// Stored answers POST and PUT /v1/episodes: the store ids of the episodes,
// in the body's order.
type Stored struct {
	IDs        []int64 `json:"ids"`
	Unsearched int     `json:"unsearched" doc:"of them, how many the default filter does not search"`
}

// Deleted answers DELETE /v1/episodes/{id} and
// /v1/users/{user}/episodes/{external_id}.
type Deleted struct {
	Deleted int   `json:"deleted"`
	ID      int64 `json:"id"`
}

// Forgotten answers DELETE /v1/users/{user} (Memory.Forget): what the
// erasure removed and freed, and what it does not reach (ForgetCopies).
type Forgotten struct {
	User         string `json:"user"`
	Deleted      int    `json:"deleted"`
	BytesFreed   int64  `json:"bytes_freed"`
	Checkpointed bool   `json:"checkpointed"`
	Copies       string `json:"copies"`
}

// EpisodePage answers GET /v1/users/{user}/episodes: one page of the
// person's episodes, as records POST /v1/episodes takes back; Next, the
// ?after= of the next page, is nil on the last.
type EpisodePage struct {
	User     string           `json:"user"`
	Episodes []episode.Record `json:"episodes"`
	Next     *int64           `json:"next,omitempty"`
}

// People answers GET /v1/users: one page of the node's people with their
// episode counts; Next, the ?after= of the next page, is nil on the last.
type People struct {
	Users []sqlite.Person `json:"users"`
	Next  *string         `json:"next,omitempty"`
}

// Node answers GET /v1/node: the node's name (Config.Node).
type Node struct {
	Node string `json:"node"`
}

// Hold answers POST /v1/users/{user}/hold: the hold's token, which lets
// the person's writes through (HoldHeader), and its end.
type Hold struct {
	User  string    `json:"user"`
	Token string    `json:"token"`
	Until time.Time `json:"until"`
}

// Released answers DELETE /v1/users/{user}/hold.
type Released struct {
	User     string `json:"user"`
	Released bool   `json:"released"`
}

// Health answers GET /healthz: the store's statistics, without the file's
// path. OK, Episodes, Users and Consistent are what a health check is
// promised (its description requires those alone); the others may change
// with the store.
type Health struct {
	OK   bool   `json:"ok"`
	Node string `json:"node,omitempty"`
	wire.Stats
}
