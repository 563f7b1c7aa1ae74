package sqlite

import (
	"context"
	"fmt"

	"github.com/omoide/omoide/episode"
)

// BadName is a stored person whose name CheckUser's rule refuses: stored
// before the rule, reachable for export and forget, never for new episodes.
type BadName struct {
	User    string `json:"user"`
	Problem string `json:"problem"` // CheckUser's error
}

// BadNames returns the store's people whose names CheckUser refuses, in
// name order ("omoide check" lists them).
func (s *Store) BadNames(ctx context.Context) ([]BadName, error) {
	rows, err := s.query(ctx, `SELECT user FROM partitions WHERE episodes > 0 ORDER BY user`)
	if err != nil {
		return nil, fmt.Errorf("episode store: bad names: %w", err)
	}
	defer rows.Close()
	var out []BadName
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("episode store: bad names: %w", err)
		}
		if err := episode.CheckUser(u); err != nil {
			out = append(out, BadName{u, err.Error()})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: bad names: %w", err)
	}
	return out, nil
}

// BadID is a stored episode whose external id CheckExternalID's rule
// refuses: stored before the rule, reachable by its store id (delete,
// export), never stored anew under that id.
type BadID struct {
	ID         int64  `json:"id"`
	User       string `json:"user"`
	ExternalID string `json:"external_id"`
	Problem    string `json:"problem"` // CheckExternalID's error
}

// BadIDs returns the store's episodes whose external ids CheckExternalID
// refuses, in id order ("omoide check" lists them).
func (s *Store) BadIDs(ctx context.Context) ([]BadID, error) {
	rows, err := s.query(ctx, `SELECT id, user, external_id FROM episodes WHERE external_id IS NOT NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("episode store: bad ids: %w", err)
	}
	defer rows.Close()
	var out []BadID
	for rows.Next() {
		var b BadID
		if err := rows.Scan(&b.ID, &b.User, &b.ExternalID); err != nil {
			return nil, fmt.Errorf("episode store: bad ids: %w", err)
		}
		if err := episode.CheckExternalID(b.ExternalID); err != nil {
			b.Problem = err.Error()
			out = append(out, b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: bad ids: %w", err)
	}
	return out, nil
}
