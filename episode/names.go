package episode

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The names of the kinds, states and sensitivity levels: what JSON carries
// (Record, ingest, the HTTP API) and what people read. A value without a name
// is written as its number.
var (
	kindNames        = []enumName{{int(KindEpisode), "episode"}, {int(KindFact), "fact"}, {int(KindSummary), "summary"}, {int(KindLoop), "loop"}}
	stateNames       = []enumName{{int(StateRaw), "raw"}, {int(StateValidated), "validated"}, {int(StateConsolidated), "consolidated"}, {int(StateArchived), "archived"}}
	sensitivityNames = []enumName{{int(SensitivityNormal), "normal"}, {int(SensitivityPrivate), "private"}, {int(SensitivitySecret), "secret"}}
)

type enumName struct {
	v    int
	name string
}

// String returns the kind's name ("episode", "fact", "summary", "loop"), or
// its number.
func (k Kind) String() string { return enumString(int(k), kindNames) }

// String returns the state's name ("raw", "validated", "consolidated",
// "archived"), or its number.
func (s State) String() string { return enumString(int(s), stateNames) }

// String returns the level's name ("normal", "private", "secret"), or its
// number.
func (s Sensitivity) String() string { return enumString(int(s), sensitivityNames) }

// ParseKind reads a kind's name or number.
func ParseKind(s string) (Kind, error) {
	v, err := parseEnum(s, "kind", kindNames)
	return Kind(v), err
}

// ParseState reads a state's name or number.
func ParseState(s string) (State, error) {
	v, err := parseEnum(s, "state", stateNames)
	return State(v), err
}

// ParseSensitivity reads a sensitivity level's name or number.
func ParseSensitivity(s string) (Sensitivity, error) {
	v, err := parseEnum(s, "sensitivity", sensitivityNames)
	return Sensitivity(v), err
}

// MarshalJSON writes the kind's name (its number when it has none).
func (k Kind) MarshalJSON() ([]byte, error) { return enumJSON(int(k), kindNames), nil }

// MarshalJSON writes the state's name.
func (s State) MarshalJSON() ([]byte, error) { return enumJSON(int(s), stateNames), nil }

// MarshalJSON writes the level's name.
func (s Sensitivity) MarshalJSON() ([]byte, error) { return enumJSON(int(s), sensitivityNames), nil }

// UnmarshalJSON reads a name or a number (exports written before names
// were).
func (k *Kind) UnmarshalJSON(b []byte) error {
	v, err := unmarshalEnum(b, kindNames)
	*k = Kind(v)
	return err
}

// UnmarshalJSON reads a name or a number.
func (s *State) UnmarshalJSON(b []byte) error {
	v, err := unmarshalEnum(b, stateNames)
	*s = State(v)
	return err
}

// UnmarshalJSON reads a name or a number.
func (s *Sensitivity) UnmarshalJSON(b []byte) error {
	v, err := unmarshalEnum(b, sensitivityNames)
	*s = Sensitivity(v)
	return err
}

func enumString(v int, names []enumName) string {
	for _, n := range names {
		if n.v == v {
			return n.name
		}
	}
	return strconv.Itoa(v)
}

func enumJSON(v int, names []enumName) []byte {
	for _, n := range names {
		if n.v == v {
			return strconv.AppendQuote(nil, n.name)
		}
	}
	return strconv.AppendInt(nil, int64(v), 10)
}

// parseEnum reads one of names (any case) or an integer; what names the
// field in the error.
func parseEnum(s, what string, names []enumName) (int, error) {
	v, ok := lookupEnum(s, names)
	if !ok {
		return 0, fmt.Errorf("%s %q: want %s", what, s, enumWant(names))
	}
	return v, nil
}

// lookupEnum reads one of names (any case) or an integer.
func lookupEnum(s string, names []enumName) (int, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, n := range names {
		if n.name == t {
			return n.v, true
		}
	}
	v, err := strconv.Atoi(t)
	return v, err == nil
}

// enumWant says what a value of names may be: "a number or one of
// archived=3, consolidated=2, raw=0, validated=1".
func enumWant(names []enumName) string {
	valid := make([]string, len(names))
	for i, n := range names {
		valid[i] = n.name + "=" + strconv.Itoa(n.v)
	}
	slices.Sort(valid)
	return "a number or one of " + strings.Join(valid, ", ")
}

// unmarshalEnum decodes a JSON name, integer or null (the zero value). Its
// error says what was wanted and what was given, not the field, which the
// decoder's path names (package strictjson: "episodes[0].state: want …").
func unmarshalEnum(b []byte, names []enumName) (int, error) {
	switch {
	case string(b) == "null":
		return 0, nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		if v, ok := lookupEnum(s, names); ok {
			return v, nil
		}
		return 0, fmt.Errorf("want %s, got %q", enumWant(names), s)
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, fmt.Errorf("want %s, got %s", enumWant(names), b)
	}
	return n, nil
}
