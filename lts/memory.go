package lts

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/models"
)

// Memory is a Store in memory. It serves as the history of a file of
// payloads (`visualize --history FILE`), as the empty history of a store
// that does not exist yet, and as a store for tests. It answers queries as
// every store does.
type Memory struct {
	name     string
	mu       sync.RWMutex
	payloads map[string]*models.Payload
	verdicts map[string]Verdict
	triage   map[string][]Triage                    // every triage of a verdict, oldest first
	stats    map[string]map[string]analyze.RunStats // Record.Samples by test_uuid
	// Samples, when set, gives the samples whose summaries Put keeps
	// (StoreOptions.Samples).
	Samples func(p *models.Payload, kpi string) []float64
}

// NewMemory returns a store named name (for messages) holding payloads.
func NewMemory(name string, payloads ...*models.Payload) *Memory {
	m := &Memory{name: name, payloads: map[string]*models.Payload{}, verdicts: map[string]Verdict{}, triage: map[string][]Triage{},
		stats: map[string]map[string]analyze.RunStats{}}
	for _, p := range payloads {
		m.payloads[p.Metadata.TestUUID] = p
	}
	return m
}

// Put stores the payloads, replacing those of the same test_uuid.
func (m *Memory) Put(_ context.Context, payloads []*models.Payload) (PutStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var s PutStats
	for _, p := range payloads {
		if _, ok := m.payloads[p.Metadata.TestUUID]; ok {
			s.Replaced++
		} else {
			s.Created++
		}
		s.Payloads++
		m.payloads[p.Metadata.TestUUID] = p
		m.stats[p.Metadata.TestUUID] = SampleStatsOf(p, m.Samples)
	}
	return s, nil
}

// matches returns the payloads matching q, in query order.
func (m *Memory) matches(q Query) ([]*models.Payload, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	var out []*models.Payload
	for _, p := range m.payloads {
		if q.Match(p) {
			out = append(out, p)
		}
	}
	m.mu.RUnlock()
	InOrder(out)
	return out, nil
}

// Records yields the records of the matching payloads.
func (m *Memory) Records(ctx context.Context, q Query) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		ps, err := m.matches(q)
		if err != nil {
			yield(Record{}, err)
			return
		}
		for _, p := range ps {
			if err := ctx.Err(); err != nil {
				yield(Record{}, err)
				return
			}
			r := RecordOf(p).Only(q.KPIs)
			if q.SampleStats {
				m.mu.RLock()
				r.Samples = m.stats[p.Metadata.TestUUID]
				m.mu.RUnlock()
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Payloads yields the matching payloads as they were stored.
func (m *Memory) Payloads(ctx context.Context, q Query) iter.Seq2[*models.Payload, error] {
	return func(yield func(*models.Payload, error) bool) {
		ps, err := m.matches(q)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, p := range ps {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// Count counts the matching payloads.
func (m *Memory) Count(_ context.Context, q Query) (int64, error) {
	ps, err := m.matches(q)
	return int64(len(ps)), err
}

// LabelNames returns the label names of the stored payloads, sorted.
func (m *Memory) LabelNames(context.Context) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := map[string]bool{}
	for _, p := range m.payloads {
		for k := range p.Metadata.Labels {
			names[k] = true
		}
	}
	return slices.Sorted(maps.Keys(names)), nil
}

func (m *Memory) String() string { return m.name }

// Close does nothing.
func (m *Memory) Close() error { return nil }

// PutVerdicts stores verdicts, replacing those of the same ID.
func (m *Memory) PutVerdicts(_ context.Context, vs []Verdict) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.verdicts == nil {
		m.verdicts, m.triage = map[string]Verdict{}, map[string][]Triage{}
	}
	for _, v := range vs {
		v.Triage, v.TriageHistory = nil, nil
		m.verdicts[v.ID] = v
	}
	return nil
}

// Verdicts returns the matching verdicts, newest first, with their triage.
func (m *Memory) Verdicts(_ context.Context, q VerdictQuery) ([]Verdict, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []Verdict
	for _, v := range m.verdicts {
		if q.Match(&v) {
			if ts := m.triage[v.ID]; len(ts) > 0 {
				latest := ts[len(ts)-1]
				v.Triage, v.TriageHistory = &latest, slices.Clone(ts)
			}
			out = append(out, v)
		}
	}
	SortVerdicts(out)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// PutTriage stores the triage of a verdict the store holds, after those it
// had.
func (m *Memory) PutTriage(_ context.Context, t Triage) error {
	if err := t.Check(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.verdicts[t.VerdictID]; !ok {
		return fmt.Errorf("triage of %s in %s: %w", t.VerdictID, m.name, ErrUnknownVerdict)
	}
	m.triage[t.VerdictID] = append(m.triage[t.VerdictID], t)
	return nil
}
