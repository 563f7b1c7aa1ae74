package sqlite

/*
#include <math.h>
#include <string.h>
#include <sqlite3.h>

// OmoideBM25 holds, for one statement, what every row's score shares: the
// average row length and each phrase's IDF.
typedef struct {
	int nPhrase;
	double avgdl;
	double *idf;  // nPhrase values
	double *freq; // nPhrase values, the current row's phrase frequencies
} OmoideBM25;

// omoide_bm25 is FTS5's bm25() (fts5_aux.c, same constants, same order of
// operations, so the same doubles) with the document counts of the phrases
// given as arguments instead of counted: bm25() reads each phrase's whole
// posting list on every query to count them, which over a million episodes
// costs more than everything else a retrieval does.
//
//   omoide_bm25(fts, weight_0 .. weight_{columns-1}, docs_0 .. docs_{phrases-1})
static void omoide_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
		int nVal, sqlite3_value **apVal) {
	const double k1 = 1.2;
	const double b = 0.75;
	int nCol = api->xColumnCount(fts);
	int nPhrase = api->xPhraseCount(fts);
	if (nVal != nCol + nPhrase) {
		sqlite3_result_error(ctx, "omoide_bm25: want a weight for each column, then a document count for each phrase", -1);
		return;
	}
	int rc = SQLITE_OK;
	OmoideBM25 *d = (OmoideBM25 *)api->xGetAuxdata(fts, 0);
	if (d == 0) {
		sqlite3_int64 nRow = 0, nToken = 0;
		rc = api->xRowCount(fts, &nRow);
		if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
		if (rc == SQLITE_OK) {
			d = (OmoideBM25 *)sqlite3_malloc64(sizeof(OmoideBM25) + 2 * (sqlite3_uint64)(nPhrase + 1) * sizeof(double));
			if (d == 0) rc = SQLITE_NOMEM;
		}
		if (rc == SQLITE_OK) {
			memset(d, 0, sizeof(OmoideBM25) + 2 * (size_t)(nPhrase + 1) * sizeof(double));
			d->nPhrase = nPhrase;
			d->idf = (double *)&d[1];
			d->freq = &d->idf[nPhrase + 1];
			d->avgdl = (double)nToken / (double)nRow;
			for (int i = 0; i < nPhrase; i++) {
				sqlite3_int64 nHit = sqlite3_value_int64(apVal[nCol + i]);
				double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
				if (idf <= 0.0) idf = 1e-6;
				d->idf[i] = idf;
			}
			rc = api->xSetAuxdata(fts, d, sqlite3_free);
		}
	}
	int nInst = 0;
	if (rc == SQLITE_OK) {
		memset(d->freq, 0, sizeof(double) * nPhrase);
		rc = api->xInstCount(fts, &nInst);
	}
	for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
		int ip, ic, io;
		rc = api->xInst(fts, i, &ip, &ic, &io);
		if (rc == SQLITE_OK) d->freq[ip] += sqlite3_value_double(apVal[ic]);
	}
	double D = 0.0;
	if (rc == SQLITE_OK) {
		int nTok;
		rc = api->xColumnSize(fts, -1, &nTok);
		D = (double)nTok;
	}
	if (rc != SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	double score = 0.0;
	for (int i = 0; i < nPhrase; i++) {
		score += d->idf[i] * ((d->freq[i] * (k1 + 1.0)) / (d->freq[i] + k1 * (1 - b + b * D / d->avgdl)));
	}
	sqlite3_result_double(ctx, -1.0 * score);
}

// omoide_fts5_init registers omoide_bm25 on a new connection; a SQLite
// without FTS5 gets nothing (opening a store then says how to build).
static int omoide_fts5_init(sqlite3 *db, char **pzErrMsg, const void *pApi) {
	fts5_api *api = 0;
	sqlite3_stmt *st = 0;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0) == SQLITE_OK) {
		sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", 0);
		sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (api == 0 || api->iVersion < 2) return SQLITE_OK;
	return api->xCreateFunction(api, "omoide_bm25", 0, omoide_bm25, 0);
}

static int omoide_fts5_auto(void) { return sqlite3_auto_extension((void (*)(void))omoide_fts5_init); }
*/
import "C"

// registerRank makes every new connection of the process know omoide_bm25.
func registerRank() { C.omoide_fts5_auto() }
