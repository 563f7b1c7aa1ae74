package omoidehttp

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// OpenAPI returns the OpenAPI 3.1 description of the API, made from the
// route table NewHandler mounts; GET /v1/openapi.json serves it, and
// docs/openapi.json is a copy (TestOpenAPIFile keeps it current).
func OpenAPI() []byte {
	openAPIOnce.Do(func() { openAPIJSON = buildOpenAPI() })
	return openAPIJSON
}

// openAPIJSON is OpenAPI's answer, built once on first use and read-only
// after (a variable without an initializer: the description is one of the
// routes it describes).
var (
	openAPIOnce sync.Once
	openAPIJSON []byte
)

func buildOpenAPI() []byte {
	paths := map[string]map[string]any{}
	pathParam := regexp.MustCompile(`\{(\w+)\}`)
	for _, rt := range routeTable() {
		op := map[string]any{
			"summary":     rt.summary,
			"operationId": operationID(rt),
			"responses": map[string]any{
				"200":     jsonContent("the answer", ref(rt.answer)),
				"default": jsonContent("an error: 400 bad input, 401 no token, 404, 405, 409 other content under a stored id, 413 body too large, 421 a person another node owns, 500, 503 held or over the time limit", ref("Error")),
			},
		}
		if rt.path == "/healthz" {
			op["security"] = []any{}
		}
		if rt.body != "" {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref(rt.body)}}}
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			typ := "string"
			if m[1] == "id" {
				typ = "integer"
			}
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": typ}})
		}
		for _, q := range rt.query {
			params = append(params, map[string]any{"name": q.name, "in": "query", "description": q.doc, "schema": map[string]any{"type": q.typ}})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if paths[rt.path] == nil {
			paths[rt.path] = map[string]any{}
		}
		paths[rt.path][strings.ToLower(rt.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "omoide", "version": "1",
			"description": "Long-term memory of a chat companion's conversations: store exchanges, retrieve the ones worth reminding the model of."},
		"paths":    paths,
		"security": []any{map[string]any{"bearer": []any{}}},
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer",
				"description": "required when the server has a token (omoide serve -token); /healthz never needs it"}},
			"schemas": schemas(),
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // maps of strings and slices always marshal
	}
	return append(b, '\n')
}

func (s *Handler) openAPI(w http.ResponseWriter, r *http.Request) (any, error) {
	return json.RawMessage(OpenAPI()), nil
}

// operationID names a route's operation: its method and path in camel case.
func operationID(rt route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method))
	for _, part := range strings.FieldsFunc(rt.path, func(r rune) bool { return r == '/' || r == '{' || r == '}' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func jsonContent(desc string, schema any) map[string]any {
	return map[string]any{"description": desc, "content": map[string]any{"application/json": map[string]any{"schema": schema}}}
}

// object is a JSON object schema of props, the required ones named; closed
// objects admit no other property.
func object(props map[string]any, required []string, closed bool) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	if closed {
		o["additionalProperties"] = false
	}
	return o
}

func typ(t string) map[string]any      { return map[string]any{"type": t} }
func nullable(t string) map[string]any { return map[string]any{"type": []any{t, "null"}} }
func arrayOf(items any) map[string]any { return map[string]any{"type": "array", "items": items} }
func dateTime() map[string]any         { return map[string]any{"type": "string", "format": "date-time"} }
func nameOrNumber(names ...string) any {
	return map[string]any{"oneOf": []any{map[string]any{"enum": names}, typ("integer")}}
}
func withDoc(s map[string]any, doc string) map[string]any {
	s = maps.Clone(s)
	s["description"] = doc
	return s
}

// schemas are the bodies and answers of the routes.
func schemas() map[string]any {
	kind := nameOrNumber("episode", "fact", "summary", "loop")
	state := nameOrNumber("raw", "validated", "consolidated", "archived")
	sensitivity := nameOrNumber("normal", "private", "secret")
	record := object(map[string]any{
		"id":          withDoc(typ("string"), "the external id (or external_id: the same field)"),
		"external_id": typ("string"),
		"user":        typ("string"),
		"user_text":   typ("string"),
		"reply_text":  typ("string"),
		"occurred_at": withDoc(dateTime(), "RFC 3339; default now"),
		"source":      typ("string"),
		"kind":        kind, "state": state, "sensitivity": sensitivity,
	}, nil, true)
	message := object(map[string]any{"role": map[string]any{"enum": []any{"user", "assistant", "system"}}, "content": typ("string")}, []string{"role", "content"}, true)
	filter := object(map[string]any{
		"kinds": arrayOf(kind), "states": arrayOf(state), "max_sensitivity": sensitivity,
		"max_age_days": typ("integer"),
	}, nil, true)
	retrieve := map[string]any{
		"user":             typ("string"),
		"text":             withDoc(typ("string"), "the person's new message"),
		"recent":           withDoc(map[string]any{"type": []any{"array", "null"}, "items": ref("Message")}, "the turns before it, oldest first; null or absent: the person's last 30 minutes of stored exchanges; []: none"),
		"now":              withDoc(map[string]any{"type": []any{"string", "null"}, "format": "date-time"}, "the clock; default now"),
		"tz":               withDoc(typ("string"), "the person's time zone, e.g. Asia/Tokyo"),
		"with_candidates":  typ("boolean"),
		"filter":           map[string]any{"oneOf": []any{ref("Filter"), typ("null")}},
		"inject_threshold": nullable("number"),
		"lang":             map[string]any{"enum": []any{"", "ja", "zh", "ko", "en"}},
	}
	pack := maps.Clone(retrieve)
	pack["strategy"] = map[string]any{"enum": []any{"", "quote_key_parts", "summarize", "full"}}
	pack["reasons"] = withDoc(typ("boolean"), "show why each episode was picked")
	hit := object(map[string]any{
		"id": typ("integer"), "external_id": typ("string"), "user": typ("string"), "user_text": typ("string"),
		"reply_text": typ("string"), "occurred_at": dateTime(), "source": typ("string"),
		"kind": kind, "state": state, "sensitivity": sensitivity,
		"relevance": map[string]any{"enum": []any{"high", "medium"}}, "reason": typ("string"),
		"probability": typ("number"), "score": typ("number"), "rrf": typ("number"), "rrf_norm": typ("number"),
		"lex": typ("number"), "rec": typ("number"), "coverage": typ("number"), "proximity": typ("number"),
		"lacking": typ("number"), "cosine": typ("number"), "lex_message": typ("number"), "in_window": typ("boolean"),
	}, []string{"id", "user", "user_text", "reply_text", "occurred_at", "source", "kind", "state", "sensitivity",
		"score", "rrf", "rrf_norm", "lex", "rec", "coverage", "proximity", "lacking", "cosine", "lex_message"}, true)
	traceProps := map[string]any{
		"skipped": typ("string"), "clipped": typ("string"), "degraded": typ("string"), "window": typ("string"),
		"declined": typ("string"), "probability": typ("number"), "decision": typ("string"),
		"unknown_names": arrayOf(typ("string")), "queries": arrayOf(typ("string")), "bm25_match": arrayOf(typ("string")),
		"knn_hits": arrayOf(typ("integer")), "bm25_hits": arrayOf(typ("integer")),
	}
	required := []string{"queries", "bm25_match", "knn_hits", "bm25_hits"}
	for _, n := range []string{"candidates", "fetched", "echoes", "neighbors", "neighbors_added", "gated", "picked",
		"prepare_us", "embed_us", "knn_us", "bm25_us", "fuse_us", "fetch_us", "rerank_us", "total_us"} {
		traceProps[n] = typ("integer")
		required = append(required, n)
	}
	stats := map[string]any{
		"path": typ("string"), "schema_version": typ("integer"), "embedder": typ("string"), "embedder_name": typ("string"),
		"embedder_dim": typ("integer"), "analyzer": typ("string"), "episodes": typ("integer"), "users": typ("integer"),
		"fts_rows": typ("integer"), "vector_rows": typ("integer"), "consistent": typ("boolean"),
		"file_bytes": typ("integer"), "free_bytes": typ("integer"), "decision": typ("string"),
		"unsearched": typ("object"), "ok": typ("boolean"), "node": typ("string"),
	}
	return map[string]any{
		"Error":    object(map[string]any{"error": typ("string")}, []string{"error"}, false),
		"Record":   record,
		"Episodes": map[string]any{"oneOf": []any{arrayOf(ref("Record")), object(map[string]any{"episodes": arrayOf(ref("Record"))}, []string{"episodes"}, true)}},
		"Stored": object(map[string]any{"ids": arrayOf(typ("integer")),
			"unsearched": withDoc(typ("integer"), "of them, how many the default filter does not search")}, []string{"ids", "unsearched"}, true),
		"Message":         message,
		"Filter":          filter,
		"RetrieveRequest": object(retrieve, []string{"text"}, true),
		"PackRequest":     object(pack, []string{"text"}, true),
		"Hit":             hit,
		"Trace":           object(traceProps, required, true),
		"Result":          object(map[string]any{"hits": arrayOf(ref("Hit")), "candidates": arrayOf(ref("Hit")), "trace": ref("Trace")}, []string{"hits", "trace"}, true),
		"Pack": object(map[string]any{"section": typ("string"), "inject": typ("boolean"), "hits": arrayOf(ref("Hit")), "trace": ref("Trace")},
			[]string{"section", "inject", "hits", "trace"}, true),
		"Deleted": object(map[string]any{"deleted": typ("integer"), "id": typ("integer")}, []string{"deleted", "id"}, true),
		"Forgotten": object(map[string]any{"user": typ("string"), "deleted": typ("integer"), "bytes_freed": typ("integer"),
			"checkpointed": typ("boolean"), "copies": typ("string")}, []string{"user", "deleted", "bytes_freed", "checkpointed", "copies"}, true),
		"EpisodePage": object(map[string]any{"user": typ("string"), "episodes": arrayOf(ref("Record")), "next": typ("integer")},
			[]string{"user", "episodes"}, true),
		"People": object(map[string]any{"users": arrayOf(object(map[string]any{"user": typ("string"), "episodes": typ("integer")},
			[]string{"user", "episodes"}, true)), "next": typ("string")}, []string{"users"}, true),
		"Node":        object(map[string]any{"node": typ("string")}, []string{"node"}, true),
		"HoldRequest": object(map[string]any{"seconds": typ("integer"), "token": typ("string")}, nil, true),
		"Hold":        object(map[string]any{"user": typ("string"), "token": typ("string"), "until": dateTime()}, []string{"user", "token", "until"}, true),
		"Released":    object(map[string]any{"user": typ("string"), "released": typ("boolean")}, []string{"user", "released"}, true),
		"Health":      object(stats, []string{"ok", "episodes", "users", "consistent"}, true),
		"OpenAPI":     object(map[string]any{"openapi": typ("string")}, []string{"openapi"}, false),
	}
}
