package omoidehttp

import "time"

// Doc describes the HTTP API, its endpoints, fields and status codes (omoide
// serve -help prints it). It names the settings by their omoide serve flags;
// each is a field of Config or of the Memory the handler serves (-tz:
// Memory.Pack.Location, -inject-threshold: the retriever's options, -node:
// Config.Node, -token: Config.Token, -max-body: Config.MaxBody, -timeout:
// Config.RequestTimeout, -max-request-sensitivity:
// Config.MaxRequestSensitivity).
const Doc = `Endpoints (JSON in, JSON out; errors are {"error": "..."}):

  POST   /v1/episodes    store episodes: a JSON array, or {"episodes": [...]}, of
                         {"user", "user_text", "reply_text", "occurred_at" (RFC 3339; default now),
                          "id" or "external_id" (optional; re-adding the same one is a no-op;
                          without one, the same record again in a later request, occurred_at
                          included, is a retry, stored once; two records of one request are two
                          episodes; an id is no dot segment, "." or ".." (%2e too), and holds no
                          "/", "\\", "?", "#", control character or white space at either end,
                          so that no client resolves or splits it in a path),
                          "source", "kind" (episode|fact|summary|loop), "state" (raw|validated|
                          consolidated|archived), "sensitivity" (normal|private|secret) (optional)}
                         bounds (400 beyond): user_text and reply_text together 16384 bytes, user
                         256, id 512, source 128; occurred_at from 1900 to 9999
                         -> {"ids": [store ids, in order], "unsearched": n (of them, how many a
                             retrieval without a filter does not search: private, secret or
                             archived, or above -max-request-sensitivity)}
                         409 for an id stored with other content (PUT replaces it)
  POST   /v1/retrieve    {"user", "text", "recent": [{"role": "user"|"assistant"|"system", "content"}],
                          "now" (RFC 3339; default now), "tz" (the person's time zone, e.g.
                          "Asia/Tokyo": the days of "昨日" and of the evidence dates; default -tz),
                          "with_candidates" (bool), "inject_threshold" (0 to 1; default
                          -inject-threshold), "filter": {"kinds": [...], "states": [...],
                          "max_sensitivity", "max_age_days"} (each field given replaces the
                          server's; max_sensitivity up to what the server returns), "lang" (ja, zh,
                          ko or en: the message's language where its script does not tell, e.g.
                          a Japanese person's Han-only 東京都庁)}
                         -> {"hits": [{"id", "external_id", "user", "user_text", "reply_text",
                             "occurred_at", "relevance", "reason", "score", "rrf", "rrf_norm",
                             "lex", "rec", ...}], "trace": {"queries", "candidates", "picked",
                             "embed_us", "knn_us", "bm25_us", ..., "total_us"}}
                         "recent" left out (or null) means: the user's exchanges of the last 30
                         minutes are the context; [] means no context. A message or turn over
                         16384 bytes is searched by its head (trace "clipped").
                         Searched by default: every kind, every state but archived, normal
                         sensitivity (a private conversation: "filter": {"max_sensitivity":
                         "private"}). POST /v1/episodes answers "unsearched": how many of its
                         episodes that leaves out; omoide stats counts the store's.
  POST   /v1/pack        the same body, plus optional "strategy" and "reasons" (true: the score parts)
                         -> {"section": "[EPISODE_EVIDENCE]...", "inject": bool, "hits", "trace"}
                         ("section" is "" and "inject" false when nothing is worth injecting)
  POST   /v1/users/{user}/episodes (and PUT), /v1/users/{user}/retrieve, /v1/users/{user}/pack
                         the same, the person in the path ("user" may be left out of the body),
                         for a proxy that routes people to nodes without reading bodies
  DELETE /v1/episodes/{id}  (X-Omoide-User: whose) -> {"deleted": 1, "id"}; 404 when absent
  DELETE /v1/users/{user}/episodes/{external_id} -> {"deleted": 1, "id"}; 404 when absent
  DELETE /v1/users/{user}  (X-Omoide-Forget: the same person, in the X-Omoide-User wire form)
                         forget the person -> {"user", "deleted": n, "copies": what the copies keep};
                         400 without the header, or naming anyone else: nothing is erased
  GET    /v1/node        {"node": the -node name}
  GET    /v1/users       the node's people: ?after=NAME&limit=N -> {"users": [{"user", "episodes"}], "next"}
  POST   /v1/users/{user}/hold    {"seconds", "token"} -> {"user", "token", "until"}: the person's writes get 503
                         with Retry-After until then, unless they carry "X-Omoide-Hold: TOKEN" (omoide move)
  DELETE /v1/users/{user}/hold    (with X-Omoide-Hold) release it -> {"user", "released": true}
  GET    /v1/openapi.json  this API's OpenAPI 3.1 description (docs/openapi.json is a copy)
  GET    /healthz        {"ok": true, "node" (-node), "episodes", "users", "fts_rows", "vector_rows",
                          "consistent", "embedder", "analyzer", "schema_version", "file_bytes"}

A person's name is 1 to 256 bytes of UTF-8 with no white space at either end, no control
character, not "." or "..", and no "/" or "\" (400 otherwise: a client or proxy would change it).
Path segments are percent-encoded (a user "a b" is /v1/users/a%20b). The header X-Omoide-User
names the person of a request whose path does not (POST /v1/episodes, /v1/retrieve, /v1/pack,
DELETE /v1/episodes/{id}), in one wire form: what encodeURIComponent writes, every byte but
A-Z a-z 0-9 - _ . ! ~ * ' ( ) percent-encoded in upper-case hex (はるか is
%E3%81%AF%E3%82%8B%E3%81%8B, so that header sent as it is names はるか; "line:U123" is
line%3AU123, "50%" is 50%25); any other spelling is a 400 naming the right one, since the proxy
routes by the header as sent. A request routed as one person by its path or that header is
refused (400) when its body names another; DELETE /v1/episodes/{id} needs the header (400
without) and finds only that person's episode (404). With a token
(-token or OMOIDE_TOKEN) every endpoint but /healthz needs "Authorization: Bearer TOKEN"
(else 401). Bodies, paths and the header are UTF-8: anything else (Shift_JIS, a lone surrogate
escape) is a 400, never replaced. With -peers (Config.Peers: the proxy's node list, env
OMOIDE_NODES) a node answers 421 to the writes and retrievals of a person another node owns, so
that no proxy can split a person over two nodes; a person it holds all the same (stored before the
list) can still be exported, deleted from, forgotten and held for omoide move, and serve says at
start how many it holds. A retrieval or pack returns episodes up to -max-request-sensitivity
(normal by default) whatever the preset and the filter. Bodies are read one way only: a key given twice, or differing from the field's only by case
("USER" for "user"), is a 400 naming it, at any depth, as is a value of the wrong type (the
error names the field, e.g. episodes[2].occurred_at). Paths are taken as sent: a path with an
empty segment ("//", a trailing "/") or a dot segment ("." or "..", %2e too) is a 400 naming it,
and nothing answers with a redirect. Status codes: 400 bad JSON, unknown field or invalid input; 404; 405; 409; 413
body over -max-body; 421 a person another node owns; 500 store or embedder failure; 503 request
over -timeout.
`

// DefaultMaxBody is the request body limit of a Config whose MaxBody is 0.
const DefaultMaxBody = 4 << 20

// DefaultRequestTimeout is the time limit of a request under a Config whose
// RequestTimeout is 0.
const DefaultRequestTimeout = 30 * time.Second
