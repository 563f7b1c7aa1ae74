package retriever_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// TestTraceJSONSaysWhy: the JSON trace carries why the gate declined, the
// names the memory never held, the message's time window and the neighbours
// raised and added; a hit carries its coverage.
func TestTraceJSONSaysWhy(t *testing.T) {
	b, err := json.Marshal(retriever.Trace{Declined: "the memory holds no [\"carolin\"]", UnknownNames: []string{"carolin"}, Window: "yesterday", Neighbors: 3, NeighborsAdded: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["declined"] != "the memory holds no [\"carolin\"]" || got["window"] != "yesterday" || fmt.Sprint(got["unknown_names"]) != "[carolin]" ||
		got["neighbors"] != 3.0 || got["neighbors_added"] != 1.0 || fmt.Sprint(got["queries"]) != "[]" {
		t.Fatalf("trace JSON %s", b)
	}
	if b, _ := json.Marshal(retriever.Hit{Parts: rerank.Parts{InWindow: true, Coverage: 0.5}}); !strings.Contains(string(b), `"in_window":true`) || !strings.Contains(string(b), `"coverage":0.5`) {
		t.Fatalf("hit JSON %s lacks in_window or coverage", b)
	}
	if b, _ := json.Marshal(retriever.Result{}); !strings.HasPrefix(string(b), `{"hits":[],"trace":`) {
		t.Fatalf("empty result JSON %s: want hits [] and no candidates", b)
	}
}

// filled sets every field of the struct v points to (recursing into
// embedded and nested structs) to a value that is not its zero, distinct
// per field, so that a field the JSON drops or mixes up shows.
func filled(v reflect.Value, n *int) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		*n++
		switch f.Kind() {
		case reflect.Struct:
			if f.Type() == reflect.TypeFor[time.Time]() {
				f.Set(reflect.ValueOf(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(*n) * time.Hour)))
			} else {
				filled(f, n)
			}
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d", *n))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			if f.Type() == reflect.TypeFor[time.Duration]() {
				f.SetInt(int64(*n) * int64(time.Microsecond))
			} else {
				f.SetInt(int64(*n))
			}
		case reflect.Float64:
			f.SetFloat(float64(*n) / 64)
		case reflect.Slice:
			s := reflect.MakeSlice(f.Type(), 1, 1)
			switch e := s.Index(0); e.Kind() {
			case reflect.String:
				e.SetString(fmt.Sprintf("s%d", *n))
			case reflect.Int:
				e.SetInt(int64(*n))
			}
			f.Set(s)
		}
	}
}

// TestResultJSONRoundTrip: every field of a Hit (its episode's and its score
// parts') and of a Trace survives JSON and back, so the wire shape cannot
// drift from the types: a field added to Episode, Parts or Trace and not to
// the JSON fails here.
func TestResultJSONRoundTrip(t *testing.T) {
	var n int
	var hit retriever.Hit
	filled(reflect.ValueOf(&hit).Elem(), &n)
	hit.Relevance = rerank.High
	hit.Verdict.Fate = rerank.FateDuplicate
	hit.Episode.Kind, hit.Episode.State, hit.Episode.Sensitivity = episode.KindFact, episode.StateValidated, episode.SensitivityPrivate
	var tr retriever.Trace
	filled(reflect.ValueOf(&tr).Elem(), &n)
	in := retriever.Result{Hits: []retriever.Hit{hit}, Candidates: []retriever.Hit{hit, hit}, Trace: tr}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out retriever.Result
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n in  %+v\n out %+v\n JSON %s", in, out, b)
	}
	var bad retriever.Hit
	if err := json.Unmarshal([]byte(`{"relevance":"very"}`), &bad); err == nil || !strings.Contains(err.Error(), "relevance") {
		t.Errorf("unknown relevance: err %v, want one naming it", err)
	}
}
