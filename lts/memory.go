package lts

import (
	"context"
	"iter"
	"maps"
	"slices"
	"sync"

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
}

// NewMemory returns a store named name (for messages) holding payloads.
func NewMemory(name string, payloads ...*models.Payload) *Memory {
	m := &Memory{name: name, payloads: map[string]*models.Payload{}}
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
			if !yield(RecordOf(p).Only(q.KPIs), nil) {
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
