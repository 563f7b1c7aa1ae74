package omoidehttp

import "net/http"

// route is one endpoint: NewHandler mounts it and OpenAPI describes it, so
// that the API and its description are made from one table.
type route struct {
	method, path string
	h            func(s *Handler, w http.ResponseWriter, r *http.Request) (any, error)
	summary      string
	body         string // the request body's schema (components/schemas), "" for none
	answer       string // the 200 answer's schema
	query        []param
	// reach marks a route that reaches a stored person (export, delete,
	// forget, hold): it serves a person this node holds whatever their name
	// or owner (Handler.person).
	reach bool
}

// param is a query parameter of a route.
type param struct {
	name, typ, doc string
}

// pageQuery are the query parameters of a listing.
var pageQuery = []param{
	{"limit", "integer", "at most this many (1 to MaxPage; default 100)"},
}

// routeTable is the API, every endpoint of it (a function, not a variable:
// the description it makes is itself one of its routes).
func routeTable() []route {
	return []route{
		{http.MethodPost, "/v1/episodes", (*Handler).addEpisodes, "store episodes (the same id again is a no-op)", "Episodes", "Stored", nil, false},
		{http.MethodPut, "/v1/episodes", (*Handler).updateEpisodes, "store episodes, replacing one stored under the same user and id with other content", "Episodes", "Stored", nil, false},
		{http.MethodPost, "/v1/retrieve", (*Handler).retrieve, "the episodes worth reminding the model of", "RetrieveRequest", "Result", nil, false},
		{http.MethodPost, "/v1/pack", (*Handler).pack, "the EPISODE_EVIDENCE section for the prompt, with the retrieval behind it", "PackRequest", "Pack", nil, false},
		{http.MethodPost, "/v1/users/{user}/episodes", (*Handler).addEpisodes, "POST /v1/episodes, the person in the path", "Episodes", "Stored", nil, false},
		{http.MethodPut, "/v1/users/{user}/episodes", (*Handler).updateEpisodes, "PUT /v1/episodes, the person in the path", "Episodes", "Stored", nil, false},
		{http.MethodPost, "/v1/users/{user}/retrieve", (*Handler).retrieve, "POST /v1/retrieve, the person in the path", "RetrieveRequest", "Result", nil, false},
		{http.MethodPost, "/v1/users/{user}/pack", (*Handler).pack, "POST /v1/pack, the person in the path", "PackRequest", "Pack", nil, false},
		{http.MethodDelete, "/v1/episodes/{id}", (*Handler).deleteEpisode, "delete one episode (404 when absent)", "", "Deleted", nil, true},
		{http.MethodDelete, "/v1/users/{user}/episodes/{external_id}", (*Handler).deleteExternal, "delete one episode by its external id (404 when absent)", "", "Deleted", nil, true},
		{http.MethodDelete, "/v1/users/{user}", (*Handler).forget, "forget the person: every episode and their name, erased", "", "Forgotten", nil, true},
		{http.MethodGet, "/v1/users/{user}/episodes", (*Handler).listEpisodes, "the person's episodes, page by page, as records POST /v1/episodes takes back", "", "EpisodePage",
			append([]param{{"after", "integer", "the next of the last page"}}, pageQuery...), true},
		{http.MethodGet, "/v1/users", (*Handler).listPeople, "the node's people with their episode counts, page by page", "", "People",
			append([]param{{"after", "string", "the next of the last page"}}, pageQuery...), false},
		{http.MethodGet, "/v1/node", (*Handler).nodeName, "this node's name (-node)", "", "Node", nil, false},
		{http.MethodPost, "/v1/users/{user}/hold", (*Handler).holdUser, "hold the person's writes (503 with Retry-After) for a move", "HoldRequest", "Hold", nil, true},
		{http.MethodDelete, "/v1/users/{user}/hold", (*Handler).releaseUser, "release a hold (with the X-Omoide-Hold header)", "", "Released", nil, true},
		{http.MethodGet, "/v1/openapi.json", (*Handler).openAPI, "this description", "", "OpenAPI", nil, false},
		{http.MethodGet, "/healthz", (*Handler).healthz, "the store's statistics (no token needed)", "", "Health", nil, false},
	}
}
