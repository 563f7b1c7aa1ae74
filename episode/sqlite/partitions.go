package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/vecindex"
)

// Defaults of the in-memory indexes that Nearest keeps for big partitions.
const (
	// DefaultIndexMin is the size from which a person's vectors are searched
	// in memory rather than by vec0's exact scan, whose cost grows with the
	// partition; below it the scan is cheap and nothing is held. The
	// in-memory search ranks as the scan does (docs/performance.md, "Figures
	// behind the code").
	DefaultIndexMin = 256
	// DefaultIndexCapacity bounds the vectors held in memory over all
	// partitions (about 350 bytes each at 256 dimensions); the least recently
	// searched partitions are dropped first.
	DefaultIndexCapacity = 1 << 20
)

// indexed is an episode as an in-memory index holds it.
type indexed struct {
	id    int64
	user  string
	attrs vecindex.Attrs
	code  []byte
}

func attrsOf(e episode.Episode) vecindex.Attrs {
	return vecindex.Attrs{OccurredAt: e.OccurredAt.Unix(), Kind: int(e.Kind), State: int(e.State), Sensitivity: int(e.Sensitivity)}
}

// partitionGens reads, inside the transaction that added them, the
// generation of each partition the new episodes belong to.
func partitionGens(ctx context.Context, tx *sql.Tx, fresh []indexed) (map[string]int64, error) {
	gens := make(map[string]int64)
	for _, f := range fresh {
		if _, ok := gens[f.user]; ok {
			continue
		}
		var g int64
		if err := tx.QueryRowContext(ctx, `SELECT gen FROM partitions WHERE user = ?`, f.user).Scan(&g); err != nil {
			return nil, fmt.Errorf("partition %q: %w", clipForError(f.user), err)
		}
		gens[f.user] = g
	}
	return gens, nil
}

// partitions caches the in-memory indexes of big partitions. Each index
// carries the partition's generation when it was loaded (or last brought up
// to date by this process's own writes); a search that reads a newer
// generation reloads it, so writes by other processes are seen too.
type partitions struct {
	dim      int
	min      int // partitions smaller than this are not indexed; < 0: never
	capacity int
	clock    atomic.Int64

	mu    sync.Mutex
	m     map[string]*partIndex
	total int // vectors held
}

type partIndex struct {
	mu   sync.RWMutex
	gen  int64 // 0: not loaded
	x    *vecindex.Index
	used atomic.Int64 // p.clock at the last search
	held atomic.Int64 // x.Len(), readable without mu
}

func newPartitions(dim, min, capacity int) *partitions {
	if min == 0 {
		min = DefaultIndexMin
	}
	if capacity <= 0 {
		capacity = DefaultIndexCapacity
	}
	return &partitions{dim: dim, min: min, capacity: capacity, m: make(map[string]*partIndex)}
}

// entry returns the index slot of user, creating an empty one.
func (p *partitions) entry(user string) *partIndex {
	p.mu.Lock()
	defer p.mu.Unlock()
	pi := p.m[user]
	if pi == nil {
		pi = &partIndex{}
		p.m[user] = pi
	}
	pi.used.Store(p.clock.Add(1))
	return pi
}

// held returns user's index slot if one exists, without making one.
func (p *partitions) held(user string) *partIndex {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[user]
}

// added brings the loaded indexes up to date with episodes this process just
// committed: an index whose generation was the one before the commit gets the
// new entries; any other is dropped (the next search reloads it).
func (p *partitions) added(fresh []indexed, gens map[string]int64) {
	if p == nil || len(fresh) == 0 {
		return
	}
	byUser := make(map[string][]indexed)
	for _, f := range fresh {
		byUser[f.user] = append(byUser[f.user], f)
	}
	for user, eps := range byUser {
		p.mu.Lock()
		pi := p.m[user]
		p.mu.Unlock()
		if pi == nil {
			continue
		}
		pi.mu.Lock()
		if pi.x != nil && pi.gen == gens[user]-int64(len(eps)) {
			ok := true
			for _, e := range eps {
				if pi.x.Add(e.id, e.attrs, e.code) != nil {
					ok = false
					break
				}
			}
			if ok {
				pi.gen = gens[user]
				pi.held.Store(int64(pi.x.Len()))
				p.grow(len(eps))
			} else {
				p.drop(pi)
			}
		} else if pi.x != nil {
			p.drop(pi)
		}
		pi.mu.Unlock()
	}
	p.evict()
}

// drop frees pi's index; the caller holds pi.mu.
func (p *partitions) drop(pi *partIndex) {
	if pi.x != nil {
		p.grow(-pi.x.Len())
	}
	pi.x, pi.gen = nil, 0
	pi.held.Store(0)
}

// install makes x, of generation gen, pi's index; the caller holds pi.mu.
func (p *partitions) install(pi *partIndex, x *vecindex.Index, gen int64) {
	p.drop(pi)
	pi.x, pi.gen = x, gen
	pi.held.Store(int64(x.Len()))
	p.grow(x.Len())
}

func (p *partitions) grow(n int) {
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

// evict drops the least recently searched indexes while more vectors than
// the capacity are held.
func (p *partitions) evict() {
	for {
		p.mu.Lock()
		if p.total <= p.capacity {
			p.mu.Unlock()
			return
		}
		var victim *partIndex
		for _, pi := range p.m {
			if pi.held.Load() > 0 && (victim == nil || pi.used.Load() < victim.used.Load()) {
				victim = pi
			}
		}
		p.mu.Unlock()
		if victim == nil {
			return
		}
		victim.mu.Lock()
		p.drop(victim)
		victim.mu.Unlock()
	}
}

// forget drops user's index.
func (p *partitions) forget(user string) {
	p.mu.Lock()
	pi := p.m[user]
	delete(p.m, user)
	p.mu.Unlock()
	if pi != nil {
		pi.mu.Lock()
		p.drop(pi)
		pi.mu.Unlock()
	}
}

// load reads user's quantized vectors and their generation in one statement
// (one snapshot) into pi, unless another goroutine loaded a newer one first.
func (s *Store) load(ctx context.Context, user string, size int, pi *partIndex) error {
	pi.mu.Lock()
	defer pi.mu.Unlock()
	rows, err := s.db.QueryContext(ctx, `SELECT (SELECT gen FROM partitions WHERE user = ?1),
		id, occurred_at, kind, state, sensitivity, vq FROM episodes WHERE user = ?1`, user)
	if err != nil {
		return err
	}
	defer rows.Close()
	x, err := vecindex.New(s.dim)
	if err != nil {
		return err
	}
	x.Grow(size)
	var gen int64
	for rows.Next() {
		var id int64
		var a vecindex.Attrs
		var code sql.RawBytes // copied by Add
		if err := rows.Scan(&gen, &id, &a.OccurredAt, &a.Kind, &a.State, &a.Sensitivity, &code); err != nil {
			return err
		}
		if code == nil {
			return fmt.Errorf("episode %d has no quantized vector (run reindex)", id)
		}
		if err := x.Add(id, a, code); err != nil {
			return fmt.Errorf("episode %d: %w", id, err)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if pi.x != nil && pi.gen >= gen {
		return nil // someone else was faster
	}
	s.parts.install(pi, x, gen)
	go s.parts.evict()
	return nil
}

func vecFilter(f episode.SearchFilter) vecindex.Filter {
	vf := vecindex.Filter{MaxSensitivity: int(f.MaxSensitivity), HasMaxSensitivity: true}
	if !f.Since.IsZero() {
		vf.Since = f.Since.Unix()
	}
	if !f.Until.IsZero() {
		vf.Until = f.Until.Unix()
	}
	for _, k := range f.Kinds {
		vf.Kinds = append(vf.Kinds, int(k))
	}
	for _, st := range f.States {
		vf.States = append(vf.States, int(st))
	}
	return vf
}
