package omoidehttp

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
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
		key := rt.method + " " + rt.path
		op := map[string]any{
			"summary":     rt.summary,
			"operationId": operationID(rt),
			"responses":   responses(rt),
		}
		if rt.path == "/healthz" {
			op["security"] = []any{}
		}
		if rt.body != "" {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref(rt.body)}}}
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			schema, doc := typ("string"), ""
			switch m[1] {
			case "id":
				schema, doc = typ("integer"), "the episode's id, as POST /v1/episodes answers it"
			case "user":
				schema, doc = personName(), "the person's name, an ordinary percent-encoded path segment (Go's url.PathEscape, JavaScript's encodeURIComponent); "+nameRule
				if rt.reach {
					doc += "; a person stored before the rule (omoide check names them) is still reached here, to be exported, erased or moved"
				}
			case "external_id":
				doc = "the id the episode was stored under (its record's id), an ordinary percent-encoded path segment"
			}
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "description": doc, "schema": schema})
		}
		if !nodeRoutes[key] {
			// Required where nothing else names the person (DELETE
			// /v1/episodes/{id}): an id alone could be anyone's.
			named := strings.Contains(rt.path, "{user}") || rt.body != ""
			params = append(params, map[string]any{"name": UserHeader, "in": "header", "required": !named, "description": userHeaderDoc,
				"schema": map[string]any{"type": "string", "pattern": userHeaderPattern}})
		}
		if key == "DELETE /v1/users/{user}" {
			params = append(params, map[string]any{"name": ForgetHeader, "in": "header", "required": true, "description": forgetHeaderDoc,
				"schema": map[string]any{"type": "string", "pattern": userHeaderPattern}})
		}
		switch {
		case key == "DELETE /v1/users/{user}/hold":
			params = append(params, map[string]any{"name": HoldHeader, "in": "header", "required": true,
				"description": "the token of the hold to release", "schema": typ("string")})
		case heldWrites[key]:
			params = append(params, map[string]any{"name": HoldHeader, "in": "header", "description": holdHeaderDoc, "schema": typ("string")})
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
		"servers":  []any{map[string]any{"url": "http://127.0.0.1:8765", "description": "omoide serve's default address"}},
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

// nodeRoutes are the routes of the node as a whole, for no one person: the
// others take UserHeader.
var nodeRoutes = map[string]bool{"GET /v1/users": true, "GET /v1/node": true, "GET /v1/openapi.json": true, "GET /healthz": true}

// heldWrites are the routes that write a person's memory: while the person
// is held (POST /v1/users/{user}/hold) they answer 503 with Retry-After,
// unless the request carries the hold's token in HoldHeader
// (TestOpenAPIHeldWrites checks this set against the handler).
var heldWrites = map[string]bool{
	"POST /v1/episodes": true, "PUT /v1/episodes": true, "POST /v1/users/{user}/episodes": true, "PUT /v1/users/{user}/episodes": true,
	"DELETE /v1/episodes/{id}": true, "DELETE /v1/users/{user}/episodes/{external_id}": true, "DELETE /v1/users/{user}": true,
}

// bodyUserDoc describes a body's "user".
const bodyUserDoc = "the person; may be left out (or \"\") when the path or the " + UserHeader + " header names them, and must be the same person when both do; " + nameRule

// nameRule is the rule of a person's name (episode.CheckUser), as the
// description states it.
const nameRule = "a name is 1 to 256 bytes of UTF-8 with no white space at either end, no control character, " +
	"not \".\" or \"..\", and no \"/\" or \"\\\"; any other is refused with 400"

// userHeaderDoc describes UserHeader: its wire form is EncodeUser's.
const userHeaderDoc = "The person the request is for, in the header's wire form: what JavaScript's encodeURIComponent writes of the name " +
	"(Python: urllib.parse.quote(name, safe=\"!*'()\"); Go: omoidehttp.EncodeUser): its UTF-8 bytes, each byte but A-Z a-z 0-9 and - _ . ! ~ * ' ( ) " +
	"percent-encoded as %XX with upper-case hex (mika: mika; line:U123: line%3AU123; a@b: a%40b; はるか: %E3%81%AF%E3%82%8B%E3%81%8B; 50%: 50%25; " +
	"\" mika\": %20mika, which the name rule then refuses, where header parsing would have trimmed it into mika's). This is the one canonical form: " +
	"the node decodes it and refuses any other (raw non-ASCII bytes, line:U123 unencoded, lower-case hex, %41 for A) with 400; a generated " +
	"client passes the encoded name as this parameter. A proxy routes each person to one node by this header " +
	"(deploy/Caddyfile), so send it on every request for a person; on a /v1/users/{user}/... route it must name the " +
	"path's person, and a body that names a person must name the same one (400 otherwise). The name rule: " + nameRule + "."

// idRule is episode.CheckExternalID's rule in the description's words.
const idRule = `not "." or ".." (nor with a dot written %2e), and no "/", "\", "?", "#", control character or white space at either end, ` +
	"so that no client resolves or splits it in a path (DELETE /v1/users/{user}/episodes/{external_id})"

// userHeaderPattern is the canonical wire form of UserHeader:
// encodeURIComponent's unreserved characters as they are, every other byte
// as %XX (upper-case hex), never an unreserved one encoded.
const userHeaderPattern = `^(?:[A-Za-z0-9_.!~*'()-]|%(?:[01][0-9A-F]|2[02-6BCF]|3[A-F]|40|5[B-E]|60|7[B-DF]|[89A-F][0-9A-F]))+$`

// forgetHeaderDoc describes ForgetHeader.
const forgetHeaderDoc = "Confirms the forget: the path's person again, in the " + UserHeader + " header's wire form (Go: omoidehttp.EncodeUser). " +
	"Without it, or naming anyone else, the forget is refused with 400 and nothing is erased, so that no DELETE whose path a client, " +
	"proxy or template rewrote (a resolved \"..\", an empty episode id) can become a forget. Required since this header was added; before, the DELETE alone forgot"

// holdHeaderDoc describes HoldHeader on a write.
const holdHeaderDoc = "the token of a hold (POST /v1/users/{user}/hold): while the person is held, their writes are refused " +
	"with 503 and Retry-After unless they carry it (omoide move)"

// responses are a route's answers: the 200 with its schema, and the errors
// it can give, each an Error.
func responses(rt route) map[string]any {
	key := rt.method + " " + rt.path
	out := map[string]any{
		"200":     jsonContent("the answer", ref(rt.answer)),
		"400":     jsonContent("bad input: a field, a value, a name (the path's, the header's or the body's), a header's wire form, a key given twice or differing from the field's only by case, a path with an empty or dot segment (never redirected)", ref("Error")),
		"503":     jsonContent("over the time limit (omoide serve -timeout), or cancelled", ref("Error")),
		"default": jsonContent("another error: 404 absent, 405 method not allowed, 409 other content under a stored id (PUT replaces it), 500", ref("Error")),
	}
	if rt.path != "/healthz" {
		out["401"] = jsonContent("no token, or not the server's", ref("Error"))
	}
	if rt.body != "" {
		out["413"] = jsonContent("the body is larger than the server's limit (omoide serve -max-body)", ref("Error"))
	}
	if !nodeRoutes[key] {
		out["421"] = jsonContent("the person is another node's (omoide serve -peers): a proxy sent the request to the wrong node", ref("Error"))
	}
	if heldWrites[key] {
		r := jsonContent("the person is held for a move (Retry-After says when to try again), or over the time limit", ref("Error"))
		r["headers"] = map[string]any{"Retry-After": map[string]any{
			"description": "when the person is held: the seconds to wait before retrying (1 to 30)",
			"schema":      map[string]any{"type": "integer", "minimum": 1, "maximum": 30}}}
		out["503"] = r
	}
	return out
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

func typ(t string) map[string]any { return map[string]any{"type": t} }

// bounded gives a string schema its bound of n bytes: maxLength (which JSON
// Schema counts in characters, never more than bytes) and its description.
func bounded(s map[string]any, n int) map[string]any {
	s["maxLength"] = n
	if d, ok := s["description"].(string); ok {
		s["description"] = fmt.Sprintf("%s; at most %d bytes of UTF-8", d, n)
	} else {
		s["description"] = fmt.Sprintf("at most %d bytes of UTF-8", n)
	}
	return s
}
func arrayOf(items any) map[string]any { return map[string]any{"type": "array", "items": items} }
func dateTime() map[string]any         { return map[string]any{"type": "string", "format": "date-time"} }
func nameOrNumber(names ...string) map[string]any {
	return map[string]any{"oneOf": []any{map[string]any{"type": "string", "enum": names}, withDoc(typ("integer"), "its number")}}
}
func number() map[string]any { return map[string]any{"type": "number", "format": "double"} }

// fateNames are the names of rerank's fates, in order.
func fateNames() []string {
	var out []string
	for f := rerank.FateInjected; f <= rerank.FateEcho; f++ {
		out = append(out, f.String())
	}
	return out
}

func enum(values ...string) map[string]any { return map[string]any{"type": "string", "enum": values} }

// personName is the schema of a person's name where one is required: 1 to
// 256 bytes, so at most 256 characters (JSON Schema counts characters).
func personName() map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "maxLength": episode.MaxUserLen}
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
	record := withDoc(object(map[string]any{
		"id":          bounded(withDoc(typ("string"), "the external id (or external_id: the same field): "+idRule), episode.MaxExternalIDLen),
		"external_id": bounded(typ("string"), episode.MaxExternalIDLen),
		"user":        bounded(withDoc(typ("string"), bodyUserDoc), episode.MaxUserLen),
		"user_text":   bounded(withDoc(typ("string"), "with reply_text at most 16384 bytes together"), episode.MaxTextBytes),
		"reply_text":  bounded(withDoc(typ("string"), "with user_text at most 16384 bytes together"), episode.MaxTextBytes),
		"occurred_at": withDoc(dateTime(), "RFC 3339, from 1900 to 9999 (the zero time is refused); default now"),
		"source":      bounded(withDoc(typ("string"), "where the episode came from: chat (default), reminder, line:group-42"), episode.MaxSourceLen),
		"kind":        kind, "state": state, "sensitivity": sensitivity,
	}, nil, true), fmt.Sprintf("an episode: its texts and names hold at most %d bytes in all (user %d, id %d, source %d, texts %d; 400 beyond)",
		episode.MaxRecordBytes, episode.MaxUserLen, episode.MaxExternalIDLen, episode.MaxSourceLen, episode.MaxTextBytes))
	message := object(map[string]any{"role": withDoc(enum("user", "assistant", "system"), "system turns are ignored"), "content": typ("string")}, []string{"role", "content"}, true)
	filter := object(map[string]any{
		"kinds": arrayOf(kind), "states": arrayOf(state), "max_sensitivity": sensitivity,
		"max_age_days": typ("integer"),
	}, nil, true)
	retrieve := map[string]any{
		"user":            withDoc(typ("string"), bodyUserDoc),
		"text":            withDoc(typ("string"), "the person's new message"),
		"recent":          withDoc(map[string]any{"type": []any{"array", "null"}, "items": ref("Message")}, "the turns before it, oldest first; null or absent: the person's last 30 minutes of stored exchanges; []: none"),
		"now":             withDoc(map[string]any{"type": []any{"string", "null"}, "format": "date-time"}, "the clock; default now"),
		"tz":              withDoc(typ("string"), "the person's time zone, e.g. Asia/Tokyo"),
		"with_candidates": typ("boolean"),
		"filter":          map[string]any{"oneOf": []any{ref("Filter"), typ("null")}},
		"inject_threshold": withDoc(map[string]any{"type": []any{"number", "null"}, "format": "double", "minimum": 0, "maximum": 1},
			"the probability from which the section is injected, 0 to 1; null or absent: the preset's"),
		"lang": map[string]any{"type": "string", "pattern": lang.Pattern, "examples": []any{"ja", "ja-JP", "zh-Hant", "ko", "en", ""},
			"description": "the message's language where its script does not tell (a Japanese person's Han-only 東京都庁): " +
				"a BCP 47 tag whose primary subtag is ja, zh, ko or en, in any case (ja, JA, ja-JP, zh-Hant-TW), each further subtag " +
				"1 to 8 ASCII letters or digits, with no surrounding space; en and \"\" (or absent) name none; any other is a 400"},
	}
	pack := maps.Clone(retrieve)
	pack["strategy"] = withDoc(enum("", "quote_key_parts", "summarize", "full"), "how the section quotes each episode; \"\": the preset's")
	pack["reasons"] = withDoc(typ("boolean"), "show why each episode was picked")
	// The answers: each from its Go type, the one the handler writes.
	ts := typeSchemas{
		refs: map[reflect.Type]string{reflect.TypeFor[episode.Record](): "Record",
			reflect.TypeFor[retriever.Hit](): "Hit", reflect.TypeFor[retriever.Trace](): "Trace"},
		named: map[reflect.Type]map[string]any{reflect.TypeFor[episode.Kind](): kind, reflect.TypeFor[episode.State](): state,
			reflect.TypeFor[episode.Sensitivity](): sensitivity, reflect.TypeFor[rerank.Relevance](): enum("high", "medium"),
			reflect.TypeFor[rerank.Fate](): enum(fateNames()...),
			reflect.TypeFor[time.Time]():   dateTime()},
	}
	errorAnswer := ts.schemaOf(ErrorAnswer{})
	delete(errorAnswer, "additionalProperties") // a failed health check adds "ok": false
	health := ts.schemaOf(Health{})
	// What a health check promises; the other statistics may change with
	// the store.
	health["required"] = []string{"ok", "episodes", "users", "consistent"}
	return map[string]any{
		"Error":           errorAnswer,
		"Record":          record,
		"Episodes":        map[string]any{"oneOf": []any{arrayOf(ref("Record")), object(map[string]any{"episodes": arrayOf(ref("Record"))}, []string{"episodes"}, true)}},
		"Stored":          ts.schemaOf(Stored{}),
		"Message":         message,
		"Filter":          filter,
		"RetrieveRequest": object(retrieve, []string{"text"}, true),
		"PackRequest":     object(pack, []string{"text"}, true),
		"Hit":             ts.schemaOf(retriever.Hit{}),
		"Trace":           ts.schemaOf(retriever.Trace{}),
		"Result":          ts.schemaOf(retriever.Result{}),
		"Pack":            ts.schemaOf(Pack{}),
		"Deleted":         ts.schemaOf(Deleted{}),
		"Forgotten":       ts.schemaOf(Forgotten{}),
		"EpisodePage":     ts.schemaOf(EpisodePage{}),
		"People":          ts.schemaOf(People{}),
		"Node":            ts.schemaOf(Node{}),
		"HoldRequest":     object(map[string]any{"seconds": typ("integer"), "token": typ("string")}, nil, true),
		"Hold":            ts.schemaOf(Hold{}),
		"Released":        ts.schemaOf(Released{}),
		"Health":          health,
		"OpenAPI":         object(map[string]any{"openapi": typ("string")}, []string{"openapi"}, false),
	}
}
