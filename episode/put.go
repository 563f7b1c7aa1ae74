package episode

import "errors"

// ErrConflict is returned by Add for an episode whose (User, ExternalID) is
// stored with other content: Update replaces it.
var ErrConflict = errors.New("already stored with other content (Update replaces it)")

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
