package sqlite

/*
#include <sqlite3.h>

// omoide_memstatus_off turns SQLite's memory statistics off. sqlite3_config is
// variadic, which cgo cannot call.
static int omoide_memstatus_off(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// omoide_memstatus_on reports whether SQLite counts its memory.
static int omoide_memstatus_on(void) {
	sqlite3_int64 cur = 0, hi = 0;
	sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &hi, 0);
	return cur > 0;
}
*/
import "C"

import (
	"sync"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
)

var registerVec sync.Once

// registerSQLiteVec configures the process's SQLite once, before anything
// initializes it, then registers sqlite-vec and omoide_bm25 (fts5rank.go) on
// every connection.
//
// SQLite's memory statistics (on by default) take one process-wide mutex on
// every allocation, so concurrent queries run one at a time (the two BM25
// queries of a retrieval: docs/performance.md, "Figures behind the code").
// omoide reads no statistic and sets no heap limit, which need them, so they
// are turned off. When the program has
// already used SQLite before the first store is opened the call fails and
// SQLite keeps counting; everything still works, only slower.
func registerSQLiteVec() {
	C.omoide_memstatus_off()
	sqlite_vec.Auto()
	registerRank()
}

// sqliteCountsMemory reports whether SQLite keeps memory statistics.
func sqliteCountsMemory() bool { return C.omoide_memstatus_on() != 0 }
