package sqlite

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// TestRetriedAddWithoutIDStoresOnce: an episode without an external id
// sent again (a retried request: the same record, time included) gets the
// id it got; two equal records of one batch are two episodes, and so is the
// same content at another time (a greeting said twice, 9 minutes apart) or
// with other content.
func TestRetriedAddWithoutIDStoresOnce(t *testing.T) {
	s := newStore(t)
	e := episode.Episode{User: "u", UserText: "おはよう", ReplyText: "おはよう！", OccurredAt: day}
	first, err := s.Add(ctx, []episode.Episode{e})
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) episode.Episode { c := e; c.OccurredAt = day.Add(d); return c }
	private, other := e, e
	private.Sensitivity = episode.SensitivityPrivate
	other.User = "v"
	for _, tt := range []struct {
		name  string
		batch []episode.Episode
		same  []bool // batch[i] gets the first episode's id; no two get one
		added int    // episodes the batch stores
	}{
		{"the same record again", []episode.Episode{e}, []bool{true}, 0},
		{"the same record within the second", []episode.Episode{at(400 * time.Millisecond)}, []bool{true}, 0},
		{"the greeting 9 minutes later", []episode.Episode{at(9 * time.Minute)}, []bool{false}, 1},
		{"a second later", []episode.Episode{at(time.Second)}, []bool{false}, 1},
		{"two equal records in one batch", []episode.Episode{at(time.Hour), at(time.Hour)}, []bool{false, false}, 2},
		{"that batch again", []episode.Episode{at(time.Hour), at(time.Hour)}, []bool{false, false}, 0},
		{"that batch and one more", []episode.Episode{at(time.Hour), at(time.Hour), at(time.Hour)}, []bool{false, false, false}, 1},
		{"the stored one twice", []episode.Episode{e, e}, []bool{true, false}, 1},
		{"other content, another person", []episode.Episode{private, other}, []bool{false, false}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := s.Count(ctx, "")
			ids, err := s.Add(ctx, tt.batch)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				if (id == first[0]) != tt.same[i] {
					t.Errorf("episode %d got id %d (the first is %d), want the first's: %v", i, id, first[0], tt.same[i])
				}
				for j := range i {
					if ids[j] == id {
						t.Errorf("episodes %d and %d got one id %d: two records merged", j, i, id)
					}
				}
			}
			if n, _ := s.Count(ctx, ""); n-before != tt.added {
				t.Errorf("%d episodes stored, want %d", n-before, tt.added)
			}
		})
	}
	// A batch sent again gets the ids it got, in order.
	batch := []episode.Episode{at(2 * time.Hour), at(2 * time.Hour)}
	ids, err := s.Add(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Add(ctx, batch)
	if err != nil || len(again) != 2 || again[0] != ids[0] || again[1] != ids[1] || ids[0] == ids[1] {
		t.Fatalf("a batch of two equal records: ids %v, then %v, %v", ids, again, err)
	}
}

// TestEpisodeTextBound: one byte over MaxTextBytes is refused with
// ErrTooLong, naming the bound, and the batch stores nothing.
func TestEpisodeTextBound(t *testing.T) {
	s := newStore(t)
	fits := episode.Episode{User: "u", ExternalID: "fits", UserText: strings.Repeat("a", episode.MaxTextBytes-2), ReplyText: "ok", OccurredAt: day}
	over := episode.Episode{User: "u", ExternalID: "over", UserText: strings.Repeat("a", episode.MaxTextBytes-1), ReplyText: "ok", OccurredAt: day}
	if _, err := s.Add(ctx, []episode.Episode{fits, over}); !errors.Is(err, episode.ErrTooLong) || !strings.Contains(err.Error(), "16384") || !strings.Contains(err.Error(), "episode 1") {
		t.Fatalf("Add over the bound = %v, want ErrTooLong naming episode 1 and 16384", err)
	}
	if n, _ := s.Count(ctx, ""); n != 0 {
		t.Fatalf("a refused batch stored %d episodes", n)
	}
	if _, err := s.Add(ctx, []episode.Episode{fits}); err != nil {
		t.Fatalf("Add at the bound: %v", err)
	}
}

// TestEnumNames: kinds, states and sensitivity levels travel as names, and
// read back from names or numbers (older exports).
func TestEnumNames(t *testing.T) {
	r := episode.Record{ID: "x", User: "u", Kind: episode.KindFact, State: episode.StateArchived, Sensitivity: episode.SensitivityPrivate}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"fact"`, `"state":"archived"`, `"sensitivity":"private"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("%s lacks %s", b, want)
		}
	}
	var back episode.Record
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for _, tt := range []struct {
		in   string
		want episode.Record
		err  string
	}{
		{`{"kind":2,"state":3,"sensitivity":1}`, episode.Record{Kind: episode.KindFact, State: episode.StateArchived, Sensitivity: episode.SensitivityPrivate}, ""},
		{`{"kind":"Summary","state":" raw ","sensitivity":"SECRET"}`, episode.Record{Kind: episode.KindSummary, State: episode.StateRaw, Sensitivity: episode.SensitivitySecret}, ""},
		{`{"kind":"memo"}`, episode.Record{}, `kind: want a number or one of episode=1, fact=2, loop=7, summary=3, got "memo"`},
		{`{"sensitivity":true}`, episode.Record{}, `sensitivity: want a number or one of normal=0, private=1, secret=2, got true`},
	} {
		var got episode.Record
		err := json.Unmarshal([]byte(tt.in), &got)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if episode.KindLoop.String() != "loop" || episode.Kind(9).String() != "9" || episode.SensitivityNormal.String() != "normal" {
		t.Fatalf("String: %s %s %s", episode.KindLoop, episode.Kind(9), episode.SensitivityNormal)
	}
}

// TestUserNotUTF8Refused: a person is never named by bytes that are not
// UTF-8, in any call that takes a name.
func TestUserNotUTF8Refused(t *testing.T) {
	s := newStore(t)
	if _, err := s.Forget(ctx, "u\xff"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("Forget: %v", err)
	}
	if _, err := s.Episodes(ctx, "u\xff", 0, 10); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("Episodes: %v", err)
	}
	if _, err := s.IDByExternal(ctx, "u", "e\xff"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("IDByExternal: %v", err)
	}
}
