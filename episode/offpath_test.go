package episode

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRetriedAddWithoutIDStoresOnce: an episode without an external id sent
// twice (a retried request) is stored once; the same words minutes apart
// beyond DuplicateWindow, or with other content, are a new episode.
func TestRetriedAddWithoutIDStoresOnce(t *testing.T) {
	s := newStore(t)
	e := Episode{User: "u", UserText: "今日も疲れた", ReplyText: "おつかれさま", OccurredAt: day}
	first, err := s.Add(ctx, []Episode{e})
	if err != nil {
		t.Fatal(err)
	}
	retry := e
	retry.OccurredAt = day.Add(30 * time.Second) // the server's clock at the retry
	for _, batch := range [][]Episode{{e}, {retry}, {e, retry}} {
		ids, err := s.Add(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if id != first[0] {
				t.Fatalf("a retry got id %d, want %d", id, first[0])
			}
		}
	}
	later := e
	later.OccurredAt = day.Add(DuplicateWindow + time.Minute)
	private := e
	private.Sensitivity = SensitivityPrivate
	other := e
	other.User = "v"
	ids, err := s.Add(ctx, []Episode{later, private, other, later})
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] == first[0] || ids[1] == first[0] || ids[2] == first[0] || ids[0] == ids[1] || ids[3] != ids[0] {
		t.Fatalf("ids %v (first %d): want three new episodes, the repeat in the batch the same as its first", ids, first[0])
	}
	if n, _ := s.Count(ctx, ""); n != 4 {
		t.Fatalf("%d episodes stored, want 4", n)
	}
}

// TestEpisodeTextBound: one byte over MaxTextBytes is refused with
// ErrTooLong, naming the bound, and the batch stores nothing.
func TestEpisodeTextBound(t *testing.T) {
	s := newStore(t)
	fits := Episode{User: "u", ExternalID: "fits", UserText: strings.Repeat("a", MaxTextBytes-2), ReplyText: "ok", OccurredAt: day}
	over := Episode{User: "u", ExternalID: "over", UserText: strings.Repeat("a", MaxTextBytes-1), ReplyText: "ok", OccurredAt: day}
	if _, err := s.Add(ctx, []Episode{fits, over}); !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "16384") || !strings.Contains(err.Error(), "episode 1") {
		t.Fatalf("Add over the bound = %v, want ErrTooLong naming episode 1 and 16384", err)
	}
	if n, _ := s.Count(ctx, ""); n != 0 {
		t.Fatalf("a refused batch stored %d episodes", n)
	}
	if _, err := s.Add(ctx, []Episode{fits}); err != nil {
		t.Fatalf("Add at the bound: %v", err)
	}
}

// TestEnumNames: kinds, states and sensitivity levels travel as names, and
// read back from names or numbers (older exports).
func TestEnumNames(t *testing.T) {
	r := Record{ID: "x", User: "u", Kind: KindFact, State: StateArchived, Sensitivity: SensitivityPrivate}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"fact"`, `"state":"archived"`, `"sensitivity":"private"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("%s lacks %s", b, want)
		}
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for _, tt := range []struct {
		in   string
		want Record
		err  string
	}{
		{`{"kind":2,"state":3,"sensitivity":1}`, Record{Kind: KindFact, State: StateArchived, Sensitivity: SensitivityPrivate}, ""},
		{`{"kind":"Summary","state":" raw ","sensitivity":"SECRET"}`, Record{Kind: KindSummary, State: StateRaw, Sensitivity: SensitivitySecret}, ""},
		{`{"kind":"memo"}`, Record{}, `kind "memo": want a number or one of episode=1, fact=2, loop=7, summary=3`},
		{`{"sensitivity":true}`, Record{}, `sensitivity true: want an integer or a name`},
	} {
		var got Record
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
	if KindLoop.String() != "loop" || Kind(9).String() != "9" || SensitivityNormal.String() != "normal" {
		t.Fatalf("String: %s %s %s", KindLoop, Kind(9), SensitivityNormal)
	}
}

// TestUserNotUTF8Refused: a person is never named by bytes that are not
// UTF-8, in any call that takes a name.
func TestUserNotUTF8Refused(t *testing.T) {
	s := newStore(t)
	if _, err := s.DeleteUser(ctx, "u\xff"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("DeleteUser: %v", err)
	}
	if _, err := s.Episodes(ctx, "u\xff", 0, 10); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("Episodes: %v", err)
	}
	if _, err := s.IDByExternal(ctx, "u", "e\xff"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("IDByExternal: %v", err)
	}
}
