package dataset

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// heldBack are the RealPersonaChat speakers held back for judging (issue
// 55): no suite here labels their chat, and no store grows with it.
var heldBack = [...]string{"rpc-DU", "rpc-CT", "rpc-BB", "rpc-ET", "rpc-DN", "rpc-BG",
	"rpc-AK", "rpc-BT", "rpc-DW", "rpc-AV", "rpc-EM", "rpc-GI"}

// HeldBack reports whether user is a haystack speaker held back for
// judging: one whose chat no suite labels and no store grows with.
func HeldBack(user string) bool { return slices.Contains(heldBack[:], user) }

// ReadHaystack reads the exchanges of a haystack (JSON Lines, gzip when the
// name ends in .gz) that a store may grow with: every one with a text, but
// the held-back speakers'.
func ReadHaystack(path string) ([]Episode, error) {
	var eps []Episode
	err := EachInFile(path, func(e Episode) error {
		if !HeldBack(e.User) && (strings.TrimSpace(e.UserText) != "" || strings.TrimSpace(e.ReplyText) != "") {
			eps = append(eps, e)
		}
		return nil
	})
	return eps, err
}

// Padding returns what the suite's stores grow with under GrowPeople: its
// everyday episodes that no query names. AtSize leaves out a person's own.
func (s *Suite) Padding() []Episode {
	named := s.named()
	var pad []Episode
	for _, e := range s.Episodes {
		if e.Everyday && !named[[2]string{e.User, e.ID}] {
			pad = append(pad, e)
		}
	}
	return pad
}

// named returns the (user, id) of every episode a query names, relevant or
// acceptable.
func (s *Suite) named() map[[2]string]bool {
	named := map[[2]string]bool{}
	for _, q := range s.Queries {
		for _, id := range q.Relevant {
			named[[2]string{q.User, id}] = true
		}
		for _, id := range q.Acceptable {
			named[[2]string{q.User, id}] = true
		}
	}
	return named
}

// GrownPrefix begins the external id of an episode AtSize adds to a person's
// store from another's chat, before that episode's own id.
const GrownPrefix = "grown:"

// SizeReport says what AtSize made of a suite's stores.
type SizeReport struct {
	Size   int // the exchanges asked of each person's store
	People int // the people with a store
	Cut    int // people whose own everyday chat was cut to the size
	Grown  int // people whose store was grown with others' chat
	Over   int // people whose memories and named episodes alone pass the size: their store holds those only
	Short  int // people the padding had too few exchanges to grow to the size
	Added  int // others' exchanges added, in all
}

// String says what the report counts, in a line.
func (r SizeReport) String() string {
	return fmt.Sprintf("%d exchanges a person: %d people, %d cut, %d grown by %d exchanges of others' chat, %d above it with their memories alone, %d short of it",
		r.Size, r.People, r.Cut, r.Grown, r.Added, r.Over, r.Short)
}

// AtSize returns s with every person's store made n exchanges: first what no
// size leaves out (their chosen memories, every episode that is not
// Everyday, and every episode a query of theirs names), then their own
// everyday chat in a seeded order, then pad's exchanges of other people in a
// seeded order of their own (pad's episodes of the person are left out, and
// any whose texts the store holds already), dated evenly across the
// person's days, under the id GrownPrefix+id, Everyday. A person's own
// episodes keep their order, the grown ones follow; the queries are s's.
// For one seed the sizes nest: the own chat a store at n keeps, and the
// others' it adds, hold those of every smaller size.
func (s *Suite) AtSize(n int, pad []Episode, seed uint64) (*Suite, SizeReport) {
	named := s.named()
	var users []string
	own := map[string][]int{} // person → indexes of their episodes in s.Episodes
	for i, e := range s.Episodes {
		if _, ok := own[e.User]; !ok {
			users = append(users, e.User)
		}
		own[e.User] = append(own[e.User], i)
	}
	out := *s
	out.Episodes = make([]Episode, 0, n*len(users))
	rep := SizeReport{Size: n, People: len(users)}
	for _, u := range users {
		idx := own[u]
		fixed := func(i int) bool { return !s.Episodes[i].Everyday || named[[2]string{u, s.Episodes[i].ID}] }
		var cuttable []int
		for _, i := range idx {
			if !fixed(i) {
				cuttable = append(cuttable, i)
			}
		}
		keep := make([]bool, len(idx))
		switch room := n - (len(idx) - len(cuttable)); {
		case room <= 0:
			rep.Over++
			for j, i := range idx {
				keep[j] = fixed(i)
			}
		case room < len(cuttable):
			rep.Cut++
			kept := map[int]bool{}
			for _, k := range personRand(seed, u, 0).Perm(len(cuttable))[:room] {
				kept[cuttable[k]] = true
			}
			for j, i := range idx {
				keep[j] = kept[i] || fixed(i)
			}
		default:
			for j := range idx {
				keep[j] = true
			}
		}
		for j, i := range idx {
			if keep[j] {
				out.Episodes = append(out.Episodes, s.Episodes[i])
			}
		}
		if need := n - len(idx); need > 0 {
			grown := s.grow(u, idx, need, pad, seed)
			out.Episodes = append(out.Episodes, grown...)
			if len(grown) > 0 {
				rep.Grown++
				rep.Added += len(grown)
			}
			if len(grown) < need {
				rep.Short++
			}
		}
	}
	return &out, rep
}

// grow returns need exchanges of pad for person u, whose episodes are idx
// of s.Episodes: none of u's own, none whose texts u's store holds, in a
// seeded order, dated evenly from u's first episode to their last.
func (s *Suite) grow(u string, idx []int, need int, pad []Episode, seed uint64) []Episode {
	texts := make(map[string]bool, len(idx)+need)
	first, last := s.Episodes[idx[0]].OccurredAt, s.Episodes[idx[0]].OccurredAt
	for _, i := range idx {
		e := s.Episodes[i]
		texts[e.UserText+"\x00"+e.ReplyText] = true
		if e.OccurredAt.Before(first) {
			first = e.OccurredAt
		}
		if e.OccurredAt.After(last) {
			last = e.OccurredAt
		}
	}
	var grown []Episode
	for _, k := range personRand(seed, u, 1).Perm(len(pad)) {
		if len(grown) == need {
			break
		}
		e := pad[k]
		if e.User == u || texts[e.UserText+"\x00"+e.ReplyText] {
			continue
		}
		texts[e.UserText+"\x00"+e.ReplyText] = true
		e.ID, e.User, e.Everyday = GrownPrefix+e.ID, u, true
		grown = append(grown, e)
	}
	span := last.Sub(first)
	for i := range grown {
		at := first.Add(time.Duration(float64(span) * (float64(2*i+1) / float64(2*len(grown)))))
		grown[i].OccurredAt = at.Truncate(time.Minute).In(first.Location())
	}
	return grown
}

// personRand is the seeded source of person u's order of purpose p (0: the
// cut, 1: the growth), apart from every other person's.
func personRand(seed uint64, u string, p uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(u))
	return rand.New(rand.NewPCG(seed, h.Sum64()^p))
}
