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
