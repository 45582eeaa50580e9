package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// encodeSummary encodes what the summaries keep of a payload: its label
// set, KPI values, KPI definitions and build (nil when it has none). Maps
// are written with sorted keys, so equal sets are equal documents.
func encodeSummary(p *models.Payload) (labels, values, defs, build []byte, err error) {
	r := lts.RecordOf(p)
	if labels, err = json.Marshal(r.Labels); err != nil {
		return
	}
	if values, err = json.Marshal(r.Values); err != nil {
		return
	}
	if defs, err = json.Marshal(r.Defs); err != nil {
		return
	}
	if p.Metadata.Build != nil {
		build, err = json.Marshal(p.Metadata.Build)
	}
	return
}

// Records selects the ids of the matches as Payloads does (from the
// summaries), then reads a page of summaries at a time. Each label set, KPI
// definition set and build is read and decoded once per query, and shared
// by its records: only the KPI values are decoded per record, in parallel.
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
			records, err := s.readSummaries(ctx, page, shared)
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

// sharedDocs are the label sets, KPI definition sets and builds of one
// query, decoded, by id.
type sharedDocs struct {
	labels map[int64]map[string]string
	defs   map[int64]map[string]lts.KPIDef
	builds map[int64]*models.Build
}

func newSharedDocs() *sharedDocs {
	return &sharedDocs{labels: map[int64]map[string]string{}, defs: map[int64]map[string]lts.KPIDef{}, builds: map[int64]*models.Build{}}
}

// summaryRow is a row of summaries before its shared documents are joined.
type summaryRow struct {
	values                []byte // nil: deleted since selected
	labelSet, kpiSet, bld int64  // bld 0: no build
}

// readSummaries reads and decodes the summaries of ids, in the order of
// ids (rows deleted since selected are skipped), and the shared documents
// they use that shared lacks.
func (s *store) readSummaries(ctx context.Context, ids []int64, shared *sharedDocs) ([]lts.Record, error) {
	args, pos := idArgs(ids)
	rows, err := s.db.QueryContext(ctx, "SELECT id, test_uuid, start_ns, workload, exit_code, label_set, kpis, kpi_set, build FROM summaries WHERE id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]lts.Record, len(ids))
	raw := make([]summaryRow, len(ids))
	var missingLabels, missingDefs, missingBuilds []any
	for rows.Next() {
		var id, startNS, labelSet, kpiSet int64
		var uuid, workload string
		var exit, build *int64
		var values []byte
		if err := rows.Scan(&id, &uuid, &startNS, &workload, &exit, &labelSet, &values, &kpiSet, &build); err != nil {
			return nil, err
		}
		i := pos[id]
		out[i] = lts.Record{TestUUID: uuid, Time: time.Unix(0, startNS).UTC(), Workload: workload}
		if exit != nil {
			code := int(*exit)
			out[i].ExitCode = &code
		}
		r := summaryRow{values: values, labelSet: labelSet, kpiSet: kpiSet}
		if build != nil {
			r.bld = *build
			if _, ok := shared.builds[r.bld]; !ok {
				shared.builds[r.bld] = nil
				missingBuilds = append(missingBuilds, r.bld)
			}
		}
		raw[i] = r
		if _, ok := shared.labels[labelSet]; !ok {
			shared.labels[labelSet] = nil
			missingLabels = append(missingLabels, labelSet)
		}
		if _, ok := shared.defs[kpiSet]; !ok {
			shared.defs[kpiSet] = nil
			missingDefs = append(missingDefs, kpiSet)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := readShared(ctx, s, "SELECT id, labels FROM label_sets", missingLabels, shared.labels); err != nil {
		return nil, fmt.Errorf("label sets: %w", err)
	}
	if err := readShared(ctx, s, "SELECT id, kpis FROM kpi_sets", missingDefs, shared.defs); err != nil {
		return nil, fmt.Errorf("KPI definitions: %w", err)
	}
	if err := readShared(ctx, s, "SELECT id, build FROM builds", missingBuilds, shared.builds); err != nil {
		return nil, fmt.Errorf("builds: %w", err)
	}
	if err := decodeValues(out, raw); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, r := range out {
		if raw[i].values == nil {
			continue
		}
		r.Labels, r.Defs = shared.labels[raw[i].labelSet], shared.defs[raw[i].kpiSet]
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		if r.Defs == nil {
			r.Defs = map[string]lts.KPIDef{} // a summary of schema 3 migrated without payload KPIs
		}
		if raw[i].bld != 0 {
			r.Build = shared.builds[raw[i].bld]
		}
		kept = append(kept, r)
	}
	return kept, nil
}

// readShared reads and decodes the documents of ids from query (selecting
// id and document) into docs.
func readShared[T any](ctx context.Context, s *store, query string, ids []any, docs map[int64]T) error {
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
		var v T
		if err := json.Unmarshal(doc, &v); err != nil {
			return fmt.Errorf("%d: %w", id, err)
		}
		docs[id] = v
	}
	return rows.Err()
}

// decodeValues decodes the KPI values of raw into the records beside them,
// in parallel; rows deleted since selected are left alone.
func decodeValues(out []lts.Record, raw []summaryRow) error {
	return parallelEach(len(raw), 256, func(i int) error {
		if raw[i].values == nil {
			return nil
		}
		values := map[string]float64{}
		if err := json.Unmarshal(raw[i].values, &values); err != nil {
			return fmt.Errorf("stored payload %s: kpis: %w", out[i].TestUUID, err)
		}
		out[i].Values = values
		return nil
	})
}
