package retriever

import (
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestFilterValidate: a filter naming a kind, state or sensitivity that
// does not exist is refused with its number and the values that do, from a
// request and from the options alike; every named one is accepted.
func TestFilterValidate(t *testing.T) {
	const (
		kinds  = "want episode (1), fact (2), summary (3) or loop (7)"
		states = "want raw (0), validated (1), consolidated (2) or archived (3)"
		sens   = "want normal (0), private (1) or secret (2)"
	)
	for _, tc := range []struct {
		name string
		f    Filter
		want string // "" = valid
	}{
		{"zero", Filter{}, ""},
		{"every named value", Filter{
			Kinds:          []episode.Kind{episode.KindEpisode, episode.KindFact, episode.KindSummary, episode.KindLoop},
			States:         []episode.State{episode.StateRaw, episode.StateValidated, episode.StateConsolidated, episode.StateArchived},
			MaxSensitivity: episode.SensitivitySecret, MaxAgeDays: 30}, ""},
		{"kind 99", Filter{Kinds: []episode.Kind{episode.KindFact, 99}}, "kind 99 does not exist: " + kinds},
		{"kind 4, between named ones", Filter{Kinds: []episode.Kind{4}}, "kind 4 does not exist: " + kinds},
		{"kind 0", Filter{Kinds: []episode.Kind{0}}, "kind 0 does not exist: " + kinds},
		{"kind -1", Filter{Kinds: []episode.Kind{-1}}, "kind -1 does not exist: " + kinds},
		{"state 9", Filter{States: []episode.State{9}}, "state 9 does not exist: " + states},
		{"state -1", Filter{States: []episode.State{-1}}, "state -1 does not exist: " + states},
		{"sensitivity 5", Filter{MaxSensitivity: 5}, "sensitivity 5 does not exist: " + sens},
		{"a negative age", Filter{MaxAgeDays: -3}, "max age -3 days: want 0 (any age) or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(where string, err error, prefix string) {
				t.Helper()
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%s: %v", where, err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), prefix+tc.want)):
					t.Errorf("%s: %v, want an error with %q", where, err, prefix+tc.want)
				}
			}
			check("Filter.Validate", tc.f.Validate(), "")
			check("Request.Validate", Request{User: "mika", Filter: &tc.f}.Validate(), "filter: ")
			if tc.f.MaxAgeDays < 0 {
				return // Options.Validate names Filter.MaxAgeDays (TestNewRejectsBadOptions)
			}
			o := DefaultOptions()
			o.Filter = tc.f
			check("Options.Validate", o.Validate(), "option Filter: ")
		})
	}
}
