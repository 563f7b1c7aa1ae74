package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
)

// Episodes returns up to limit of user's episodes whose id is above after,
// in id order (the order they were added): a person's memory, page by page.
func (s *Store) Episodes(ctx context.Context, user string, after int64, limit int) ([]episode.Episode, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("episode store: episodes of %q: limit %d, want at least 1", user, limit)
	}
	if !utf8.ValidString(user) {
		return nil, errors.New("episode store: episodes: user is not valid UTF-8")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE user = ? AND id > ? ORDER BY id LIMIT ?`, user, after, limit)
	if err != nil {
		return nil, fmt.Errorf("episode store: episodes of %q: %w", user, err)
	}
	out, err := scanEpisodes(rows)
	if err != nil {
		return nil, fmt.Errorf("episode store: episodes of %q: %w", user, err)
	}
	return out, nil
}

// exportPage is how many episodes Export reads at a time.
const exportPage = 1000

// Export writes every episode of user to w as JSON Lines (one Record a line,
// in the order they were added) and returns how many it wrote. Each page is
// read in its own statement, so a long export does not hold the database.
func (s *Store) Export(ctx context.Context, user string, w io.Writer) (int, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	n := 0
	for after := int64(0); ; {
		eps, err := s.Episodes(ctx, user, after, exportPage)
		if err != nil {
			return n, err
		}
		for _, e := range eps {
			if err := enc.Encode(episode.RecordOf(e)); err != nil {
				return n, fmt.Errorf("episode store: export %q: %w", user, err)
			}
			n++
		}
		if len(eps) < exportPage {
			return n, nil
		}
		after = eps[len(eps)-1].ID
	}
}

// Person is one person of the store and how many episodes they have.
type Person struct {
	User     string `json:"user"`
	Episodes int    `json:"episodes"`
}

// People returns up to limit of the store's people with at least one
// episode, in byte order of their names, after the name after ("" for the
// first page): what a node holds, for an operator or a move.
func (s *Store) People(ctx context.Context, after string, limit int) ([]Person, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT user, episodes FROM partitions WHERE user > ? AND episodes > 0 ORDER BY user LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("episode store: people: %w", err)
	}
	defer rows.Close()
	var out []Person
	for rows.Next() {
		var p Person
		if err := rows.Scan(&p.User, &p.Episodes); err != nil {
			return nil, fmt.Errorf("episode store: people: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: people: %w", err)
	}
	return out, nil
}
