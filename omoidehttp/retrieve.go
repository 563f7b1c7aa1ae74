package omoidehttp

import (
	"net/http"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/retriever"
)

// retrieveRequest is the body of /v1/retrieve.
type retrieveRequest struct {
	User           string         `json:"user"`
	Text           string         `json:"text"`
	Recent         []wire.Message `json:"recent"`
	Now            *time.Time     `json:"now"`
	TZ             string         `json:"tz"`
	WithCandidates bool           `json:"with_candidates"`
	// Filter and InjectThreshold are the request's own (retriever.Request),
	// within the server's bounds.
	Filter          *filterInput `json:"filter"`
	InjectThreshold *float64     `json:"inject_threshold"`
	Lang            string       `json:"lang"` // the message's language where its script does not tell
}

// filterInput is a request's "filter": each field given replaces the
// server's default (retriever.Options.Filter); "kinds": [] or "states": []
// admit every one.
type filterInput struct {
	Kinds          []episode.Kind       `json:"kinds"`
	States         []episode.State      `json:"states"`
	MaxSensitivity *episode.Sensitivity `json:"max_sensitivity"`
	MaxAgeDays     *int                 `json:"max_age_days"`
}

// filter returns the filter of a request whose "filter" is f: base (the
// server's) with f's fields, capped at ceiling, the most private level this
// server returns. nil when that is base itself. A max_sensitivity asked
// above the ceiling is a 400; the request's Validate checks the rest.
func (f *filterInput) filter(base retriever.Filter, ceiling episode.Sensitivity) (*retriever.Filter, error) {
	if f == nil && base.MaxSensitivity <= ceiling {
		return nil, nil
	}
	out := base
	if f != nil {
		if f.Kinds != nil {
			out.Kinds = f.Kinds
		}
		if f.States != nil {
			out.States = f.States
		}
		if f.MaxSensitivity != nil {
			if *f.MaxSensitivity > ceiling {
				return nil, badRequest("filter: max_sensitivity %q is above what this server returns, %q", *f.MaxSensitivity, ceiling)
			}
			out.MaxSensitivity = *f.MaxSensitivity
		}
		if f.MaxAgeDays != nil {
			out.MaxAgeDays = *f.MaxAgeDays
		}
	}
	out = capped(out, ceiling)
	return &out, nil
}

// capped is f admitting no more than ceiling: the one ceiling, whatever the
// preset's or the request's filter.
func capped(f retriever.Filter, ceiling episode.Sensitivity) retriever.Filter {
	f.MaxSensitivity = min(f.MaxSensitivity, ceiling)
	return f
}

// packRequest is the body of /v1/pack.
type packRequest struct {
	retrieveRequest
	Strategy string `json:"strategy"`
	Reasons  bool   `json:"reasons"` // show why each episode was picked, which the default preset leaves out
}

// routed fills q.User from the request's route (routedUser).
func (q *retrieveRequest) routed(r *http.Request) error {
	user, ok, err := routedUser(r)
	if err != nil || !ok {
		return err
	}
	q.User, err = sameUser(q.User, user, "the body")
	return err
}

// request returns the retrieval q asks for; base is the server's filter,
// ceiling the most private level the server returns.
func (q retrieveRequest) request(base retriever.Filter, ceiling episode.Sensitivity) (retriever.Request, error) {
	if q.User == "" {
		return retriever.Request{}, badRequest("user is missing")
	}
	recent, err := wire.Messages(q.Recent)
	if err != nil {
		return retriever.Request{}, badRequest("%v", err)
	}
	req := retriever.Request{User: q.User, Text: q.Text, Recent: recent, WithCandidates: q.WithCandidates, InjectThreshold: q.InjectThreshold}
	if req.Filter, err = q.Filter.filter(base, ceiling); err != nil {
		return retriever.Request{}, err
	}
	if req.Lang, err = lang.Parse(q.Lang); err != nil {
		return retriever.Request{}, badRequest("%v", err)
	}
	if err := req.Validate(); err != nil {
		return retriever.Request{}, badRequest("%v", err)
	}
	if q.Now != nil {
		req.Now = *q.Now
	}
	if q.TZ != "" {
		if req.Location, err = time.LoadLocation(q.TZ); err != nil {
			return retriever.Request{}, badRequest("tz %q: %v", q.TZ, err)
		}
	}
	return req, nil
}

// options returns base with the request's strategy, time zone (req's, from
// q.TZ) and reasons, when given.
func (q packRequest) options(base memorypack.Options, req retriever.Request) (memorypack.Options, error) {
	if q.Strategy != "" {
		var err error
		if base.Strategy, err = memorypack.ParseStrategy(q.Strategy); err != nil {
			return base, badRequest("strategy: %v", err)
		}
	}
	if req.Location != nil {
		base.Location = req.Location
	}
	if q.Reasons {
		base.ShowReason = true
	}
	return base, nil
}

// request reads a retrieval's body into q (a retrieveRequest, or a
// packRequest that embeds one) and makes its retriever.Request.
func (s *Handler) request(w http.ResponseWriter, r *http.Request, q interface{ base() *retrieveRequest }) (retriever.Request, error) {
	if err := s.readJSON(w, r, q); err != nil {
		return retriever.Request{}, err
	}
	if err := q.base().routed(r); err != nil {
		return retriever.Request{}, err
	}
	named(r, q.base().User)
	if err := s.owns(q.base().User); err != nil {
		return retriever.Request{}, err
	}
	return q.base().request(s.mem.Retriever.Options().Filter, s.cfg.MaxRequestSensitivity)
}

func (q *retrieveRequest) base() *retrieveRequest { return q }

func (s *Handler) retrieve(w http.ResponseWriter, r *http.Request) (any, error) {
	var q retrieveRequest
	req, err := s.request(w, r, &q)
	if err != nil {
		return nil, err
	}
	res, err := s.mem.Retrieve(r.Context(), req)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Handler) pack(w http.ResponseWriter, r *http.Request) (any, error) {
	var q packRequest
	req, err := s.request(w, r, &q)
	if err != nil {
		return nil, err
	}
	opts, err := q.options(s.mem.Pack, req)
	if err != nil {
		return nil, err
	}
	section, res, err := s.mem.EvidenceWith(r.Context(), req, opts)
	if err != nil {
		return nil, err
	}
	return wire.PackOf(section, res), nil
}
