package lts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/seshat-bench/seshat/models"
)

// DefaultStoreURL is the embedded store used when no --store is given.
const DefaultStoreURL = "sqlite:.seshat/lts.db"

// Store keeps LTS payloads and answers Queries. Every backend answers a
// query with the same runs in the same order, so history never depends on
// where it is kept. Backends register an Opener for their URL scheme
// (Register); Open opens a store from its URL.
type Store interface {
	// Put stores payloads, keyed by test_uuid: storing a payload again
	// replaces it (re-uploading is idempotent). The payloads must be valid
	// (strict validation) and carry distinct test_uuids. The stats count
	// what was stored even when Put fails: a store that keeps part of an
	// upload (OpenSearch) says which part.
	Put(ctx context.Context, payloads []*models.Payload) (PutStats, error)
	// Records yields the records of the runs matching q (Query says which
	// and in what order). An error is yielded once, last. This is what
	// history reads: backends answer it without reading settings or
	// results where they can.
	Records(ctx context.Context, q Query) iter.Seq2[Record, error]
	// Payloads yields the whole payloads of the same runs, in the same
	// order. A payload's Results is a *json.RawMessage, the stored JSON as
	// is (decoding it into a workload's types is left to the few callers
	// that need it).
	Payloads(ctx context.Context, q Query) iter.Seq2[*models.Payload, error]
	// Count counts the runs matching q.
	Count(ctx context.Context, q Query) (int64, error)
	// LabelNames returns the names of the labels that stored runs have,
	// sorted: what a Query's Labels can match, and the vocabulary of a
	// message naming a label no run has.
	LabelNames(ctx context.Context) ([]string, error)
	// String names the store for messages, without credentials.
	String() string
	Close() error
}

// ErrNoStore says that the store a URL names does not exist (nothing was
// ever uploaded there) and was not created, because StoreOptions.MustExist
// asked so. Readers decide: `seshat history` has no data (exit 3),
// regression analysis an empty history.
var ErrNoStore = errors.New("nothing was uploaded there")

// DecodeStored decodes a stored payload. Its results are kept as raw JSON:
// decoding them into generic values would cost most of a query's time.
// Without results they are skipped, not even copied.
func DecodeStored(data []byte, withoutResults bool) (*models.Payload, error) {
	if withoutResults {
		var head struct {
			Metadata models.Metadata            `json:"metadata"`
			KPIs     map[string]models.KPIValue `json:"kpis"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return nil, err
		}
		return &models.Payload{Metadata: head.Metadata, KPIs: head.KPIs}, nil
	}
	p := &models.Payload{Results: &json.RawMessage{}}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, err
	}
	return p, nil
}

// DecodeStoredResults decodes of a stored payload only its test_uuid,
// workload and results (Query.ResultsOnly), the results kept as raw JSON
// (BenchmarkDecodeStored, a pi payload: 67-78 µs whole, 45 µs its results
// only; the metadata's maps and the KPIs' times are not made).
func DecodeStoredResults(data []byte) (*models.Payload, error) {
	var doc struct {
		Metadata struct {
			TestUUID string `json:"test_uuid"`
			Workload string `json:"workload"`
		} `json:"metadata"`
		Results json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	p := &models.Payload{Metadata: models.Metadata{TestUUID: doc.Metadata.TestUUID, Workload: doc.Metadata.Workload}}
	if doc.Results != nil && string(doc.Results) != "null" {
		p.Results = &doc.Results
	}
	return p, nil
}

// PutStats says what a Put did.
type PutStats struct {
	// Payloads stored, of which Created were new and Replaced overwrote a
	// payload of the same test_uuid.
	Payloads, Created, Replaced int
	// KPIDocuments written to the KPI index, and StaleKPIDocuments deleted
	// from it: KPIs the re-uploaded runs no longer have (OpenSearch only).
	KPIDocuments, StaleKPIDocuments int
	// Requests sent to the server, and Retries: documents sent again after
	// a retryable failure (OpenSearch only).
	Requests, Retries int
}

// Add sums two stats (one per batch).
func (s PutStats) Add(o PutStats) PutStats {
	return PutStats{
		Payloads: s.Payloads + o.Payloads, Created: s.Created + o.Created, Replaced: s.Replaced + o.Replaced,
		KPIDocuments: s.KPIDocuments + o.KPIDocuments, StaleKPIDocuments: s.StaleKPIDocuments + o.StaleKPIDocuments, Requests: s.Requests + o.Requests, Retries: s.Retries + o.Retries,
	}
}

// StoreOptions configure Open. The zero value opens a store with the
// defaults. Each backend reads what concerns it: most are OpenSearch's.
type StoreOptions struct {
	// Index names the OpenSearch indices.
	Index IndexNames
	// Workloads are described in the index templates installed when
	// missing.
	Workloads []Workload
	// Username and Password authenticate to OpenSearch (basic auth);
	// PasswordFile names a file whose first line is the password instead.
	// They win over the credentials of the store URL (the OpenSearch
	// backend's basicAuth states the rule).
	Username     string
	Password     Secret
	PasswordFile string
	// CACertFile is a PEM file of certificate authorities trusted besides
	// the system's; InsecureSkipVerify turns TLS verification off.
	CACertFile         string
	InsecureSkipVerify bool
	// MaxBulkDocs and MaxBulkBytes bound one bulk request (defaults 1000
	// documents, 5 MiB).
	MaxBulkDocs, MaxBulkBytes int
	// Retry bounds the retries of failed requests and documents.
	Retry RetryPolicy
	// RequestTimeout bounds one HTTP request (default 1m), and so does the
	// retry budget left (RetryPolicy.Timeout); a request that takes longer
	// is abandoned and retried like a dropped connection.
	RequestTimeout time.Duration
	// PageSize is the number of runs read per query page (default 1000)
	// when the query does not say.
	PageSize int
	// MustExist refuses to create a store that does not exist: opening
	// it fails with an error wrapping ErrNoStore (exit status NoData).
	MustExist bool
	// CreateDirs creates the missing directories of a store file's path
	// (SQLite). Without it, a path in a directory that does not exist is
	// refused (exit status InvalidInput): a mistyped directory would
	// otherwise start a new, empty store.
	CreateDirs bool
	// Log receives retries and progress (debug); nil discards.
	Log *slog.Logger
	// Samples returns the per-iteration samples behind a KPI value of a
	// payload (the workload's, workloads.SampleProvider); nil when it has
	// none. A store keeps their summaries as it stores a payload
	// (SampleStatsOf), so that comparing builds on their samples (seshat
	// serve) reads the summaries, not the results. Nil: none kept.
	Samples func(p *models.Payload, kpi string) []float64
}

// RetryPolicy is exponential backoff with full jitter, bounded in time
// without progress: an operation (an upload, a query and its pages)
// retries until it has spent Timeout retrying since its last progress, the
// last wait cut to what is left, then gives up.
type RetryPolicy struct {
	// Initial is the first backoff (default 500ms); each retry doubles it
	// up to Max (default 30s), and a success starts again from Initial.
	Initial, Max time.Duration
	// Timeout bounds the time an operation spends retrying without
	// progress: its failed attempts and the waits between them (default
	// 2m). A request that succeeds, or a bulk request that stores some of
	// its documents, gives it back whole.
	Timeout time.Duration
	// Rand draws the jitter; nil uses a source seeded by the runtime.
	// Tests pass a seeded one.
	Rand *rand.Rand
}

// Defaults of StoreOptions.
const (
	DefaultMaxBulkDocs    = 1000
	DefaultMaxBulkBytes   = 5 << 20
	DefaultPageSize       = 1000
	DefaultRetryInitial   = 500 * time.Millisecond
	DefaultRetryMax       = 30 * time.Second
	DefaultRetryTimeout   = 2 * time.Minute
	DefaultRequestTimeout = time.Minute
)

// WithDefaults fills the options left zero with their defaults.
func (o StoreOptions) WithDefaults() StoreOptions {
	if o.MaxBulkDocs <= 0 {
		o.MaxBulkDocs = DefaultMaxBulkDocs
	}
	if o.MaxBulkBytes <= 0 {
		o.MaxBulkBytes = DefaultMaxBulkBytes
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.Retry.Initial <= 0 {
		o.Retry.Initial = DefaultRetryInitial
	}
	if o.Retry.Max <= 0 {
		o.Retry.Max = DefaultRetryMax
	}
	if o.Retry.Timeout <= 0 {
		o.Retry.Timeout = DefaultRetryTimeout
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// PutDescriber is the ability of a store to say what a Put did in its own
// terms (indices, requests, retries); DescribePut falls back on the counts
// of payloads.
type PutDescriber interface {
	// DescribePut says what a Put did, the store named name (its URL,
	// credentials redacted).
	DescribePut(name string, stats PutStats) string
}

// DescribePut is the line saying what a Put into s did.
func DescribePut(s Store, name string, stats PutStats) string {
	if d, ok := s.(PutDescriber); ok {
		return d.DescribePut(name, stats)
	}
	return fmt.Sprintf("stored %d payload(s) in %s: %d new, %d replaced", stats.Payloads, name, stats.Created, stats.Replaced)
}

// SampleStatsBackfiller is a store that can add the summaries of the
// per-iteration samples (Record.Samples) to the runs it stored before it
// kept them (a SQLite store written before schema 10, or without
// StoreOptions.Samples), so that comparing their builds on their samples
// need not read their results. SQLite has it.
type SampleStatsBackfiller interface {
	// BackfillSampleStats summarises, with the store's
	// StoreOptions.Samples, the samples of each stored run that has no
	// summaries, batch runs a transaction, and returns how many runs it
	// gave summaries (those without samples get an empty one, so that
	// they are not read again). Without StoreOptions.Samples it does
	// nothing. Idempotent: a second call finds nothing to do.
	BackfillSampleStats(ctx context.Context, batch int) (int, error)
}
