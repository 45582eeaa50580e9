package lts

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// KPIRecord is a stored payload as regression history reads it: which run,
// when, its labels and its KPI values, without settings or results. (Units
// and directions are the KPI definitions' business: a history is judged in
// the current run's.)
type KPIRecord struct {
	TestUUID string
	// Start is the run's start: the @timestamp of every KPI of the run.
	Start time.Time
	// Labels may be shared by the records of one query: read them, do not
	// modify them.
	Labels map[string]string
	// Values are the KPI values by name.
	Values map[string]float64
}

// KPIQuerier is the ability of a store to answer a Query with KPI records
// cheaply, reading neither settings nor results. The SQLite store has it;
// QueryKPIs falls back on Query for a store without it.
type KPIQuerier interface {
	// QueryKPIs yields the records of the payloads Query would yield, in
	// the same order, with the same no-cap and error contract.
	QueryKPIs(ctx context.Context, q Query) iter.Seq2[KPIRecord, error]
}

// QueryKPIs answers q with KPI records: through the store's KPIQuerier
// ability when it has one, else from the payloads of Query.
func QueryKPIs(ctx context.Context, s Store, q Query) iter.Seq2[KPIRecord, error] {
	if kq, ok := s.(KPIQuerier); ok {
		return kq.QueryKPIs(ctx, q)
	}
	// A record needs the metadata and the KPIs only: the results, most of
	// a payload, are left on the server.
	q.WithoutResults = true
	return func(yield func(KPIRecord, error) bool) {
		for p, err := range s.Query(ctx, q) {
			if err != nil {
				yield(KPIRecord{}, err)
				return
			}
			if !yield(RecordOf(p), nil) {
				return
			}
		}
	}
}

// RecordOf returns the KPI record of a payload.
func RecordOf(p *models.Payload) KPIRecord {
	s := summaryOf(p)
	return KPIRecord{TestUUID: p.Metadata.TestUUID, Start: p.Metadata.Start, Labels: s.Labels, Values: s.KPIs}
}

// payloadSummary is the summary column of the SQLite store: what
// KPIRecord needs beyond the payload's key and start.
type payloadSummary struct {
	Labels map[string]string  `json:"labels"`
	KPIs   map[string]float64 `json:"kpis"`
}

func summaryOf(p *models.Payload) payloadSummary {
	s := payloadSummary{Labels: p.Metadata.Labels, KPIs: make(map[string]float64, len(p.KPIs))}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	for name, v := range p.KPIs {
		s.KPIs[name] = v.Value
	}
	return s
}

// QueryKPIs selects the ids of the matches as Query does (from the
// summaries), then reads a page of summaries at a time; each label set is
// read and decoded once per query, and shared by its records.
func (s *sqliteStore) QueryKPIs(ctx context.Context, q Query) iter.Seq2[KPIRecord, error] {
	return func(yield func(KPIRecord, error) bool) {
		ids, err := s.matchingIDs(ctx, q, "summaries")
		if err != nil {
			yield(KPIRecord{}, wrapErr(s, err))
			return
		}
		sets := map[int64]map[string]string{}
		for start := 0; start < len(ids); start += s.pageSize {
			page := ids[start:min(start+s.pageSize, len(ids))]
			records, err := s.readSummaries(ctx, page, sets)
			if err != nil {
				yield(KPIRecord{}, wrapErr(s, err))
				return
			}
			for _, r := range records {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// readSummaries reads and decodes the summaries of ids, in the order of
// ids (rows deleted since selected are skipped), and the label sets they
// use that sets lacks.
func (s *sqliteStore) readSummaries(ctx context.Context, ids []int64, sets map[int64]map[string]string) ([]KPIRecord, error) {
	args, pos := idArgs(ids)
	rows, err := s.db.QueryContext(ctx, "SELECT id, test_uuid, start_ns, label_set, kpis FROM summaries WHERE id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]KPIRecord, len(ids))
	docs := make([][]byte, len(ids))
	setOf := make([]int64, len(ids))
	var missing []any
	for rows.Next() {
		var id, startNS, set int64
		var uuid string
		var doc []byte
		if err := rows.Scan(&id, &uuid, &startNS, &set, &doc); err != nil {
			return nil, err
		}
		i := pos[id]
		out[i] = KPIRecord{TestUUID: uuid, Start: time.Unix(0, startNS).UTC()}
		docs[i], setOf[i] = doc, set
		if _, ok := sets[set]; !ok {
			sets[set] = nil
			missing = append(missing, set)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.readLabelSets(ctx, missing, sets); err != nil {
		return nil, err
	}
	if err := decodeKPIs(out, docs); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, r := range out {
		if docs[i] != nil {
			r.Labels = sets[setOf[i]]
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// readLabelSets reads and decodes the label sets of ids into sets.
func (s *sqliteStore) readLabelSets(ctx context.Context, ids []any, sets map[int64]map[string]string) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id, labels FROM label_sets WHERE id IN ("+placeholders(len(ids))+")", ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return err
		}
		labels := map[string]string{}
		if err := json.Unmarshal(doc, &labels); err != nil {
			return fmt.Errorf("label set %d: %w", id, err)
		}
		sets[id] = labels
	}
	return rows.Err()
}

// decodeKPIs decodes the KPI values of docs into the records beside them,
// in parallel; nil documents are left alone.
func decodeKPIs(out []KPIRecord, docs [][]byte) error {
	return parallelEach(len(docs), 256, func(i int) error {
		if docs[i] == nil {
			return nil
		}
		values := map[string]float64{}
		if err := json.Unmarshal(docs[i], &values); err != nil {
			return fmt.Errorf("stored payload %s: kpis: %w", out[i].TestUUID, err)
		}
		out[i].Values = values
		return nil
	})
}
