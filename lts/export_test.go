package lts

import "context"

// ExplainSQLite returns SQLite's query plan of q on a sqlite store, one
// line per step, sorted.
func ExplainSQLite(ctx context.Context, s Store, q Query) ([]string, error) {
	return s.(*sqliteStore).explainQuery(ctx, q)
}
