package omoide

import (
	"cmp"
	"context"
	"fmt"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/wordvec"
)

// LearnCounts counts the episodes a VectorLearner was given and what it did
// with them.
type LearnCounts struct {
	Read    int // episodes given
	Learned int // learned from
	// Unsearched were left out because the default search does not admit
	// them: private, secret or archived.
	Unsearched int
	// OtherPeople were left out because their person is not among the
	// people learned from.
	OtherPeople int
}

// VectorLearner learns word vectors (package wordvec) from episodes under
// omoide's privacy rule: it learns only from the episodes the default search
// admits (retriever.DefaultOptions's Filter: normal sensitivity, not
// archived), so that no word of a private, secret or archived episode gets a
// vector, and it counts the others. ReadStore gives it a store's episodes;
// Put, which makes it an ingest.Storer, the episodes of ingest's readers.
// Vectors keep traces of the words people used, which a forget does not
// reach: after a forget, learn again. A VectorLearner is not safe for
// concurrent use.
type VectorLearner struct {
	learner *wordvec.Learner
	filter  retriever.Filter
	people  map[string]bool // nil: everyone
	batch   []wordvec.Exchange
	counts  LearnCounts
}

// NewVectorLearner returns a learner of the terms of a, with opts, from the
// episodes of people (none: everyone's).
func NewVectorLearner(a tokenize.Analyzer, opts wordvec.Options, people []string) (*VectorLearner, error) {
	l, err := wordvec.NewLearner(a, opts)
	if err != nil {
		return nil, err // wordvec's error names the option
	}
	v := &VectorLearner{learner: l, filter: retriever.DefaultOptions().Filter}
	if len(people) > 0 {
		v.people = make(map[string]bool, len(people))
		for _, p := range people {
			v.people[p] = true
		}
	}
	return v, nil
}

// Put learns from the episodes eps that the default search admits, of the
// people learned from, and counts the others; it says every episode was
// added, as a store does, whatever replace is.
func (v *VectorLearner) Put(ctx context.Context, replace bool, eps ...episode.Episode) (episode.PutResult, error) {
	v.batch = v.batch[:0]
	for _, e := range eps {
		v.counts.Read++
		switch {
		case !v.filter.Admits(cmp.Or(e.Kind, episode.KindEpisode), e.State, e.Sensitivity):
			v.counts.Unsearched++
		case v.people != nil && !v.people[e.User]:
			v.counts.OtherPeople++
		default:
			v.counts.Learned++
			v.batch = append(v.batch, wordvec.Exchange{Message: e.UserText, Reply: e.ReplyText})
		}
	}
	if len(v.batch) > 0 {
		if err := v.learner.Add(ctx, v.batch...); err != nil {
			return episode.PutResult{}, fmt.Errorf("learning from %d exchanges: %w", len(v.batch), err)
		}
	}
	return episode.PutResult{Added: len(eps)}, nil
}

// learnPage is how many people or episodes ReadStore reads at a time.
var learnPage = 1000

// ReadStore gives the learner every episode of s (Put), person by person and
// a page at a time, in the store's order.
func (v *VectorLearner) ReadStore(ctx context.Context, s *sqlite.Store) error {
	for after := ""; ; {
		people, err := s.People(ctx, after, learnPage)
		if err != nil {
			return fmt.Errorf("reading the store's people after %q: %w", after, err)
		}
		for _, p := range people {
			if err := v.readPerson(ctx, s, p.User); err != nil {
				return err
			}
		}
		if len(people) < learnPage {
			return nil
		}
		after = people[len(people)-1].User
	}
}

// readPerson gives the learner every episode of user in s.
func (v *VectorLearner) readPerson(ctx context.Context, s *sqlite.Store, user string) error {
	for id := int64(0); ; {
		eps, err := s.Episodes(ctx, user, id, learnPage)
		if err != nil {
			return fmt.Errorf("reading the episodes of %q: %w", user, err)
		}
		if _, err := v.Put(ctx, false, eps...); err != nil {
			return err
		}
		if len(eps) < learnPage {
			return nil
		}
		id = eps[len(eps)-1].ID
	}
}

// Counts returns what the learner was given and what it did with it, so far.
func (v *VectorLearner) Counts() LearnCounts { return v.counts }

// Learn learns the vectors of what the learner learned from
// (wordvec.Learner.Learn).
func (v *VectorLearner) Learn(ctx context.Context) (*wordvec.Vectors, error) {
	vecs, err := v.learner.Learn(ctx)
	if err != nil {
		return nil, fmt.Errorf("learning from %d exchanges: %w", v.counts.Learned, err)
	}
	return vecs, nil
}
