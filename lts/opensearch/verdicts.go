package opensearch

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/opensearch-project/opensearch-go/v2/opensearchapi"

	"github.com/seshat-bench/seshat/lts"
)

// The verdicts of regression analyses are kept in an index of their own
// beside the payload index (its name and "-verdicts"), one document per
// lts.Verdict with its field names, and their triage in another ("-triage"),
// one document per triaged verdict, keyed by the verdict's id (the latest),
// and every triage in a third ("-triage-history"), one document per
// triage with an "id" of its own to sort on.
func (s *store) verdictIndex() string       { return s.names.Payloads() + "-verdicts" }
func (s *store) triageIndex() string        { return s.names.Payloads() + "-triage" }
func (s *store) triageHistoryIndex() string { return s.names.Payloads() + "-triage-history" }

// historyTriage is a document of the triage history index.
type historyTriage struct {
	lts.Triage
	ID string `json:"id"`
}

// historySort orders a verdict's triages as made: by time, then id.
var historySort = []any{map[string]any{"time": map[string]any{"order": "asc"}}, map[string]any{"id": map[string]any{"order": "asc"}}}

var keywordField = map[string]any{"type": "keyword"}

// verdictTemplates are the index templates of the verdict and triage
// indices: the fields queried are keywords, labels are kept but not
// indexed (their names vary).
func (s *store) verdictTemplates() map[string]map[string]any {
	tpl := func(index string, props map[string]any) map[string]any {
		return map[string]any{"index_patterns": []string{index}, "priority": 100,
			"_meta": map[string]any{"generated_by": "seshat"}, "template": map[string]any{"mappings": map[string]any{"properties": props}}}
	}
	num := map[string]any{"type": "double"}
	return map[string]map[string]any{
		s.verdictIndex(): tpl(s.verdictIndex(), map[string]any{
			"id": keywordField, "analysis_id": keywordField, "time": map[string]any{"type": "date"},
			"workload": keywordField, "kpi": keywordField, "status": keywordField, "build": keywordField,
			"commit": keywordField, "comparison": keywordField, "unit": keywordField, "reference_builds": keywordField,
			"failing": map[string]any{"type": "boolean"}, "labels": map[string]any{"type": "object", "enabled": false},
			"delta_percent": num, "floor_percent": num, "q_value": num, "current": num, "reference": num,
		}),
		s.triageIndex(): tpl(s.triageIndex(), map[string]any{
			"verdict_id": keywordField, "state": keywordField, "time": map[string]any{"type": "date"},
		}),
		s.triageHistoryIndex(): tpl(s.triageHistoryIndex(), map[string]any{
			"id": keywordField, "verdict_id": keywordField, "state": keywordField, "user": keywordField, "time": map[string]any{"type": "date"},
		}),
	}
}

func (s *store) ensureVerdictTemplates(ctx context.Context, b *backoff) error {
	var stats lts.PutStats
	for name, tpl := range s.verdictTemplates() {
		if err := s.installTemplate(ctx, b, &stats, name, tpl); err != nil {
			return err
		}
	}
	return nil
}

// index writes documents of index by id in bulk and refreshes it.
func (s *store) indexDocs(ctx context.Context, index string, ids []string, sources [][]byte) error {
	b := s.newBackoff()
	if err := s.ensureVerdictTemplates(ctx, b); err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	var stats lts.PutStats
	docs := make([]bulkDoc, len(ids))
	for i := range ids {
		d, err := newBulkDoc(index, ids[i], false, sources[i])
		if err != nil {
			return err
		}
		docs[i] = d
	}
	for len(docs) > 0 {
		n := s.batchLen(docs)
		failed, err := s.sendBatch(ctx, &stats, b, docs[:n])
		if err == nil && len(failed) > 0 {
			err = fmt.Errorf("%s/%s: %s", index, failed[0].doc.id, failed[0].reason)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		docs = docs[n:]
	}
	_, err := s.do(ctx, b, &stats, "refresh", func() opensearchapi.Request {
		return opensearchapi.IndicesRefreshRequest{Index: []string{index}}
	})
	return err
}

// PutVerdicts indexes verdicts by id, replacing those of the same id
// (their triage, in its own index, stays).
func (s *store) PutVerdicts(ctx context.Context, vs []lts.Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	ids := make([]string, len(vs))
	srcs := make([][]byte, len(vs))
	for i, v := range vs {
		v.Triage, v.TriageHistory = nil, nil
		src, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("verdict %s: %w", v.ID, err)
		}
		ids[i], srcs[i] = v.ID, src
	}
	return s.indexDocs(ctx, s.verdictIndex(), ids, srcs)
}

// defaultVerdictWindow is the most verdicts one search asks for:
// OpenSearch's default index.max_result_window, past which a search is
// refused. Verdicts pages past it with search_after.
const defaultVerdictWindow = 10000

// verdictSort orders verdicts newest first, then by id: unique, so that
// search_after pages through them exactly.
var verdictSort = []any{map[string]any{"time": map[string]any{"order": "desc"}}, map[string]any{"id": map[string]any{"order": "asc"}}}

// Verdicts returns the matching verdicts, newest first, with their
// triage: every one of them (or the first q.Limit), a page of
// verdictWindow at a time.
func (s *store) Verdicts(ctx context.Context, q lts.VerdictQuery) ([]lts.Verdict, error) {
	var filters []any
	terms := func(field string, values ...string) {
		filters = append(filters, map[string]any{"terms": map[string]any{field: values}})
	}
	if q.ID != "" {
		terms("id", q.ID)
	}
	if q.AlertsOnly {
		terms("status", "regression", "improvement", "acknowledged")
	}
	if len(q.Builds) > 0 {
		terms("build", q.Builds...)
	}
	if q.Workload != "" {
		terms("workload", q.Workload)
	}
	if q.KPI != "" {
		terms("kpi", q.KPI)
	}
	query := map[string]any{"match_all": map[string]any{}}
	if len(filters) > 0 {
		query = map[string]any{"bool": map[string]any{"filter": filters}}
	}
	b := s.newBackoff() // one budget for all the pages
	var stats lts.PutStats
	var out []lts.Verdict
	var ids []string
	var after []json.RawMessage
	for {
		size := s.verdictWindow
		if q.Limit > 0 {
			size = min(size, q.Limit-len(out))
		}
		req := map[string]any{"size": size, "query": query, "sort": verdictSort}
		if after != nil {
			req["search_after"] = after
		}
		body, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		hits, err := s.searchHits(ctx, b, &stats, s.verdictIndex(), body)
		if err != nil {
			return nil, fmt.Errorf("%s: verdicts: %w", s, err)
		}
		for _, h := range hits {
			var v lts.Verdict
			if err := json.Unmarshal(h.Source, &v); err != nil {
				return nil, fmt.Errorf("%s: verdict %s: %w", s, h.ID, err)
			}
			out = append(out, v)
			ids = append(ids, h.ID)
		}
		if len(hits) < size || (q.Limit > 0 && len(out) >= q.Limit) {
			break
		}
		if after = hits[len(hits)-1].Sort; len(after) == 0 {
			return nil, fmt.Errorf("%s: verdicts: the search answered no sort values to page on", s)
		}
	}
	if out == nil {
		out = []lts.Verdict{}
	}
	byID, err := s.triageOf(ctx, b, &stats, ids)
	if err != nil {
		return nil, err
	}
	var triaged []string
	for i := range out {
		if out[i].Triage = byID[ids[i]]; out[i].Triage != nil {
			triaged = append(triaged, ids[i])
		}
	}
	history, err := s.triageHistoryOf(ctx, b, &stats, triaged)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].TriageHistory = history[ids[i]]
		if out[i].Triage != nil && len(out[i].TriageHistory) == 0 {
			// Triaged before the store kept histories.
			out[i].TriageHistory = []lts.Triage{*out[i].Triage}
		}
	}
	return out, nil
}

// triageHistoryOf returns every triage of the verdicts ids, by id, oldest
// first, read verdictWindow ids and triages at a time.
func (s *store) triageHistoryOf(ctx context.Context, b *backoff, stats *lts.PutStats, ids []string) (map[string][]lts.Triage, error) {
	out := map[string][]lts.Triage{}
	for start := 0; start < len(ids); start += s.verdictWindow {
		chunk := ids[start:min(start+s.verdictWindow, len(ids))]
		var after []json.RawMessage
		for {
			req := map[string]any{"size": s.verdictWindow, "sort": historySort,
				"query": map[string]any{"bool": map[string]any{"filter": []any{map[string]any{"terms": map[string]any{"verdict_id": chunk}}}}}}
			if after != nil {
				req["search_after"] = after
			}
			body, err := json.Marshal(req)
			if err != nil {
				return nil, err
			}
			hits, err := s.searchHits(ctx, b, stats, s.triageHistoryIndex(), body)
			if err != nil {
				return nil, fmt.Errorf("%s: triage history: %w", s, err)
			}
			for _, h := range hits {
				var t historyTriage
				if err := json.Unmarshal(h.Source, &t); err != nil {
					return nil, fmt.Errorf("%s: triage history %s: %w", s, h.ID, err)
				}
				out[t.VerdictID] = append(out[t.VerdictID], t.Triage)
			}
			if len(hits) < s.verdictWindow {
				break
			}
			if after = hits[len(hits)-1].Sort; len(after) == 0 {
				return nil, fmt.Errorf("%s: triage history: the search answered no sort values to page on", s)
			}
		}
	}
	return out, nil
}

// triageOf returns the triage of the verdicts ids that have one, by id,
// read verdictWindow ids at a time.
func (s *store) triageOf(ctx context.Context, b *backoff, stats *lts.PutStats, ids []string) (map[string]*lts.Triage, error) {
	byID := map[string]*lts.Triage{}
	for start := 0; start < len(ids); start += s.verdictWindow {
		chunk := ids[start:min(start+s.verdictWindow, len(ids))]
		body, err := json.Marshal(map[string]any{"size": len(chunk), "query": map[string]any{"ids": map[string]any{"values": chunk}}})
		if err != nil {
			return nil, err
		}
		hits, err := s.searchHits(ctx, b, stats, s.triageIndex(), body)
		if err != nil {
			return nil, fmt.Errorf("%s: triage: %w", s, err)
		}
		for _, h := range hits {
			t := &lts.Triage{}
			if err := json.Unmarshal(h.Source, t); err != nil {
				return nil, fmt.Errorf("%s: triage %s: %w", s, h.ID, err)
			}
			byID[h.ID] = t
		}
	}
	return byID, nil
}

// PutTriage indexes the triage of a verdict the store holds: the next of
// its history, and its latest.
func (s *store) PutTriage(ctx context.Context, t lts.Triage) error {
	if err := t.Check(); err != nil {
		return err
	}
	vs, err := s.Verdicts(ctx, lts.VerdictQuery{ID: t.VerdictID})
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return fmt.Errorf("triage of %s in %s: %w", t.VerdictID, s, lts.ErrUnknownVerdict)
	}
	src, err := json.Marshal(t)
	if err != nil {
		return err
	}
	// The history first: a latest triage is always in it.
	sum := sha256.Sum256(src)
	id := fmt.Sprintf("%s-%020d-%x", t.VerdictID, t.Time.UnixNano(), sum[:6])
	hist, err := json.Marshal(historyTriage{Triage: t, ID: id})
	if err != nil {
		return err
	}
	if err := s.indexDocs(ctx, s.triageHistoryIndex(), []string{id}, [][]byte{hist}); err != nil {
		return err
	}
	return s.indexDocs(ctx, s.triageIndex(), []string{t.VerdictID}, [][]byte{src})
}
