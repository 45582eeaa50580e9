package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/seshat-bench/seshat/lts"
)

// BackfillSampleStats gives the runs without a sample_stats row (stored
// before migration 10, or by a store opened without samples) the
// summaries of their samples, batch runs at a time, each batch in one
// transaction: the runs lacking them found, their payloads read and
// decoded, summarised (lts.SampleStatsOf, as Put does) and inserted. A
// run whose workload has no samples gets an empty summary ({}), as Put
// gives it, so that it is not read again. A Put meanwhile waits for the
// batch (the write lock is taken when a transaction begins) and replaces
// its row.
func (s *store) BackfillSampleStats(ctx context.Context, batch int) (int, error) {
	if s.samples == nil {
		return 0, nil
	}
	if batch < 1 {
		batch = 500
	}
	done := 0
	var bad []error // the runs whose payloads do not decode: skipped
	var after int64 // the last id met: a run skipped is not tried again
	for {
		n, last, skipped, err := s.backfillBatch(ctx, after, batch)
		done += n
		bad = append(bad, skipped...)
		if err != nil {
			bad = append(bad, err)
		}
		if err != nil || last == after {
			if err := errors.Join(bad...); err != nil {
				return done, fmt.Errorf("%s: summaries of samples: %w", s, err)
			}
			return done, nil
		}
		after = last
	}
}

// backfillBatch backfills the first batch runs without summaries after id
// after, in one transaction, and returns how many it did, the last id it
// met (after when none) and the errors of the runs it skipped (their
// payloads do not decode: reading their samples will say so too).
func (s *store) backfillBatch(ctx context.Context, after int64, batch int) (n int, last int64, skipped []error, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, after, nil, err
	}
	defer func() { _ = tx.Rollback() }()
	ids, err := missingSampleStats(ctx, tx, after, batch)
	if err != nil || len(ids) == 0 {
		return 0, after, nil, err
	}
	last = ids[len(ids)-1]
	docs, names, err := payloadDocs(ctx, tx, ids)
	if err != nil {
		return 0, after, nil, err
	}
	stats := make([][]byte, len(ids))
	bad := make([]error, len(ids))
	_ = parallelEach(len(ids), 32, func(i int) error {
		if docs[i] == nil {
			return nil
		}
		p, err := lts.DecodeStored(docs[i], false)
		if err == nil {
			stats[i], err = json.Marshal(lts.SampleStatsOf(p, s.samples))
		}
		if err != nil {
			stats[i], bad[i] = nil, fmt.Errorf("stored payload %s: %w", names[i], err)
		}
		return nil
	})
	for _, err := range bad {
		if err != nil {
			skipped = append(skipped, err)
		}
	}
	insert, err := tx.PrepareContext(ctx, "INSERT OR IGNORE INTO sample_stats (id, stats) VALUES (?, ?)")
	if err != nil {
		return 0, after, nil, err
	}
	defer insert.Close()
	for i, id := range ids {
		if stats[i] == nil {
			continue
		}
		if _, err := insert.ExecContext(ctx, id, string(stats[i])); err != nil {
			return 0, after, skipped, fmt.Errorf("stored payload %s: %w", names[i], err)
		}
		n++
	}
	if err := tx.Commit(); err != nil {
		return 0, after, skipped, err
	}
	return n, last, skipped, nil
}

// missingSampleStats are the ids of up to batch runs after id after that
// have no sample_stats row, in id order.
func missingSampleStats(ctx context.Context, tx *sql.Tx, after int64, batch int) ([]int64, error) {
	return scanIDs(tx.QueryContext(ctx, `SELECT s.id FROM summaries s LEFT JOIN sample_stats t ON t.id = s.id
		WHERE t.id IS NULL AND s.id > ? ORDER BY s.id LIMIT ?`, after, batch))
}

var _ lts.SampleStatsBackfiller = (*store)(nil)
