package omoidehttp

import (
	"net/http"

	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/wire"
)

func (s *Handler) healthz(w http.ResponseWriter, r *http.Request) (any, error) {
	st, err := s.mem.Store.Stats(r.Context())
	if err != nil {
		s.cfg.Logger.Error("health check failed", "error", err.Error())
		writeJSONStatus(w, http.StatusServiceUnavailable, unhealthy{Error: err.Error()})
		return nil, errWritten
	}
	js := wire.StatsOf("", st) // the file's path stays private
	return Health{OK: true, Node: s.cfg.Node, Stats: js}, nil
}

// unhealthy is the 503 of a failed health check: an ErrorAnswer with "ok":
// false.
type unhealthy struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// nodeName is the node's -node name: cheap, for a mover asking a proxy where
// a person is routed (omoide move -proxy).
func (s *Handler) nodeName(w http.ResponseWriter, r *http.Request) (any, error) {
	return Node{Node: s.cfg.Node}, nil
}

// listPeople is the node's people with their episode counts, page by page:
// ?after=NAME (the last page's next) and ?limit=N.
func (s *Handler) listPeople(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	limit, err := pageLimit(q)
	if err != nil {
		return nil, err
	}
	people, err := s.mem.Store.People(r.Context(), q.Get("after"), limit)
	if err != nil {
		return nil, err
	}
	out := People{Users: people}
	if people == nil {
		out.Users = []sqlite.Person{}
	}
	if len(people) == limit {
		out.Next = &people[len(people)-1].User
	}
	return out, nil
}
