package episode

import (
	"errors"
	"fmt"
)

// ErrConflict is returned by Add for an episode whose (User, ExternalID) is
// stored with other content: Update replaces it. The error is a
// *ConflictError, which says which episode.
var ErrConflict = errors.New("already stored with other content (Update replaces it)")

// ConflictError says which episode of a batch conflicts: its (User,
// ExternalID) is stored with other content, or the batch gives it twice with
// other content (InBatch). It wraps ErrConflict, so that a caller can say it
// in its own terms (over HTTP: episodes[2], and PUT replaces it).
type ConflictError struct {
	Index      int // the episode's place in its batch, from 0
	User       string
	ExternalID string
	InBatch    bool // the batch holds the pair twice with other content
}

func (e *ConflictError) Error() string {
	what := ErrConflict.Error()
	if e.InBatch {
		what = "the batch holds it twice with other content"
	}
	return fmt.Sprintf("episode %d (user %q, external id %q): %s", e.Index, e.User, e.ExternalID, what)
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// PutResult says what a Put did with its episodes, counted in its
// transaction.
type PutResult struct {
	IDs      []int64 // each episode's id, in order
	Added    int     // episodes stored that the store did not hold
	Replaced int     // stored versions replaced by other content (replace)
	// Present counts the episodes that wrote nothing: stored before with the
	// same content, repeated in the batch under one external id, or without
	// an external id the same record as a stored one (Add).
	Present int
}
