package lts

import "context"

// ExplainSQLite returns SQLite's query plan of q on a sqlite store, one
// line per step, sorted.
func ExplainSQLite(ctx context.Context, s Store, q Query) ([]string, error) {
	return s.(*sqliteStore).explainQuery(ctx, q)
}

// SQLiteMigrations are the schema migrations of the SQLite store, for the
// test that upgrades a store written by an older seshat.
var SQLiteMigrations = sqliteMigrations
