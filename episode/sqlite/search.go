package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

// filterWhere renders f as SQL conditions over columns with the given
// prefix, appending the arguments.
func filterWhere(f episode.SearchFilter, prefix string, args []any) (string, []any) {
	var b strings.Builder
	if len(f.Kinds) > 0 {
		b.WriteString(" AND " + prefix + "kind IN (" + placeholders(len(f.Kinds)) + ")")
		for _, k := range f.Kinds {
			args = append(args, int(k))
		}
	}
	if len(f.States) > 0 {
		b.WriteString(" AND " + prefix + "state IN (" + placeholders(len(f.States)) + ")")
		for _, s := range f.States {
			args = append(args, int(s))
		}
	}
	b.WriteString(" AND " + prefix + "sensitivity <= ?")
	args = append(args, int(f.MaxSensitivity))
	if !f.Since.IsZero() {
		b.WriteString(" AND " + prefix + "occurred_at >= ?")
		args = append(args, f.Since.Unix())
	}
	if !f.Until.IsZero() {
		b.WriteString(" AND " + prefix + "occurred_at < ?")
		args = append(args, f.Until.Unix())
	}
	return b.String(), args
}

// The searches, which read only. They are what a retriever asks of the
// store: the nearest vectors (Nearest), the full-text index (BM25, DocFreq,
// Holds) and the order in time (Adjacent, Between). Each keeps to one user's
// episodes, but for DocFreq (counts over the whole store). The candidates
// themselves are read by id (GetMany, GetManyTerms in store.go).

// Nearest returns, for each query vector, the k nearest episodes of user by
// cosine distance, nearest first, with the filter applied. The store decides
// how to scan: a partition of at least Options.IndexMin episodes is searched
// in memory, all queries in one pass (vecindex: ternary sign codes, then int8
// rescoring of the best vecindex.DefaultPool, so the order is approximate at
// the far end of the pool); a smaller one, or any with IndexMin < 0, by
// vec0's exact scan, one per query, run concurrently. The in-memory index is
// loaded on the first search and kept up to date by this Store's writes; a
// write by another process is noticed by the partition's generation and
// reloads it.
func (s *Store) Nearest(ctx context.Context, user string, vecs [][]float32, k int, f episode.SearchFilter) ([][]episode.Match, error) {
	out := make([][]episode.Match, len(vecs))
	if k <= 0 || len(vecs) == 0 {
		return out, nil
	}
	for i, v := range vecs {
		if len(v) != s.dim {
			return nil, fmt.Errorf("episode store: nearest: query %d has %d dimensions, the store's embedder %s has %d", i, len(v), s.embedder.Identity(), s.dim)
		}
	}
	var gen, size int64
	err := s.queryRow(ctx, `SELECT gen, episodes FROM partitions WHERE user = ?`, user).Scan(&gen, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("episode store: nearest: %w", err)
	}
	if s.parts.min < 0 || size < int64(s.parts.min) {
		return s.exact(ctx, user, vecs, k, f)
	}
	pi := s.parts.entry(user)
	pi.mu.RLock()
	if pi.x == nil || pi.gen != gen {
		pi.mu.RUnlock()
		if err := s.load(ctx, user, int(size), pi); err != nil {
			return nil, fmt.Errorf("episode store: nearest: load %q: %w", clipForError(user), err)
		}
		pi.mu.RLock()
	}
	defer pi.mu.RUnlock()
	if pi.x == nil { // dropped again meanwhile; rare
		return s.exact(ctx, user, vecs, k, f)
	}
	res, err := pi.x.Search(vecs, k, vecFilter(f), 0)
	if err != nil {
		return nil, fmt.Errorf("episode store: nearest: %w", err)
	}
	for i, rs := range res {
		out[i] = make([]episode.Match, len(rs))
		for j, r := range rs {
			out[i][j] = episode.Match{ID: r.ID, Score: r.Distance}
		}
	}
	return out, nil
}

// exact returns, for each query vector, vec0's exact k nearest episodes of
// user (knn). Each scan is a cgo call of its own: with several queries they
// run concurrently, the first on this goroutine. The lists come in the order
// of vecs; of several errors, the first query's is returned.
func (s *Store) exact(ctx context.Context, user string, vecs [][]float32, k int, f episode.SearchFilter) ([][]episode.Match, error) {
	out := make([][]episode.Match, len(vecs))
	errs := make([]error, len(vecs))
	var wg sync.WaitGroup
	for i := 1; i < len(vecs); i++ {
		wg.Go(func() { out[i], errs[i] = s.knn(ctx, user, vecs[i], k, f) })
	}
	if len(vecs) > 0 {
		out[0], errs[0] = s.knn(ctx, user, vecs[0], k, f)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// knn returns the k nearest episodes of user to vec by cosine distance,
// nearest first, with the filter applied inside vec0's exact scan.
func (s *Store) knn(ctx context.Context, user string, vec []float32, k int, f episode.SearchFilter) ([]episode.Match, error) {
	if k <= 0 {
		return nil, nil
	}
	blob, err := s.vectorBlob(vec)
	if err != nil {
		return nil, fmt.Errorf("episode store: knn: %w", err)
	}
	cond, args := filterWhere(f, "", []any{blob, k, user})
	rows, err := s.query(ctx, `SELECT episode_id, distance FROM episodes_vec
		WHERE embedding MATCH ? AND k = ? AND user = ?`+cond+` ORDER BY distance`, args...)
	if err != nil {
		return nil, fmt.Errorf("episode store: knn: %w", err)
	}
	return scanHits(rows, "knn")
}

// personFilterShare is the share of the store's episodes below which BM25
// matches the person's token: for a person who holds most of the store,
// reading the token's postings (one per episode of theirs) costs more than
// the other people's rows it filters out.
const personFilterShare = 0.5

// BM25 returns up to k episodes of user holding any of terms (as the
// store's analyzer makes them) in the text columns, best bm25 first, ties by
// id. The terms are ORed into one FTS5 expression by tokenize.MatchQuery,
// which quotes each; no terms (or none with content) return nothing without
// querying. When user holds less than half the store, only their rows are
// matched and scored: the expression is ANDed with the person's token
// (PersonToken) in the person column, which weighs nothing in bm25; the join
// on the episode's user decides, or for a person whose vectors are held in
// memory their index (bm25Held).
//
// The score is FTS5's bm25() to the last bit, computed by omoide_bm25
// (fts5rank.go) from the phrases' row counts over the whole store, which the
// Store keeps (phraseDocs) instead of reading every phrase's posting list on
// every query.
func (s *Store) BM25(ctx context.Context, user string, terms []string, k int, f episode.SearchFilter) ([]episode.Match, error) {
	hits, _, err := s.bm25(ctx, user, terms, k, f, true)
	return hits, err
}

// bm25 is BM25; it reads the rows without the join (bm25Held) when mayHold
// and the person's index allows, and reports whether it did.
func (s *Store) bm25(ctx context.Context, user string, terms []string, k int, f episode.SearchFilter, mayHold bool) (_ []episode.Match, held bool, _ error) {
	if k <= 0 {
		return nil, false, nil
	}
	phrases := tokenize.MatchPhrases(terms)
	if len(phrases) == 0 {
		return nil, false, nil
	}
	mine, err := s.Count(ctx, user)
	if err != nil {
		return nil, false, fmt.Errorf("episode store: bm25: %w", err)
	}
	docs, err := s.phrases.counts(ctx, s, phrases)
	if err != nil {
		return nil, false, fmt.Errorf("episode store: bm25: count phrases: %w", err)
	}
	match := `{user_text reply_text} : (` + strings.Join(phrases, " OR ") + `)`
	args := []any{1.0, 1.0, 0.0} // the columns' weights: user_text, reply_text, person
	if float64(mine) < personFilterShare*float64(s.docs.Load()) {
		match = `person : "` + PersonToken(user) + `" AND ` + match
		args = append(args, 0) // the person's phrase, which weighs nothing
	}
	for _, n := range docs {
		args = append(args, n)
	}
	score := `omoide_bm25(episodes_fts` + strings.Repeat(", ?", len(args)) + `)`
	if mayHold {
		if hits, ok, err := s.bm25Held(ctx, user, score, append(args, match), k, f); err != nil || ok {
			return hits, ok, err
		}
	}
	args = append(args, match, user)
	cond, args := filterWhere(f, "e.", args)
	args = append(args, k)
	rows, err := s.query(ctx, `SELECT e.id, `+score+` AS score
		FROM episodes_fts CROSS JOIN episodes e INDEXED BY episodes_filter ON e.id = episodes_fts.rowid
		WHERE episodes_fts MATCH ? AND e.user = ?`+cond+`
		ORDER BY score, e.id LIMIT ?`, args...)
	if err != nil {
		return nil, false, fmt.Errorf("episode store: bm25: %w", err)
	}
	hits, err := scanHits(rows, "bm25")
	return hits, false, err
}

// bm25Held is BM25 for a person whose vectors are held in memory (Nearest),
// up to date: their index tells which rows are theirs and pass the filter,
// so FTS5's best rows are read without the join on the episodes, which took
// half of BM25's time at 100,000 episodes. It reads twice k rows; when fewer
// than k of them are the person's and pass (a narrow time window, another
// person's rows), ok is false and BM25 joins. args are the score's, then the
// match expression.
func (s *Store) bm25Held(ctx context.Context, user, score string, args []any, k int, f episode.SearchFilter) (hits []episode.Match, ok bool, err error) {
	pi, gen, err := s.heldIndex(ctx, user)
	if pi == nil || err != nil {
		return nil, false, err
	}
	current := func() bool { return pi.x != nil && pi.gen == gen }
	pi.mu.RLock()
	ok = current()
	pi.mu.RUnlock()
	if !ok {
		return nil, false, nil
	}
	limit := 2 * k
	rows, err := s.query(ctx, `SELECT rowid, `+score+` AS score FROM episodes_fts WHERE episodes_fts MATCH ?
		ORDER BY score, rowid LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, false, fmt.Errorf("episode store: bm25: %w", err)
	}
	if hits, err = scanHits(rows, "bm25"); err != nil {
		return nil, false, err
	}
	vf := vecFilter(f)
	pi.mu.RLock()
	defer pi.mu.RUnlock()
	if !current() {
		return nil, false, nil
	}
	kept := hits[:0]
	for _, h := range hits {
		if a, mine := pi.x.Lookup(h.ID); mine && vf.Keeps(a) {
			if kept = append(kept, h); len(kept) == k {
				break
			}
		}
	}
	if len(kept) < k && len(hits) == limit {
		return nil, false, nil
	}
	return kept, true, nil
}

// Holds reports, for each term (as the store's analyzer makes them), whether
// any episode of user holds it in its texts, whatever its date, kind or
// state. Each term costs one FTS5 lookup that stops at the first row.
func (s *Store) Holds(ctx context.Context, user string, terms []string) ([]bool, error) {
	out := make([]bool, len(terms))
	for i, t := range terms {
		m := tokenize.MatchQuery([]string{t})
		if m == "" {
			continue
		}
		var one int
		err := s.queryRow(ctx, `SELECT 1 FROM episodes_fts WHERE episodes_fts MATCH ? LIMIT 1`,
			`person : "`+PersonToken(user)+`" AND {user_text reply_text} : (`+m+`)`).Scan(&one)
		switch {
		case err == nil:
			out[i] = true
		case !errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("episode store: holds: %w", err)
		}
	}
	return out, nil
}

// Adjacent returns, for each id, the ids of the episodes of user just before
// and just after it in time (ties by id; 0 where there is none, and for an id
// that is not user's): from their vector index when it is held in memory,
// else in one statement. The unary + keeps SQLite from reading every episode
// of user through episodes_user_time to find the few ids, which it otherwise
// chooses to (a plan fifty times slower than by primary key).
func (s *Store) Adjacent(ctx context.Context, user string, ids []int64) ([][2]int64, error) {
	out := make([][2]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if ok, err := s.adjacentHeld(ctx, user, ids, out); err != nil || ok {
		return out, err
	}
	args := []any{user}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := s.query(ctx, `SELECT e.id,
		coalesce((SELECT p.id FROM episodes p WHERE p.user = e.user AND (p.occurred_at, p.id) < (e.occurred_at, e.id)
			ORDER BY p.occurred_at DESC, p.id DESC LIMIT 1), 0),
		coalesce((SELECT n.id FROM episodes n WHERE n.user = e.user AND (n.occurred_at, n.id) > (e.occurred_at, e.id)
			ORDER BY n.occurred_at, n.id LIMIT 1), 0)
		FROM episodes e WHERE +e.user = ? AND e.id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("episode store: adjacent: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, prev, next int64
		if err := rows.Scan(&id, &prev, &next); err != nil {
			return nil, fmt.Errorf("episode store: adjacent: %w", err)
		}
		for i, want := range ids {
			if want == id {
				out[i] = [2]int64{prev, next}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: adjacent: %w", err)
	}
	return out, nil
}

// adjacentHeld is Adjacent from the person's vector index, which holds all
// their episodes' ids and times, when it is loaded and up to date: it fills
// out and reports whether it did.
func (s *Store) adjacentHeld(ctx context.Context, user string, ids []int64, out [][2]int64) (bool, error) {
	pi, gen, err := s.heldIndex(ctx, user)
	if pi == nil || err != nil {
		return false, err
	}
	pi.mu.RLock()
	defer pi.mu.RUnlock()
	if pi.x == nil || pi.gen != gen {
		return false, nil
	}
	for i, id := range ids {
		if prev, next, ok := pi.x.Neighbors(id); ok {
			out[i] = [2]int64{prev, next}
		}
	}
	return true, nil
}

// heldIndex returns user's loaded vector index slot and their partition's
// generation now, for a caller to check that the index is up to date under
// its lock; nil when none was ever loaded.
func (s *Store) heldIndex(ctx context.Context, user string) (*partIndex, int64, error) {
	pi := s.parts.held(user)
	if pi == nil {
		return nil, 0, nil
	}
	var gen int64
	if err := s.queryRow(ctx, `SELECT gen FROM partitions WHERE user = ?`, user).Scan(&gen); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("episode store: partition of %q: %w", clipForError(user), err)
	}
	return pi, gen, nil
}

// Between returns up to limit episodes of user that pass the filter (use its
// Since and Until for the time window), newest first.
func (s *Store) Between(ctx context.Context, user string, limit int, f episode.SearchFilter) ([]episode.Episode, error) {
	return s.newest(ctx, "between", user, limit, f, "")
}

// Conversation returns the last n exchanges of user's conversation that pass
// the filter, oldest first: the episodes with a reply (a notification not yet
// answered is not part of it), as the reference takes the recent conversation
// from the store.
func (s *Store) Conversation(ctx context.Context, user string, n int, f episode.SearchFilter) ([]episode.Episode, error) {
	eps, err := s.newest(ctx, "conversation", user, n, f, " AND reply_text != ''")
	slices.Reverse(eps)
	return eps, err
}

// newest returns up to limit episodes of user that pass the filter and the
// SQL condition cond, newest first.
func (s *Store) newest(ctx context.Context, what, user string, limit int, f episode.SearchFilter, cond string) ([]episode.Episode, error) {
	if limit <= 0 {
		return nil, nil
	}
	where, args := filterWhere(f, "", []any{user})
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE user = ?`+where+cond+`
		ORDER BY occurred_at DESC, id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("episode store: %s: %w", what, err)
	}
	out, err := scanEpisodes(rows)
	if err != nil {
		return nil, fmt.Errorf("episode store: %s: %w", what, err)
	}
	return out, nil
}

// DocFreq returns, for each term, how many episodes' FTS rows contain it
// (across all users), and about how many FTS rows there are, for IDF
// weights. Terms are
// looked up as the FTS index holds them (unicode61 tokens of the analyzed
// text); a term it does not hold counts 0.
//
// FTS5 counts a term's documents by reading its whole posting list, so the
// counts are cached: a cached count serves while the store's episode count
// stays within 1% of what it was when the count was read.
func (s *Store) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	out := make([]int, len(terms))
	if len(terms) == 0 {
		return out, 0, nil
	}
	docs := max(0, s.docs.Load())
	total := int(docs)
	var args []any
	var missing []int
	s.dfMu.RLock()
	for i, t := range terms {
		if c, ok := s.dfCache[t]; ok && abs(c.docs-docs) <= docs/100 {
			out[i] = c.df
			continue
		}
		missing = append(missing, i)
		args = append(args, t)
	}
	s.dfMu.RUnlock()
	if len(missing) == 0 {
		return out, total, nil
	}
	rows, err := s.query(ctx, `SELECT term, doc FROM episodes_vocab WHERE term IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("episode store: doc freq: %w", err)
	}
	defer rows.Close()
	for _, i := range missing {
		out[i] = 0 // a term the index does not hold returns no row
	}
	for rows.Next() {
		var term string
		var n int
		if err := rows.Scan(&term, &n); err != nil {
			return nil, 0, fmt.Errorf("episode store: doc freq: %w", err)
		}
		for _, i := range missing {
			if terms[i] == term {
				out[i] = n
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("episode store: doc freq: %w", err)
	}
	s.dfMu.Lock()
	if s.dfCache == nil || len(s.dfCache) >= maxCachedDocFreqs {
		s.dfCache = make(map[string]cachedDocFreq)
	}
	for _, i := range missing {
		s.dfCache[terms[i]] = cachedDocFreq{df: out[i], docs: docs}
	}
	s.dfMu.Unlock()
	return out, total, nil
}

// maxCachedDocFreqs bounds the DocFreq cache; when full it starts over.
const maxCachedDocFreqs = 1 << 16

type cachedDocFreq struct {
	df   int
	docs int64 // the episode count when df was read
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

func scanHits(rows rowScanner, what string) ([]episode.Match, error) {
	defer rows.Close()
	var hits []episode.Match
	for rows.Next() {
		var h episode.Match
		var score sql.NullFloat64
		if err := rows.Scan(&h.ID, &score); err != nil {
			return nil, fmt.Errorf("episode store: %s: %w", what, err)
		}
		if !score.Valid {
			// vec0's cosine distance to or from a zero vector (a text of
			// no words): no direction, no neighbour.
			continue
		}
		h.Score = score.Float64
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode store: %s: %w", what, err)
	}
	return hits, nil
}
