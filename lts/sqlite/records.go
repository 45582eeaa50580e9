package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"iter"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// encodeSummary encodes what the summaries keep of a payload besides its
// kind (encodeKinds): its label set, KPI values and build (nil when it has
// none). Maps are written with sorted keys, so equal sets are equal
// documents.
func encodeSummary(p *models.Payload) (labels, values, build []byte, err error) {
	if p.Metadata.Labels == nil {
		labels = []byte("{}")
	} else if labels, err = json.Marshal(p.Metadata.Labels); err != nil {
		return
	}
	v := make(map[string]float64, len(p.KPIs))
	for name, k := range p.KPIs {
		v[name] = k.Value
	}
	if values, err = json.Marshal(v); err != nil {
		return
	}
	if p.Metadata.Build != nil {
		build, err = json.Marshal(p.Metadata.Build)
	}
	return
}

// kind is what the runs of one workload share: the workload, the exit
// code and the KPI definitions, stored once in the kinds table.
type kind struct {
	Workload string                `json:"workload"`
	ExitCode *int                  `json:"exit_code"`
	KPIs     map[string]lts.KPIDef `json:"kpis"`
}

// encodeKinds encodes the kind of each payload. A payload of the same kind
// as the one before it (the successful runs of one workload all are) shares
// that document, encoded once: encoding every payload's, help texts
// included, added 13% to the bytes allocated by BenchmarkSQLitePut (178 MB
// instead of 157 MB per 10,000 payloads); comparing costs next to nothing.
func encodeKinds(payloads []*models.Payload) ([][]byte, error) {
	out := make([][]byte, len(payloads))
	var last *models.Payload
	var lastDoc []byte
	for i, p := range payloads {
		if last != nil && sameKind(last, p) {
			out[i] = lastDoc
			continue
		}
		r := lts.RecordOf(p)
		doc, err := json.Marshal(kind{Workload: r.Workload, ExitCode: r.ExitCode, KPIs: r.Defs})
		if err != nil {
			return nil, fmt.Errorf("payload %s: KPI definitions: %w", p.Metadata.TestUUID, err)
		}
		last, lastDoc, out[i] = p, doc, doc
	}
	return out, nil
}

// sameKind tells whether two payloads have the same workload, exit code,
// and KPI names, units, help and directions.
func sameKind(p, q *models.Payload) bool {
	pc, qc := p.Metadata.ExitCode, q.Metadata.ExitCode
	if p.Metadata.Workload != q.Metadata.Workload || (pc == nil) != (qc == nil) || (pc != nil && *pc != *qc) {
		return false
	}
	return sameDefs(p.KPIs, q.KPIs)
}

// sameDefs tells whether two payloads' KPIs have the same names, units,
// help and directions.
func sameDefs(a, b map[string]models.KPIValue) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok || x.Unit != y.Unit || x.Help != y.Help || x.LowerBetter != y.LowerBetter {
			return false
		}
	}
	return true
}

// Records selects the ids of the matches as Payloads does (from the
// summaries), then reads a page of summaries at a time. Each label set,
// kind and build is read and decoded once per query, and shared by its
// records: only the KPI values are decoded per record, in parallel.
func (s *store) Records(ctx context.Context, q lts.Query) iter.Seq2[lts.Record, error] {
	return func(yield func(lts.Record, error) bool) {
		ids, err := s.matchingIDs(ctx, q, "summaries")
		if err != nil {
			yield(lts.Record{}, wrapErr(s, err))
			return
		}
		shared := newSharedDocs()
		pageSize := q.PageSizeOr(s.pageSize)
		for start := 0; start < len(ids); start += pageSize {
			page := ids[start:min(start+pageSize, len(ids))]
			records, err := s.readSummaries(ctx, page, shared, q.SampleStats)
			if err != nil {
				yield(lts.Record{}, wrapErr(s, err))
				return
			}
			for _, r := range records {
				if !yield(r.Only(q.KPIs), nil) {
					return
				}
			}
		}
	}
}

// sharedDocs are the label sets, kinds and builds of one query, decoded,
// by id.
type sharedDocs struct {
	labels map[int64]map[string]string
	kinds  map[int64]*kind
	builds map[int64]*models.Build
}

func newSharedDocs() *sharedDocs {
	return &sharedDocs{labels: map[int64]map[string]string{}, kinds: map[int64]*kind{}, builds: map[int64]*models.Build{}}
}

// docCache keeps the shared documents a store decoded (label sets,
// kinds, builds) for its later queries: they are interned, each id one
// document that never changes, and a serve comparison reads a build in
// spans, each of which met the same 1,000 label sets (the label sets'
// queries and decoding were 15 ms of CPU a build read). Their maps are
// shared, as they are by the records of one query: not to be changed.
type docCache[T any] struct {
	mu   sync.RWMutex
	docs map[int64]T
}

func (c *docCache[T]) get(id int64) (T, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.docs[id]
	return v, ok
}

func (c *docCache[T]) put(docs map[int64]T, ids []any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.docs == nil {
		c.docs = map[int64]T{}
	}
	for _, id := range ids {
		if v, ok := docs[id.(int64)]; ok {
			c.docs[id.(int64)] = v
		}
	}
}

// want notes an id of docs to read unless already known, to the query
// or to the store (cache).
func want[T any](docs map[int64]T, cache *docCache[T], id int64, missing []any) []any {
	if _, ok := docs[id]; ok {
		return missing
	}
	if v, ok := cache.get(id); ok {
		docs[id] = v
		return missing
	}
	var zero T
	docs[id] = zero
	return append(missing, id)
}

// summaryRow is a row of summaries before its shared documents are joined.
type summaryRow struct {
	values                []byte // nil: deleted since selected
	samples               []byte // sample_stats' row; nil: none kept (or not asked)
	labelSet, kind, build int64  // build 0: none
}

// readSummaries reads and decodes the summaries of ids, in the order of
// ids (rows deleted since selected are skipped), and the shared documents
// they use that shared lacks; with samples, the summaries of the runs'
// samples too (lts.Query.SampleStats).
func (s *store) readSummaries(ctx context.Context, ids []int64, shared *sharedDocs, samples bool) ([]lts.Record, error) {
	args, pos := idArgs(ids)
	// The summaries of the samples joined in the same query: one pass
	// over the ids, not a second query (a fifth of reading a build's
	// records for a serve comparison).
	stats, join := "NULL", ""
	if samples {
		stats, join = "t.stats", " LEFT JOIN sample_stats t ON t.id = s.id"
	}
	rows, err := s.db.QueryContext(ctx, "SELECT s.id, s.test_uuid, s.start_ns, s.label_set, s.kpis, s.kind, s.build, s.host_load, s.cpu_share, s.cpu_pressure, "+stats+
		" FROM summaries s"+join+" WHERE s.id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]lts.Record, len(ids))
	raw := make([]summaryRow, len(ids))
	var missingLabels, missingKinds, missingBuilds []any
	for rows.Next() {
		var id, startNS int64
		var uuid string
		var build sql.NullInt64
		var load, share, pressure sql.NullFloat64
		var r summaryRow
		if err := rows.Scan(&id, &uuid, &startNS, &r.labelSet, &r.values, &r.kind, &build, &load, &share, &pressure, &r.samples); err != nil {
			return nil, err
		}
		i := pos[id]
		out[i] = lts.Record{TestUUID: uuid, Time: time.Unix(0, startNS).UTC(), CPUShare: share.Float64}
		if load.Valid {
			out[i].HostLoad = &load.Float64
		}
		if pressure.Valid {
			out[i].CPUPressure = &pressure.Float64
		}
		missingLabels = want(shared.labels, &s.labelSets, r.labelSet, missingLabels)
		missingKinds = want(shared.kinds, &s.kinds, r.kind, missingKinds)
		if build.Valid {
			r.build = build.Int64
			missingBuilds = want(shared.builds, &s.builds, r.build, missingBuilds)
		}
		raw[i] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Closed before the next queries, which then take the same connection
	// from the pool: a second one, opened for them, was closed again
	// when more than the pool keeps idle (2) were back, its page cache
	// freed and the next connection's read from the file (13 ms of a cold
	// serve comparison's CPU).
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := readShared(ctx, s, "SELECT id, labels FROM label_sets", missingLabels, shared.labels); err != nil {
		return nil, fmt.Errorf("label sets: %w", err)
	}
	if err := readShared(ctx, s, "SELECT id, kind FROM kinds", missingKinds, shared.kinds); err != nil {
		return nil, fmt.Errorf("kinds: %w", err)
	}
	if err := readShared(ctx, s, "SELECT id, build FROM builds", missingBuilds, shared.builds); err != nil {
		return nil, fmt.Errorf("builds: %w", err)
	}
	s.labelSets.put(shared.labels, missingLabels)
	s.kinds.put(shared.kinds, missingKinds)
	s.builds.put(shared.builds, missingBuilds)
	if err := decodeValues(out, raw, kpiNames(shared.kinds)); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, r := range out {
		if raw[i].values == nil {
			continue
		}
		r.Labels = shared.labels[raw[i].labelSet]
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		if k := shared.kinds[raw[i].kind]; k != nil {
			r.Workload, r.ExitCode, r.Defs = k.Workload, k.ExitCode, k.KPIs
		}
		if r.Defs == nil {
			r.Defs = map[string]lts.KPIDef{}
		}
		if raw[i].build != 0 {
			r.Build = shared.builds[raw[i].build]
		}
		kept = append(kept, r)
	}
	return kept, nil
}

// readShared reads and decodes the documents of ids from query (selecting
// id and document) into docs.
func readShared[T any](ctx context.Context, s *store, query string, ids []any, docs map[int64]T) error {
	return readDocs(ctx, s, query, ids, func(id int64, doc []byte) error {
		var v T
		if err := jsonv2.Unmarshal(doc, &v, v1Semantics); err != nil {
			return fmt.Errorf("%d: %w", id, err)
		}
		docs[id] = v
		return nil
	})
}

// readDocs calls f with each id and document that query (selecting id
// and document) finds of ids.
func readDocs(ctx context.Context, s *store, query string, ids []any, f func(id int64, doc []byte) error) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, query+" WHERE id IN ("+placeholders(len(ids))+")", ids...)
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
		if err := f(id, doc); err != nil {
			return err
		}
	}
	return rows.Err()
}

// v1Semantics are the options under which the v2 engine of
// encoding/json decodes as encoding/json does. The records' documents
// (KPI values, label sets, kinds, builds) are decoded by it: a map
// decoded by encoding/json allocates each value apart (22 allocations
// for 8 KPIs against 5; 37 for 10 labels against 8), and a comparison
// decodes 5,000 records a build, the series index every record.
var v1Semantics = jsonv1.DefaultOptionsV1()

// kpiNames are the KPI names that kinds define, each its own key: a
// record's KPI values and their samples' summaries are decoded with these
// strings as their keys, not one allocated per record.
func kpiNames(kinds map[int64]*kind) map[string]string {
	names := map[string]string{}
	for _, k := range kinds {
		if k != nil {
			for name := range k.KPIs {
				names[name] = name
			}
		}
	}
	return names
}

// decodeValues decodes the KPI values of raw (and the summaries of their
// samples) into the records beside them, in parallel; rows deleted since
// selected are left alone. names are the KPI names known (kpiNames).
func decodeValues(out []lts.Record, raw []summaryRow, names map[string]string) error {
	return parallelEach(len(raw), 256, func(i int) error {
		if raw[i].values == nil {
			return nil
		}
		values, err := decodeKPIValues(raw[i].values, names)
		if err != nil {
			return fmt.Errorf("stored payload %s: kpis: %w", out[i].TestUUID, err)
		}
		out[i].Values = values
		if raw[i].samples != nil {
			if out[i].Samples, err = decodeRunStats(raw[i].samples, names); err != nil {
				return fmt.Errorf("stored payload %s: summaries of its samples: %w", out[i].TestUUID, err)
			}
		}
		return nil
	})
}
