package sqlite

import (
	"context"
	"strings"
	"sync"
)

// phraseDocs holds, for BM25's IDF, how many FTS rows hold each phrase in
// their text columns: the counts FTS5's bm25() would make by reading the
// phrase's whole posting list on every query, made once and then brought up
// to date by counting only the rows added since (ids only grow, and FTS5
// seeks a posting list to a rowid). Any removal from the index, by whichever
// process, bumps the store's removal count (a trigger, schema 7); the counts
// then start over. It is safe for concurrent use.
type phraseDocs struct {
	mu       sync.Mutex
	removals int64 // the store's removal count the entries were made under
	m        map[string]phraseCount
}

// phraseCount is a phrase's row count over the ids up to upto.
type phraseCount struct{ n, upto int64 }

// maxPhraseCounts bounds the cached counts; when full the cache starts over.
const maxPhraseCounts = 1 << 16

// metaFTSRemovals is the meta key of the number of removals from the
// full-text index (episodes deleted, the index rebuilt).
const metaFTSRemovals = "fts_removals"

// counts returns the row count of each of phrases (FTS5 strings, as
// tokenize.MatchQuery quotes them) in the text columns, exact as of one
// snapshot of the store.
func (c *phraseDocs) counts(ctx context.Context, s *Store, phrases []string) ([]int64, error) {
	var top, removals int64
	if err := s.queryRow(ctx, `SELECT coalesce((SELECT max(id) FROM episodes), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '`+metaFTSRemovals+`'), 0)`).Scan(&top, &removals); err != nil {
		return nil, err
	}
	out := make([]int64, len(phrases))
	from := make([]int64, len(phrases)) // the id after which phrase i must be counted
	var todo []int
	c.mu.Lock()
	if c.m == nil || c.removals != removals || len(c.m) >= maxPhraseCounts {
		c.m, c.removals = make(map[string]phraseCount), removals
	}
	for i, p := range phrases {
		e := c.m[p]
		out[i], from[i] = e.n, e.upto
		if e.upto != top {
			todo = append(todo, i)
		}
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return out, nil
	}
	// One statement counts every phrase in (from, top]: rows above top are
	// another snapshot's, counted by a later call.
	var q strings.Builder
	q.WriteString("SELECT ")
	args := make([]any, 0, 3*len(todo))
	for j, i := range todo {
		if j > 0 {
			q.WriteString(", ")
		}
		q.WriteString(`(SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ? AND rowid > ? AND rowid <= ?)`)
		args = append(args, `{user_text reply_text} : `+phrases[i], from[i], top)
	}
	got := make([]int64, len(todo))
	dest := make([]any, len(todo))
	for j := range got {
		dest[j] = &got[j]
	}
	if err := s.queryRow(ctx, q.String(), args...).Scan(dest...); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for j, i := range todo {
		out[i] += got[j]
		// Keep the count unless the cache started over or another call
		// moved this entry meanwhile.
		if c.removals == removals && c.m[phrases[i]].upto == from[i] && len(c.m) < maxPhraseCounts {
			c.m[phrases[i]] = phraseCount{n: out[i], upto: top}
		}
	}
	return out, nil
}

// ftsRemovalTriggerSQL counts every episode deleted (schema 7): its FTS row
// goes with it, and the cached phrase counts (phraseDocs) must start over.
const ftsRemovalTriggerSQL = `CREATE TRIGGER episodes_fts_removal AFTER DELETE ON episodes BEGIN
	` + bumpFTSRemovalsSQL + `;
END`

// bumpFTSRemovalsSQL counts a removal that is not an episode's deletion (the
// index rebuilt).
const bumpFTSRemovalsSQL = `INSERT INTO meta (key, value) VALUES ('` + metaFTSRemovals + `', '1')
	ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`
