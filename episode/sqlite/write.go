package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/parallel"
	"github.com/omoide/omoide/vecindex"
)

// Add stores episodes in one transaction: each episode, its FTS row and its
// vector land together or not at all. It returns the id of each episode in
// order; an episode whose (User, ExternalID) is already stored is not added
// again and reports the stored id, and so is one without an ExternalID that
// is the same record as a stored one without one: the same person, content
// (texts, kind, state, sensitivity, source) and time, to the second as
// stored (a retried request). Two such records in one batch are two
// episodes (a greeting said twice), and so is the same content at another
// time; a batch sent again gets the ids it got, the n-th of equal records
// the n-th stored. Every episode is validated before anything is written:
// one bad episode fails the whole batch with an error naming it.
//
// After the transaction, an Add that brings the episodes added since the
// full-text index was last merged to a sixteenth of the store merges it
// (ftsmerge.go): about 2 s at a million episodes, once every 62,500.
func (s *Store) Add(ctx context.Context, eps []episode.Episode) ([]int64, error) {
	r, err := s.Put(ctx, false, eps...)
	return r.IDs, err
}

// Update stores eps as Add does, except that an episode whose (User,
// ExternalID) is already stored with other content replaces it, in the same
// transaction: its texts are analyzed and embedded again, and the old
// version is erased as Delete erases (docs/reliability.md). A replaced
// episode gets a new id (ids are never reused); Update returns the ids of
// eps, in order. An episode stored with the same content is left as it is.
func (s *Store) Update(ctx context.Context, eps []episode.Episode) ([]int64, error) {
	r, err := s.Put(ctx, true, eps...)
	return r.IDs, err
}

// Put stores eps as Add does, or as Update does when replace, and says what
// it did with them.
func (s *Store) Put(ctx context.Context, replace bool, eps ...episode.Episode) (episode.PutResult, error) {
	ids, inserted, replaced, err := s.add(ctx, eps, replace)
	if ids == nil {
		return episode.PutResult{}, err
	}
	// with ids and an error, the episodes are stored and a checkpoint failed
	return episode.PutResult{IDs: ids, Added: inserted - replaced, Replaced: replaced, Present: len(eps) - inserted}, err
}

// sameContent reports whether stored and e (normalized) carry the same
// content: texts, time (to the second), kind, state, sensitivity, source.
func sameContent(stored, e episode.Episode) bool {
	return stored.UserText == e.UserText && stored.ReplyText == e.ReplyText && stored.OccurredAt.Unix() == e.OccurredAt.Unix() &&
		stored.Kind == e.Kind && stored.State == e.State && stored.Sensitivity == e.Sensitivity && stored.Source == e.Source
}

// add stores eps and returns their ids, how many rows it inserted and how
// many stored versions those replaced. What can be done without the write
// lock (checks, look-ups, analysis, embedding) is done here; the writes go
// in one transaction with those of the Adds waiting beside it (commit).
func (s *Store) add(ctx context.Context, eps []episode.Episode, replace bool) (ids []int64, inserted, replaced int, err error) {
	op := "add"
	if replace {
		op = "update"
	}
	if len(eps) == 0 {
		return nil, 0, 0, nil
	}
	if s.readOnly {
		return nil, 0, 0, fmt.Errorf("episode store: %s: %w", op, ErrReadOnly)
	}
	batch := make([]episode.Episode, len(eps))
	copy(batch, eps)
	for i := range batch {
		if err := batch[i].Normalize(); err != nil {
			return nil, 0, 0, fmt.Errorf("episode store: add: episode %d (user %q, external id %q): %w", i, clipForError(batch[i].User), clipForError(batch[i].ExternalID), err)
		}
	}
	ids = make([]int64, len(batch))
	// Skip the work for episodes already stored under their external id
	// with the same content; another content is a conflict, or replaced.
	todo := make([]int, 0, len(batch))
	old := map[int]int64{}                   // batch index -> the id of the version it replaces
	first := map[[2]string]episode.Episode{} // the batch's first episode under each (user, external id)
	equal := map[repeatKey]int{}             // how many earlier episodes of the batch are each record without an external id
	for i, e := range batch {
		if e.ExternalID == "" {
			k := repeatKey{e.User, e.UserText, e.ReplyText, e.Source, e.OccurredAt.Unix(), e.Kind, e.State, e.Sensitivity}
			n := equal[k]
			equal[k] = n + 1
			id, err := s.repeated(ctx, e, n)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("episode store: %s: episode %d: %w", op, i, err)
			}
			if id != 0 {
				ids[i] = id
				continue
			}
		}
		if e.ExternalID != "" {
			k := [2]string{e.User, e.ExternalID}
			if f, ok := first[k]; ok && !sameContent(f, e) {
				return nil, 0, 0, fmt.Errorf("episode store: %s: %w", op, &episode.ConflictError{Index: i, User: e.User, ExternalID: e.ExternalID, InBatch: true})
			} else if !ok {
				first[k] = e
			}
			stored, err := scanEpisode(s.db.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes WHERE user = ? AND external_id = ?`, e.User, e.ExternalID))
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, 0, 0, fmt.Errorf("episode store: %s: look up external id %q: %w", op, clipForError(e.ExternalID), err)
			}
			if err == nil {
				if !sameContent(stored, e) {
					if !replace {
						return nil, 0, 0, fmt.Errorf("episode store: add: %w", &episode.ConflictError{Index: i, User: e.User, ExternalID: e.ExternalID})
					}
					old[i] = stored.ID
					todo = append(todo, i)
					continue
				}
				ids[i] = stored.ID
				continue
			}
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return ids, 0, 0, nil
	}
	texts := make([]string, len(todo))
	for j, i := range todo {
		texts[j] = batch[i].EmbedText()
	}
	// Analyze the FTS text on every core while the embedder works.
	fts := make([][2]string, len(todo))
	analyzed := make(chan struct{})
	go func() {
		defer close(analyzed)
		parallel.For(len(todo), func(j int) {
			e := batch[todo[j]]
			fts[j] = [2]string{s.analyzer.Index(e.UserText), s.analyzer.Index(e.ReplyText)}
		})
	}()
	vecs, err := s.embedder.Embed(ctx, texts)
	<-analyzed
	if err != nil {
		return nil, 0, 0, fmt.Errorf("episode store: add: embed %d episodes: %w", len(texts), err)
	}
	if len(vecs) != len(texts) {
		return nil, 0, 0, fmt.Errorf("episode store: add: embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	blobs, codes := make([][]byte, len(todo)), make([][]byte, len(todo))
	for j, v := range vecs {
		if blobs[j], err = s.vectorBlob(v); err != nil {
			return nil, 0, 0, fmt.Errorf("episode store: add: episode %d: %w", todo[j], err)
		}
		codes[j] = vecindex.Quantize(v)
	}

	w := &pendingWrite{ctx: ctx, op: op, batch: batch, todo: todo, old: old, known: ids,
		fts: fts, blobs: blobs, codes: codes}
	if err := s.commit(ctx, w); err != nil {
		return nil, 0, 0, err
	}
	return w.ids, w.added, w.replaced, w.after
}

// repeatKey is what an episode without an external id must share with a
// stored one to be the same record again: all its content and its time (in
// Unix seconds, as stored).
type repeatKey struct {
	user, userText, replyText, source string
	at                                int64
	kind                              episode.Kind
	state                             episode.State
	sensitivity                       episode.Sensitivity
}

// repeated returns the id of the n-th (from 0, by id) stored episode
// without an external id that e (normalized, without one either) is the
// same record as: the same person, content and time to the second; 0 when
// there is none.
func (s *Store) repeated(ctx context.Context, e episode.Episode, n int) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM episodes WHERE user = ? AND occurred_at = ?
		AND external_id IS NULL AND user_text = ? AND reply_text = ? AND kind = ? AND state = ? AND sensitivity = ? AND source = ?
		ORDER BY id LIMIT 1 OFFSET ?`,
		e.User, e.OccurredAt.Unix(), e.UserText, e.ReplyText, int(e.Kind), int(e.State), int(e.Sensitivity), e.Source, n).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up a repeat: %w", err)
	}
	return id, nil
}

// metaLastEpisodeID is the meta key of the largest episode id ever given.
const metaLastEpisodeID = "last_episode_id"

// testHookInTx, when a test sets it, is called inside Add's transaction after
// the rows of the j-th new episode are written (the crash test kills the
// process there).
var testHookInTx func(j int)

const insertVectorSQL = `INSERT INTO episodes_vec
	(episode_id, user, embedding, occurred_at, kind, state, sensitivity) VALUES (?, ?, ?, ?, ?, ?, ?)`

// vectorArgs are the arguments of insertVectorSQL for e: the partition key
// and the metadata columns the KNN filters on.
func vectorArgs(e episode.Episode, blob []byte) []any {
	return []any{e.ID, e.User, blob, e.OccurredAt.Unix(), int(e.Kind), int(e.State), int(e.Sensitivity)}
}

func clipForError(s string) string {
	if len(s) <= 64 {
		return s
	}
	n := 64
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// vectorBlob validates v against the store's dimension and serializes it.
func (s *Store) vectorBlob(v []float32) ([]byte, error) {
	if len(v) != s.dim {
		return nil, fmt.Errorf("vector has %d dimensions, the store's embedder %s has %d", len(v), s.embedder.Identity(), s.dim)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector value %d is %v", i, x)
		}
	}
	return sqlite_vec.SerializeFloat32(v)
}

// beginWrite begins a write transaction once this Store's earlier writers
// are done, in the order they came, and returns the release to call after
// its commit (calling it again does nothing). SQLite's own busy handler
// makes a waiting writer sleep and retry, up to 100 ms a try, so that under
// concurrency some writes waited seconds while later ones passed (bench
// load: write p99 435 ms with 16 clients, 21 ms with one); writers of other
// processes still meet it.
func (s *Store) beginWrite(ctx context.Context) (*sql.Tx, func(), error) {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	var once sync.Once
	release := func() { once.Do(func() { <-s.writer }) }
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		release()
		return nil, nil, err
	}
	return tx, release, nil
}
