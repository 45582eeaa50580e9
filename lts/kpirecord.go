package lts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
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

// QueryKPIs selects the ids of the matches as Query does, then reads the
// summaries of a page of them at a time.
func (s *sqliteStore) QueryKPIs(ctx context.Context, q Query) iter.Seq2[KPIRecord, error] {
	return func(yield func(KPIRecord, error) bool) {
		ids, err := s.matchingIDs(ctx, q)
		if err != nil {
			yield(KPIRecord{}, wrapErr(s, err))
			return
		}
		labels := &labelSets{byText: map[string]map[string]string{}}
		for start := 0; start < len(ids); start += s.pageSize {
			page := ids[start:min(start+s.pageSize, len(ids))]
			records, err := s.readSummaries(ctx, page, labels)
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
// ids; rows deleted since selected are skipped.
func (s *sqliteStore) readSummaries(ctx context.Context, ids []int64, labels *labelSets) ([]KPIRecord, error) {
	args := make([]any, len(ids))
	pos := make(map[int64]int, len(ids))
	for i, id := range ids {
		args[i] = id
		pos[id] = i
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id, test_uuid, start_ns, summary FROM payloads WHERE id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]KPIRecord, len(ids))
	docs := make([][]byte, len(ids))
	for rows.Next() {
		var id, startNS int64
		var uuid string
		var doc []byte
		if err := rows.Scan(&id, &uuid, &startNS, &doc); err != nil {
			return nil, err
		}
		i := pos[id]
		out[i] = KPIRecord{TestUUID: uuid, Start: time.Unix(0, startNS).UTC()}
		docs[i] = doc
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := decodeSummaries(out, docs, labels); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, r := range out {
		if docs[i] != nil {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// labelSets decodes each distinct label set of a query once: the runs of
// one series and comparison value share theirs, and building maps is most
// of the decoding.
type labelSets struct {
	mu     sync.Mutex
	byText map[string]map[string]string
}

func (l *labelSets) decode(raw json.RawMessage) (map[string]string, error) {
	l.mu.Lock()
	m, ok := l.byText[string(raw)]
	l.mu.Unlock()
	if ok {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]string{}
	}
	l.mu.Lock()
	l.byText[string(raw)] = m
	l.mu.Unlock()
	return m, nil
}

// decodeSummaries decodes docs into the records beside them, in parallel
// (decoding is most of the time); nil documents are left alone.
func decodeSummaries(out []KPIRecord, docs [][]byte, labels *labelSets) error {
	errs := make([]error, len(docs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(docs)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(docs); i += workers {
				if docs[i] == nil {
					continue
				}
				var sum struct {
					Labels json.RawMessage    `json:"labels"`
					KPIs   map[string]float64 `json:"kpis"`
				}
				err := json.Unmarshal(docs[i], &sum)
				if err == nil {
					out[i].Labels, err = labels.decode(sum.Labels)
				}
				if err != nil {
					errs[i] = fmt.Errorf("stored payload %s: summary: %w", out[i].TestUUID, err)
					continue
				}
				if sum.KPIs == nil {
					sum.KPIs = map[string]float64{}
				}
				out[i].Values = sum.KPIs
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
