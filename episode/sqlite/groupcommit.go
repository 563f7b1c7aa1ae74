package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/omoide/omoide/episode"
)

// maxGroupEpisodes bounds the episodes of the Adds that one transaction
// writes together; an Add of more is written alone.
const maxGroupEpisodes = 1000

// pendingWrite is one Add's episodes, checked, analyzed and embedded,
// waiting for the write lock (commit).
type pendingWrite struct {
	ctx          context.Context
	op           string // "add" or "update", for errors
	batch        []episode.Episode
	todo         []int         // the indexes of batch to write
	old          map[int]int64 // batch index -> the id of the version it replaces
	known        []int64       // each episode's id as known before the write (0: not yet)
	fts          [][2]string   // todo's analyzed texts
	blobs, codes [][]byte      // todo's vectors

	// Set by apply, which starts them over, so that a group's failed
	// transaction leaves nothing of itself in the write retried alone.
	ids             []int64
	added, replaced int
	fresh           []indexed
	rows            []ftsRow

	err   error // the write failed: nothing of it is stored
	after error // the episodes are stored, and a checkpoint after failed
	taken bool  // a leader took it to write (Store.groupMu)
	done  chan struct{}
}

// commit writes w, in one transaction with the other Adds waiting for the
// write lock at that moment: the first to get the lock takes the queue (in
// order, up to maxGroupEpisodes) and writes it, so that writers arriving
// together share one commit instead of each waiting for all the commits
// before it. A group whose transaction fails is written again one Add at a
// time, each with its own context, so that one bad Add fails alone.
func (s *Store) commit(ctx context.Context, w *pendingWrite) error {
	w.done = make(chan struct{})
	s.groupMu.Lock()
	s.queue = append(s.queue, w)
	s.groupMu.Unlock()
	for {
		select {
		case <-w.done:
			return w.err
		case <-ctx.Done():
			s.groupMu.Lock()
			if !w.taken {
				s.queue = slices.DeleteFunc(s.queue, func(q *pendingWrite) bool { return q == w })
				s.groupMu.Unlock()
				return fmt.Errorf("episode store: %s: %w", w.op, ctx.Err())
			}
			s.groupMu.Unlock()
			<-w.done // being written: its outcome is the caller's
			return w.err
		case s.writer <- struct{}{}:
			s.groupMu.Lock()
			if w.taken {
				s.groupMu.Unlock()
				<-s.writer
				<-w.done
				return w.err
			}
			n, size := 0, 0
			for n < len(s.queue) && (n == 0 || size+len(s.queue[n].todo) <= maxGroupEpisodes) {
				size += len(s.queue[n].todo)
				s.queue[n].taken = true
				n++
			}
			group := slices.Clone(s.queue[:n])
			s.queue = slices.Delete(s.queue, 0, n)
			s.groupMu.Unlock()
			s.writeGroup(ctx, group)
		}
	}
}

// writeGroup writes group while holding the write lock, releases it, brings
// the Store's caches up to date and tells each write its outcome.
func (s *Store) writeGroup(ctx context.Context, group []*pendingWrite) {
	type written struct {
		writes []*pendingWrite
		gens   map[string]int64
		lastID int64
	}
	var done []written
	if gens, lastID, err := s.writeTx(ctx, group); err == nil {
		done = append(done, written{group, gens, lastID})
	} else if len(group) == 1 {
		group[0].err = err
	} else {
		for _, w := range group {
			gens, lastID, err := s.writeTx(w.ctx, []*pendingWrite{w})
			if err != nil {
				w.err = err
				continue
			}
			done = append(done, written{[]*pendingWrite{w}, gens, lastID})
		}
	}
	<-s.writer
	// The writers waiting on this one do not share its deadline.
	ctx = context.WithoutCancel(ctx)
	for _, d := range done {
		s.written(ctx, d.writes, d.gens, d.lastID)
	}
	for _, w := range group {
		if w.err != nil {
			w.ids = nil
		}
		close(w.done)
	}
}

// writeTx writes the group in one transaction, the write lock held, and
// returns the partitions' generations after it and the largest id given.
func (s *Store) writeTx(ctx context.Context, group []*pendingWrite) (map[string]int64, int64, error) {
	op := group[0].op
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: begin: %w", op, err)
	}
	defer tx.Rollback()
	// Ids are never reused: SQLite would give the next episode the id of a
	// deleted last one, and a search for one person followed by a fetch by
	// id (or a client's stale DELETE) would then reach another person's
	// episode. The largest id ever given is kept in meta.
	var lastID int64
	if err := tx.QueryRowContext(ctx, `SELECT max(coalesce((SELECT max(id) FROM episodes), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '`+metaLastEpisodeID+`'), 0))`).Scan(&lastID); err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: last id: %w", op, err)
	}
	insEp, err := tx.PrepareContext(ctx, `INSERT INTO episodes
		(id, user, external_id, user_text, reply_text, occurred_at, kind, state, sensitivity, source, vq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user, external_id) DO NOTHING RETURNING id`)
	if err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: %w", op, err)
	}
	insVec, err := tx.PrepareContext(ctx, insertVectorSQL)
	if err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: %w", op, err)
	}
	first := lastID
	var rows []ftsRow
	var fresh []indexed
	for _, w := range group {
		if testHookApply != nil {
			if err := testHookApply(w.batch, len(group)); err != nil {
				return nil, 0, fmt.Errorf("episode store: %s: %w", w.op, err)
			}
		}
		if err := w.apply(ctx, s, tx, insEp, insVec, &lastID); err != nil {
			return nil, 0, err
		}
		rows = append(rows, w.rows...)
		fresh = append(fresh, w.fresh...)
	}
	if err := insertFTS(ctx, tx, rows); err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: %w", op, err)
	}
	gens, err := partitionGens(ctx, tx, fresh)
	if err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: %w", op, err)
	}
	if lastID > first {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('`+metaLastEpisodeID+`', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(lastID, 10)); err != nil {
			return nil, 0, fmt.Errorf("episode store: %s: record last id: %w", op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, fmt.Errorf("episode store: %s: commit: %w", op, err)
	}
	return gens, lastID, nil
}

// apply writes w's episodes in tx, giving ids after *lastID.
func (w *pendingWrite) apply(ctx context.Context, s *Store, tx *sql.Tx, insEp, insVec *sql.Stmt, lastID *int64) error {
	w.ids = slices.Clone(w.known)
	w.added, w.replaced, w.fresh, w.rows = 0, 0, nil, nil
	var key []byte // the record's key, read at the first replacement
	at := time.Now()
	for j, i := range w.todo {
		e := w.batch[i]
		if id, ok := w.old[i]; ok {
			if key == nil {
				var err error
				if key, err = erasureKey(ctx, tx); err != nil {
					return fmt.Errorf("episode store: update: %w", err)
				}
			}
			// The old version is erased as Delete erases, and recorded.
			_, gone, err := deleteRecorded(ctx, tx, key, id, at)
			if err != nil {
				return fmt.Errorf("episode store: update: episode %d: replace %d: %w", i, id, err)
			}
			if gone {
				w.replaced++
			}
		}
		var id int64
		err := insEp.QueryRowContext(ctx, *lastID+1, e.User, nullIfEmpty(e.ExternalID), e.UserText, e.ReplyText,
			e.OccurredAt.Unix(), int(e.Kind), int(e.State), int(e.Sensitivity), e.Source, w.codes[j]).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			// Stored meanwhile (or earlier in this batch or group) under the same external id.
			if w.ids[i], err = s.idByExternal(ctx, tx, e.User, e.ExternalID); err != nil {
				return fmt.Errorf("episode store: %s: episode %d: %w", w.op, i, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("episode store: %s: episode %d: %w", w.op, i, err)
		}
		w.rows = append(w.rows, ftsRow{ID: id, UserText: w.fts[j][0], ReplyText: w.fts[j][1], Person: PersonToken(e.User)})
		e.ID = id
		if _, err := insVec.ExecContext(ctx, vectorArgs(e, w.blobs[j])...); err != nil {
			return fmt.Errorf("episode store: %s: episode %d: vector: %w", w.op, i, err)
		}
		w.ids[i] = id
		*lastID = id
		w.added++
		w.fresh = append(w.fresh, indexed{id: id, user: e.User, attrs: attrsOf(e), code: w.codes[j]})
		if testHookInTx != nil {
			testHookInTx(j)
		}
	}
	return nil
}

// written brings the Store's counts and in-memory indexes up to date after
// writes committed together, the write lock released: a replaced episode's
// person is reloaded at their next search, after a checkpoint that takes the
// old version's pages out of the log (its failure is the update's after
// error); otherwise the new episodes join their indexes, and the full-text
// index is merged when due.
func (s *Store) written(ctx context.Context, writes []*pendingWrite, gens map[string]int64, lastID int64) {
	var fresh []indexed
	var updates []*pendingWrite
	added := 0
	for _, w := range writes {
		s.docs.Add(int64(w.added - w.replaced))
		added += w.added
		if w.replaced > 0 {
			updates = append(updates, w)
		} else {
			fresh = append(fresh, w.fresh...)
		}
	}
	s.parts.added(fresh, gens)
	if len(updates) > 0 {
		for _, w := range updates {
			for _, f := range w.fresh {
				s.parts.forget(f.user)
			}
		}
		if _, err := s.checkpoint(ctx); err != nil {
			for _, w := range updates {
				w.after = fmt.Errorf("episode store: update: %w", err)
			}
		}
		return
	}
	if added > 0 {
		// Best effort: the episodes are stored, and a merge that fails
		// (the lock busy, the disk full) is tried again by the next Add.
		_ = s.mergeIndex(ctx, lastID)
	}
}

// testHookApply, when a test sets it, is called in the transaction before
// each Add of a group is written, with the group's size; an error fails the
// transaction.
var testHookApply func(batch []episode.Episode, group int) error
