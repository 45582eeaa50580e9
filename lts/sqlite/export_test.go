package sqlite

import (
	"context"

	"github.com/seshat-bench/seshat/lts"
)

// Explain returns SQLite's query plan of q on a sqlite store, one line per
// step, sorted.
func Explain(ctx context.Context, s lts.Store, q lts.Query) ([]string, error) {
	return s.(*store).explainQuery(ctx, q, "payloads")
}

// ExplainRecords is Explain of the query of Records.
func ExplainRecords(ctx context.Context, s lts.Store, q lts.Query) ([]string, error) {
	return s.(*store).explainQuery(ctx, q, "summaries")
}

// Migrations are the schema migrations of the SQLite store, for the tests
// that upgrade a store written by an older seshat.
var Migrations = migrations

// ExplainVerdicts is SQLite's query plan of Verdicts(q), one line per
// step, sorted.
func ExplainVerdicts(ctx context.Context, s lts.Store, q lts.VerdictQuery) ([]string, error) {
	query, args := verdictsQuery(q)
	return s.(*store).explain(ctx, query, args)
}
