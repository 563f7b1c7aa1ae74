// Package sqlite is the episode store: one SQLite file holding an episodes
// table, an FTS5 index of the analyzed text and a sqlite-vec vec0 index of the
// embeddings, kept together in one transaction, with in-memory vector indexes
// of the largest partitions, the record of erasures and restore. Build with
// -tags sqlite_fts5.
//
// The files follow what the store does: open and schema (store.go,
// schema.go), writes (store.go, groupcommit.go), searches (search.go,
// fts5rank.go), partitions held in memory (partitions.go), erasure and
// restore (erasure.go, backup.go), maintenance (maintain.go, ftsmerge.go),
// export (export.go) and the lock that keeps a restore from a store in use
// (lock.go).
package sqlite
