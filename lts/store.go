package lts

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
)

// DefaultStoreURL is the embedded store used when no --store is given.
const DefaultStoreURL = "sqlite:.seshat/lts.db"

// Store keeps LTS payloads. Both backends (SQLite, OpenSearch) answer the
// same query with the same order, so history never depends on where it is.
type Store interface {
	// Put stores payloads, keyed by test_uuid: storing a payload again
	// replaces it (re-uploading is idempotent). The payloads must be valid
	// (strict validation) and carry distinct test_uuids.
	Put(ctx context.Context, payloads []*models.Payload) (PutStats, error)
	// Query yields the payloads matching q ordered by their time (the
	// run's start, the @timestamp of its KPIs) then test_uuid. It pages
	// internally and yields every match: there is no cap. An error is
	// yielded once, last. A payload's Results is a *json.RawMessage, the
	// stored JSON as is (decoding it into a workload's types is left to
	// the few callers that need it), or nil with q.WithoutResults.
	Query(ctx context.Context, q Query) iter.Seq2[*models.Payload, error]
	// Count counts the payloads matching q.
	Count(ctx context.Context, q Query) (int64, error)
	// String names the store for messages, without credentials.
	String() string
	Close() error
}

// decodeStored decodes a stored payload. Its results are kept as raw JSON:
// decoding them into generic values would cost most of a query's time.
// Without results they are skipped, not even copied.
func decodeStored(data []byte, withoutResults bool) (*models.Payload, error) {
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

// Query selects payloads by label values and time.
type Query struct {
	// Labels maps a label name to the values accepted for it: a payload
	// matches when every named label has one of its values.
	Labels map[string][]string
	// Since (inclusive) and Until (exclusive) bound the run's start; zero
	// means unbounded.
	Since, Until time.Time
	// WithoutResults yields payloads without their results (nil): all that
	// history and regression analysis read are metadata and KPIs, and the
	// results are most of a payload's bytes and of the time to read it.
	WithoutResults bool
}

// Check refuses queries no store could answer.
func (q Query) Check() error {
	for _, name := range sortedLabelNames(q.Labels) {
		if !models.IsSnakeCase(name) {
			return exitcode.Errorf(exitcode.InvalidInput, "label %q: not a label name (snake_case)", name)
		}
		if len(q.Labels[name]) == 0 {
			return exitcode.Errorf(exitcode.InvalidInput, "label %s: no value to match", name)
		}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return exitcode.Errorf(exitcode.InvalidInput, "until (%s) is not after since (%s)",
			q.Until.UTC().Format(time.RFC3339), q.Since.UTC().Format(time.RFC3339))
	}
	return nil
}

func sortedLabelNames(labels map[string][]string) []string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseLabelFilters reads the --filters syntax of label queries,
// "k=v1:v2,k2=v": every key must match one of its values. Label values are
// strings, compared exactly.
func ParseLabelFilters(s string) (map[string][]string, error) {
	out := map[string][]string{}
	s = strings.TrimSpace(s)
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, vals, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("filter %q: want label=value[:value...]", part)
		}
		if !models.IsSnakeCase(k) {
			return nil, fmt.Errorf("filter %q: %q is not a label name (snake_case)", part, k)
		}
		out[k] = append(out[k], strings.Split(vals, ":")...)
	}
	return out, nil
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
// defaults; only OpenSearch reads most of them.
type StoreOptions struct {
	// Index names the OpenSearch indices.
	Index IndexNames
	// Workloads are described in the index templates installed when
	// missing.
	Workloads []Workload
	// Username and Password authenticate to OpenSearch (basic auth).
	Username string
	Password Secret
	// CACertFile is a PEM file of certificate authorities trusted besides
	// the system's; InsecureSkipVerify turns TLS verification off.
	CACertFile         string
	InsecureSkipVerify bool
	// MaxBulkDocs and MaxBulkBytes bound one bulk request (defaults 1000
	// documents, 5 MiB).
	MaxBulkDocs, MaxBulkBytes int
	// Retry bounds the retries of failed requests and documents.
	Retry RetryPolicy
	// RequestTimeout bounds one HTTP request (default 1m); a request that
	// takes longer is abandoned and retried like a dropped connection.
	RequestTimeout time.Duration
	// PageSize is the number of payloads fetched per query page (default
	// 1000).
	PageSize int
	// MustExist refuses to create an embedded store that does not exist
	// (reading one is asking for data there is not: NoData).
	MustExist bool
	// Log receives retries and progress (debug); nil discards.
	Log *slog.Logger
}

// RetryPolicy is exponential backoff with full jitter, bounded in total
// time: an operation (an upload, a search) that has spent Timeout retrying
// gives up.
type RetryPolicy struct {
	// Initial is the first backoff (default 500ms); each retry doubles it
	// up to Max (default 30s), and a success starts again from Initial.
	Initial, Max time.Duration
	// Timeout bounds the time an operation spends retrying: its failed
	// attempts and the waits between them, not its successful requests
	// (default 2m).
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

func (o StoreOptions) withDefaults() StoreOptions {
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

// Open opens the store named by a URL: sqlite:PATH (the embedded store, its
// directories created) or http(s)://host:port (OpenSearch). An empty URL is
// DefaultStoreURL. A URL no store answers to is InvalidInput.
func Open(ctx context.Context, rawURL string, opts StoreOptions) (Store, error) {
	if rawURL == "" {
		rawURL = DefaultStoreURL
	}
	opts = opts.withDefaults()
	scheme, rest, _ := strings.Cut(rawURL, ":")
	switch strings.ToLower(scheme) {
	case "sqlite":
		if rest == "" {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: no path after sqlite:", rawURL)
		}
		return openSQLite(ctx, rest, opts)
	case "http", "https":
		u, err := url.Parse(rawURL)
		if err != nil || u.Host == "" {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: not an http(s)://host:port URL", Redact(rawURL))
		}
		return openOpenSearch(ctx, u, opts)
	}
	return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: unknown kind (want sqlite:PATH or http(s)://host:port)", Redact(rawURL))
}

// Redact removes a password from a URL for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		if i := strings.Index(rawURL, "@"); i >= 0 && strings.Contains(rawURL[:i], "://") {
			// Unparsable but with user info: drop all of it.
			scheme, _, _ := strings.Cut(rawURL, "://")
			return scheme + "://" + "<secret>@" + rawURL[i+1:]
		}
		return rawURL
	}
	return u.Redacted()
}
