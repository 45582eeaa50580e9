package opensearch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	osclient "github.com/opensearch-project/opensearch-go/v2"
	"github.com/opensearch-project/opensearch-go/v2/opensearchapi"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/redact"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

type store struct {
	client    *osclient.Client
	transport *http.Transport
	addr      string // the URL without credentials, for messages
	names     lts.IndexNames
	opts      lts.StoreOptions
	rand      *rand.Rand
	// templatesReady is set once both index templates are known to exist.
	templatesReady bool
	// retryNotice says once that the store is being retried.
	retryNotice sync.Once
	// bulkBytes bounds the body of a bulk request: opts.MaxBulkBytes, or
	// less once the server refused a request as too large (413): the size
	// that worked is kept for the store's later requests.
	bulkBytes int
	// splitNotice says once that bulk requests are split.
	splitNotice sync.Once
	// verdictWindow is the most verdicts one search asks for
	// (defaultVerdictWindow; less in tests, to page through few).
	verdictWindow int
}

func init() {
	lts.Register("http", "http(s)://host:port", open)
	lts.Register("https", "http(s)://host:port", open)
}

// open prepares a client of the OpenSearch at rawURL; nothing is sent
// until the first call. The credentials come from opts and the URL as
// basicAuth says, and are never shown.
func open(_ context.Context, rawURL string, opts lts.StoreOptions) (lts.Store, error) {
	// Checked first: such a URL parses, with another host than meant and
	// part of the password in its path.
	if err := redact.CheckUserinfo(rawURL); err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: %w", redact.URL(rawURL), err)
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: not an http(s)://host:port URL", redact.URL(rawURL))
	}
	src := credentialSources{URL: u.User, Username: opts.Username, Password: opts.Password}
	if opts.PasswordFile != "" {
		if src.FilePassword, err = readPasswordFile(opts.PasswordFile); err != nil {
			return nil, err
		}
	}
	if opts.Username, opts.Password, err = basicAuth(src); err != nil {
		return nil, err
	}
	u.User = nil
	if u.Scheme == "http" && (opts.CACertFile != "" || opts.InsecureSkipVerify) {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store %s: TLS options given for a plain http:// URL", u)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: opts.InsecureSkipVerify} //nolint:gosec // explicit --insecure-skip-verify only
	if opts.CACertFile != "" {
		pem, err := os.ReadFile(opts.CACertFile)
		if err != nil {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "--ca-cert: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "--ca-cert %s: no PEM certificate in the file", opts.CACertFile)
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	client, err := osclient.NewClient(osclient.Config{
		Addresses: []string{u.String()},
		Username:  opts.Username,
		Password:  opts.Password.Reveal(),
		Transport: tr,
		// Retries are ours: the client's would re-send a whole bulk
		// request, sleep without watching the context and know no total
		// time bound.
		DisableRetry: true,
	})
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", u, err)
	}
	r := opts.Retry.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return &store{client: client, transport: tr, addr: u.String(), names: opts.Index, opts: opts, rand: r, bulkBytes: opts.MaxBulkBytes,
		verdictWindow: defaultVerdictWindow}, nil
}

func (s *store) String() string { return s.addr }

// Close releases idle connections.
func (s *store) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// ---- requests and retries

// response is a read OpenSearch answer.
type response struct {
	status int
	body   []byte
	header http.Header
}

// requestError is a failed request: retryable (429, 502, 503, 504, a
// dropped or refused connection, a timeout) or not.
type requestError struct {
	op        string
	status    int // 0: no HTTP answer
	err       error
	retryable bool
	after     time.Duration // Retry-After, when the server said
}

func (e *requestError) Error() string {
	if e.status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %v", e.op, e.status, e.err)
	}
	return fmt.Sprintf("%s: %v", e.op, e.err)
}

func (e *requestError) Unwrap() error { return e.err }

// cause says briefly why the request failed, for the retry notice: the
// status and OpenSearch's reason, or what happened to the connection.
func (e *requestError) cause() string {
	if e.status != 0 {
		return fmt.Sprintf("HTTP %d: %v", e.status, e.err)
	}
	var sys *os.SyscallError
	var dns *net.DNSError
	switch {
	case errors.As(e.err, &sys) && errors.Is(sys.Err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(e.err, &sys) && errors.Is(sys.Err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(e.err, &dns):
		return dns.Error()
	case errors.Is(e.err, context.DeadlineExceeded):
		return "no answer in time"
	case errors.Is(e.err, io.EOF), errors.Is(e.err, io.ErrUnexpectedEOF):
		return "connection closed without an answer"
	}
	return e.Error()
}

// retryableStatus tells the answers worth sending again: OpenSearch's
// overload (429: rejected execution, circuit breakers), unavailability
// (503), and a proxy's 502 and 504. Not 500: OpenSearch answers it for
// errors it does not classify, which a retry does not cure (docs/stores.md
// says why at length).
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// send performs one request, within the time b allows it, and reads its
// answer; HTTP errors (status >= 300, except the ones ok lists) become a
// *requestError.
func (s *store) send(ctx context.Context, b *backoff, stats *lts.PutStats, op string, req opensearchapi.Request, ok ...int) (*response, error) {
	timeout := b.requestTimeout()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stats.Requests++
	res, err := req.Do(rctx, s.client)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if timeout < s.opts.RequestTimeout && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer in the %s left of the retry budget: %w", timeout.Round(time.Millisecond), err)
		}
		return nil, classifyTransportError(op, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &requestError{op: op, err: fmt.Errorf("reading the answer: %w", err), retryable: true}
	}
	r := &response{status: res.StatusCode, body: body, header: res.Header}
	if res.StatusCode < 300 {
		return r, nil
	}
	for _, code := range ok {
		if res.StatusCode == code {
			return r, nil
		}
	}
	reason := errorReason(body)
	if reason == "" || strings.HasPrefix(reason, "<") { // none, or a proxy's HTML page
		reason = http.StatusText(res.StatusCode)
	}
	e := &requestError{op: op, status: res.StatusCode, err: errors.New(reason), retryable: retryableStatus(res.StatusCode)}
	if secs, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && secs > 0 {
		e.after = time.Duration(secs) * time.Second
	}
	switch res.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.err = fmt.Errorf("%w (check SESHAT_OPENSEARCH_USERNAME and SESHAT_OPENSEARCH_PASSWORD or --password-file, and the credentials of the store URL)", e.err)
	}
	return r, e
}

// classifyTransportError tells certificate problems (permanent, with a
// hint) from connection failures (retried).
func classifyTransportError(op string, err error) error {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknownCA), errors.As(err, &verify):
		return &requestError{op: op, err: fmt.Errorf("TLS: %w (give the server's CA with --ca-cert FILE, or --insecure-skip-verify to not verify)", err)}
	case errors.As(err, &hostname), errors.As(err, &invalid):
		return &requestError{op: op, err: fmt.Errorf("TLS: %w", err)}
	}
	return &requestError{op: op, err: err, retryable: true}
}

// errorReason extracts OpenSearch's error type and reason from an error
// answer, else a short prefix of the body.
func errorReason(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var detail struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(e.Error, &detail) == nil && detail.Type != "" {
			return detail.Type + ": " + detail.Reason
		}
		var text string
		if json.Unmarshal(e.Error, &text) == nil {
			return text
		}
	}
	text := strings.TrimSpace(string(body))
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "..."
	}
	return text
}

// backoff is the retry schedule of one operation (an upload, a search
// and its pages): exponential backoff with full jitter, and a budget of
// time spent without progress — failed attempts and the waits between
// them. Progress (a request that succeeds, a bulk request that settles
// some of its documents) gives the budget back whole: it bounds how long
// an operation may be stuck, not how long it may take, so an upload of any
// size with a steady trickle of refused documents is not cut short, and
// the time of a slow bulk request that stored most of its documents is not
// retrying. The whole budget is used: a wait longer than what is left is
// cut to it, and one last attempt follows; once an attempt fails with
// nothing left, no retry starts. No request outlives the budget left
// (requestTimeout).
type backoff struct {
	s       *store
	attempt int           // retries since the last success: the exponent
	retries int           // retries since the last progress, for messages
	spent   time.Duration // retrying since the last progress
	answer  string        // the last failure the server answered, since then
}

func (s *store) newBackoff() *backoff { return &backoff{s: s} }

// progressed gives the budget back after a request that settled some of
// its documents; the backoff keeps growing while others are refused.
func (b *backoff) progressed() { b.spent, b.retries, b.answer = 0, 0, "" }

// succeeded gives the budget back and restarts the exponential growth
// after a request that fully succeeded.
func (b *backoff) succeeded() {
	b.progressed()
	b.attempt = 0
}

// left is what is left of the budget.
func (b *backoff) left() time.Duration { return b.s.opts.Retry.Timeout - b.spent }

// requestTimeout bounds the next request: the request timeout, cut to the
// budget left, so that a server that never answers is given up on when
// the budget runs out, not a request timeout later. The one last attempt
// after a wait cut to the budget has the request timeout: an operation
// gives up at most one request timeout after its budget.
func (b *backoff) requestTimeout() time.Duration {
	if left := b.left(); left > 0 {
		return min(b.s.opts.RequestTimeout, left)
	}
	return b.s.opts.RequestTimeout
}

// wait counts a failed attempt that took failed, sleeps before the next
// one and reports whether to make it: false when the budget is spent, or
// the context is done. The wait is the jittered backoff, at least atLeast
// (Retry-After), at most what is left of the budget. cause says why the
// attempt failed, for the store's retry notice.
func (b *backoff) wait(ctx context.Context, failed, atLeast time.Duration, cause string) bool {
	b.spent += failed
	left := b.left()
	if left <= 0 {
		return false
	}
	ceiling := b.s.opts.Retry.Initial << min(b.attempt, 30)
	if ceiling > b.s.opts.Retry.Max || ceiling <= 0 {
		ceiling = b.s.opts.Retry.Max
	}
	d := time.Duration(b.s.rand.Int64N(int64(ceiling) + 1))
	d = min(max(d, atLeast), left)
	b.s.noticeRetry(cause)
	b.attempt++
	b.retries++
	b.spent += d
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// noticeRetry says, once per store, that its server is being retried: a
// dead server would otherwise keep a command silent for the whole budget.
// It goes to the log at info level, with the status lines (-q silences
// both).
func (s *store) noticeRetry(cause string) {
	s.retryNotice.Do(func() {
		s.opts.Log.Info(fmt.Sprintf("opensearch: %s: %s; retrying for up to %s (--retry-timeout)", s.addr, cause, s.opts.Retry.Timeout))
	})
}

// gaveUp says how much retrying was done before giving up after a failure
// for reason, and what the server last answered when that was not it (the
// last attempt got no answer in the budget left).
func (b *backoff) gaveUp(reason string) string {
	text := fmt.Sprintf("gave up after %d retries in %s without progress", b.retries, b.spent.Round(time.Millisecond))
	if b.answer != "" && b.answer != reason {
		text += "; the last answer: " + b.answer
	}
	return text
}

// do sends a request, retrying retryable failures on b's schedule (that
// of the operation the request is part of). build rebuilds the request
// (its body is consumed by each attempt).
func (s *store) do(ctx context.Context, b *backoff, stats *lts.PutStats, op string, build func() opensearchapi.Request, ok ...int) (*response, error) {
	for {
		start := time.Now()
		r, err := s.send(ctx, b, stats, op, build(), ok...)
		var re *requestError
		if err == nil {
			b.succeeded()
		}
		if err == nil || !errors.As(err, &re) || !re.retryable {
			return r, err
		}
		if re.status != 0 {
			b.answer = re.Error()
		}
		s.opts.Log.Debug("retrying", "request", op, "reason", re.Error(), "retry", b.retries+1)
		if !b.wait(ctx, time.Since(start), re.after, re.cause()) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w (%s)", err, b.gaveUp(re.Error()))
		}
	}
}

// ---- templates

// ensureTemplates installs the index templates of both indices when the
// cluster lacks them; existing ones are left alone (an operator may have
// tuned them).
func (s *store) ensureTemplates(ctx context.Context, b *backoff, stats *lts.PutStats) error {
	if s.templatesReady {
		return nil
	}
	tpls := lts.IndexTemplates(s.names, s.opts.Workloads)
	names := make([]string, 0, len(tpls))
	for n := range tpls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.installTemplate(ctx, b, stats, name, tpls[name]); err != nil {
			return err
		}
	}
	s.templatesReady = true
	return nil
}

// installTemplate installs the index template name unless it exists.
func (s *store) installTemplate(ctx context.Context, b *backoff, stats *lts.PutStats, name string, tpl any) error {
	r, err := s.do(ctx, b, stats, "index template "+name, func() opensearchapi.Request {
		return opensearchapi.IndicesExistsIndexTemplateRequest{Name: name}
	}, http.StatusNotFound)
	if err != nil {
		return err
	}
	if r.status != http.StatusNotFound {
		return nil
	}
	body, err := json.Marshal(tpl)
	if err != nil {
		return err
	}
	if _, err := s.do(ctx, b, stats, "install index template "+name, func() opensearchapi.Request {
		return opensearchapi.IndicesPutIndexTemplateRequest{Name: name, Body: bytes.NewReader(body)}
	}); err != nil {
		return err
	}
	s.opts.Log.Debug("installed index template", "name", name)
	return nil
}

// ---- bulk upload

// bulkDoc is one document to index: its action line and source, framed as
// the bulk API wants them (each followed by a newline).
type bulkDoc struct {
	index, id string
	payload   bool // a payload (else a KPI document)
	delete    bool // a delete (of a stale KPI document)
	lines     []byte
}

func newBulkDoc(index, id string, payload bool, source []byte) (bulkDoc, error) {
	action, err := json.Marshal(map[string]any{"index": map[string]string{"_index": index, "_id": id}})
	if err != nil {
		return bulkDoc{}, err
	}
	lines := make([]byte, 0, len(action)+len(source)+2)
	lines = append(append(append(append(lines, action...), '\n'), source...), '\n')
	return bulkDoc{index: index, id: id, payload: payload, lines: lines}, nil
}

// newDeleteDoc is a bulk delete of one document.
func newDeleteDoc(index, id string) (bulkDoc, error) {
	action, err := json.Marshal(map[string]any{"delete": map[string]string{"_index": index, "_id": id}})
	if err != nil {
		return bulkDoc{}, err
	}
	return bulkDoc{index: index, id: id, delete: true, lines: append(action, '\n')}, nil
}

// failedDoc is a document OpenSearch did not store, and why.
type failedDoc struct {
	doc    bulkDoc
	reason string
}

// notSent is the reason of the documents left when an upload stops.
const notSent = "not sent: the upload stopped at the failure above"

// UploadError says how many documents an upload could not store and why,
// by reason. It is a failure (exit status 1).
type UploadError struct {
	Store  string
	Failed int
	Total  int
	// Reasons counts the failed documents by reason, and Examples names
	// one document per reason where one document failed for it (none for
	// the documents an upload never sent).
	Reasons  map[string]int
	Examples map[string]string
	// Err is the failure that stopped the upload (retrying given up, a
	// refused request, a cancelled context), nil when only some documents
	// were refused.
	Err error
}

func (e *UploadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d documents not stored:", e.Store, e.Failed, e.Total)
	reasons := make([]string, 0, len(e.Reasons))
	for r := range e.Reasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if (reasons[i] == notSent) != (reasons[j] == notSent) {
			return reasons[j] == notSent
		}
		if e.Reasons[reasons[i]] != e.Reasons[reasons[j]] {
			return e.Reasons[reasons[i]] > e.Reasons[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		if ex, ok := e.Examples[r]; ok {
			fmt.Fprintf(&b, "\n  %d: %s (e.g. %s)", e.Reasons[r], r, ex)
			continue
		}
		fmt.Fprintf(&b, "\n  %d: %s", e.Reasons[r], r)
	}
	return b.String()
}

// Unwrap gives the failure that stopped the upload, when one did.
func (e *UploadError) Unwrap() error { return e.Err }

// Put indexes the payloads into the payload index and their KPI documents
// into the KPI index, in bulk requests bounded by count and bytes. Failed
// documents are re-sent alone when the failure is retryable; the ones left
// when retrying is over make an *UploadError. Once every document is
// stored, the KPI documents the runs no longer have are removed; when that
// fails, the error says so, and that the upload itself is stored. Both
// indices are refreshed at the end, so a query right after sees what was
// stored, and the stats always count it.
func (s *store) Put(ctx context.Context, payloads []*models.Payload) (lts.PutStats, error) {
	var stats lts.PutStats
	if len(payloads) == 0 {
		return stats, nil
	}
	docs := make([]bulkDoc, 0, len(payloads)*6)
	for _, p := range payloads {
		src, err := json.Marshal(p)
		if err == nil {
			src, err = withSampleStats(src, lts.SampleStatsOf(p, s.opts.Samples))
		}
		if err != nil {
			return stats, fmt.Errorf("payload %s: %w", p.Metadata.TestUUID, err)
		}
		d, err := newBulkDoc(s.names.Payloads(), p.Metadata.TestUUID, true, src)
		if err != nil {
			return stats, err
		}
		docs = append(docs, d)
		for _, k := range p.KPIDocuments() {
			src, err := json.Marshal(k)
			if err != nil {
				return stats, fmt.Errorf("KPI document %s: %w", k.ID(), err)
			}
			d, err := newBulkDoc(s.names.KPIs(), k.ID(), false, src)
			if err != nil {
				return stats, err
			}
			docs = append(docs, d)
		}
	}
	b := s.newBackoff()
	if err := s.ensureTemplates(ctx, b, &stats); err != nil {
		// No document can be sent: say so, as for a failed bulk request.
		reason := "not sent: " + err.Error()
		return stats, &UploadError{Store: s.addr, Failed: len(docs), Total: len(docs),
			Reasons: map[string]int{reason: len(docs)}, Examples: map[string]string{}, Err: err}
	}
	var failed []failedDoc
	var stopped error
	pending := docs
	for len(pending) > 0 {
		n := s.batchLen(pending)
		batch := pending[:n]
		pending = pending[n:]
		lost, err := s.sendBatch(ctx, &stats, b, batch)
		failed = append(failed, lost...)
		if err != nil {
			stopped = err
			// Retrying is over or the request cannot succeed: the rest
			// would fail the same way.
			for _, d := range pending {
				failed = append(failed, failedDoc{doc: d, reason: notSent})
			}
			break
		}
	}
	var cleanup error
	if len(failed) == 0 {
		if err := s.removeStaleKPIs(ctx, &stats, b, payloads); err != nil {
			cleanup = fmt.Errorf("%s: the payloads and their KPI documents are stored, but removing the KPI documents "+
				"the runs no longer have failed (the next upload of these runs removes them): %w", s, err)
		}
	}
	// An upload that gave up on the server has spent its budget: no more
	// requests.
	gaveUp := stopped != nil && b.left() <= 0
	if len(failed) < len(docs) && !gaveUp {
		// Make the upload visible to the next query (history, regression).
		_, err := s.do(ctx, b, &stats, "refresh", func() opensearchapi.Request {
			t := true
			return opensearchapi.IndicesRefreshRequest{Index: []string{s.names.Payloads(), s.names.KPIs()}, IgnoreUnavailable: &t}
		})
		if err != nil {
			s.opts.Log.Warn("refreshing the indices failed: the upload becomes visible at the next automatic refresh", "error", err)
		}
	}
	if len(failed) > 0 {
		ue := &UploadError{Store: s.addr, Failed: len(failed), Total: len(docs), Reasons: map[string]int{}, Examples: map[string]string{}, Err: stopped}
		for _, f := range failed {
			ue.Reasons[f.reason]++
			if _, ok := ue.Examples[f.reason]; !ok && f.reason != notSent {
				ue.Examples[f.reason] = f.doc.index + "/" + f.doc.id
			}
		}
		return stats, ue
	}
	return stats, cleanup
}

// batchLen is how many of docs go into the next bulk request: at most
// MaxBulkDocs and bulkBytes (at least one, however large).
func (s *store) batchLen(docs []bulkDoc) int {
	size := 0
	for i, d := range docs {
		if i == s.opts.MaxBulkDocs || (i > 0 && size+len(d.lines) > s.bulkBytes) {
			return i
		}
		size += len(d.lines)
	}
	return len(docs)
}

// bulkAnswer is the part of a bulk response we read.
type bulkAnswer struct {
	Errors bool `json:"errors"`
	Items  []map[string]struct {
		Index  string `json:"_index"`
		ID     string `json:"_id"`
		Status int    `json:"status"`
		Result string `json:"result"`
		Error  *struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"error"`
	} `json:"items"`
}

// sendBatch sends one bulk request and re-sends its retryable failures
// (only those) until they are stored or b's budget is spent; a request the
// server finds too large is split (splitBatch). It returns the documents
// not stored, and an error when the upload cannot go on.
func (s *store) sendBatch(ctx context.Context, stats *lts.PutStats, b *backoff, batch []bulkDoc) ([]failedDoc, error) {
	var failed []failedDoc
	first := true
	for len(batch) > 0 {
		if !first {
			stats.Retries += len(batch)
		}
		first = false
		var body bytes.Buffer
		for _, d := range batch {
			body.Write(d.lines)
		}
		size := body.Len()
		start := time.Now()
		r, err := s.send(ctx, b, stats, "bulk", opensearchapi.BulkRequest{Body: &body})
		var retry []bulkDoc
		var after time.Duration
		var reason, cause string
		answered := err == nil // the server said why, for messages
		if err != nil {
			var re *requestError
			if errors.As(err, &re) && re.status == http.StatusRequestEntityTooLarge {
				lost, err := s.splitBatch(ctx, stats, b, batch, size, re)
				return append(failed, lost...), err
			}
			if !errors.As(err, &re) || !re.retryable {
				return append(failed, failAll(batch, err.Error())...), err
			}
			retry, after, reason, cause = batch, re.after, re.Error(), re.cause()
			answered = re.status != 0
		} else {
			var ans bulkAnswer
			if err := json.Unmarshal(r.body, &ans); err != nil || len(ans.Items) != len(batch) {
				// Unreadable: we cannot know what was stored. Sending
				// again is safe, documents are keyed by id.
				retry, reason = batch, fmt.Sprintf("bulk: unreadable answer (%d items for %d documents)", len(ans.Items), len(batch))
				cause = reason
			} else {
				for i, item := range ans.Items {
					for _, res := range item { // one action per item
						switch {
						case res.Status < 300, batch[i].delete && res.Status == http.StatusNotFound:
							s.countStored(stats, batch[i], res.Result)
						case retryableStatus(res.Status):
							retry = append(retry, batch[i])
							reason = itemReason(res.Status, res.Error)
						default:
							failed = append(failed, failedDoc{doc: batch[i], reason: itemReason(res.Status, res.Error)})
						}
					}
				}
				if len(retry) > 0 {
					cause = fmt.Sprintf("%d of %d document(s) refused: %s", len(retry), len(batch), reason)
				}
				if len(retry) > 0 && r.header.Get("Retry-After") != "" {
					if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err == nil {
						after = time.Duration(secs) * time.Second
					}
				}
			}
		}
		if len(retry) == 0 {
			b.succeeded()
			return failed, nil
		}
		took := time.Since(start)
		if len(retry) < len(batch) {
			// Some documents are settled: progress, not retrying.
			b.progressed()
			took = 0
		}
		if answered {
			b.answer = reason
		}
		s.opts.Log.Debug("retrying documents", "documents", len(retry), "reason", reason, "retry", b.retries+1)
		if !b.wait(ctx, took, after, cause) {
			if ctx.Err() != nil {
				return append(failed, failAll(retry, ctx.Err().Error())...), ctx.Err()
			}
			err := fmt.Errorf("%s (%s)", reason, b.gaveUp(reason))
			return append(failed, failAll(retry, err.Error())...), err
		}
		batch = retry
	}
	return failed, nil
}

// splitBatch sends batch again in smaller bulk requests: the server refused
// its request of size bytes as too large (413: OpenSearch's
// http.max_content_length, or a proxy's limit on bodies). The store keeps
// the smaller bound (half the refused size) for its later requests. A
// document too large on its own is lost, saying so; the others go on.
func (s *store) splitBatch(ctx context.Context, stats *lts.PutStats, b *backoff, batch []bulkDoc, size int, re *requestError) ([]failedDoc, error) {
	if len(batch) == 1 {
		return failAll(batch, re.Error()+": the document alone is larger than the server takes"), nil
	}
	if bound := max(size/2, 1); bound < s.bulkBytes {
		s.bulkBytes = bound
		s.splitNotice.Do(func() {
			s.opts.Log.Info(fmt.Sprintf("opensearch: %s: a bulk request of %d bytes refused as too large (HTTP 413): sending at most %d bytes per request from now on (--bulk-bytes sets the bound)",
				s.addr, size, bound))
		})
		s.opts.Log.Debug("splitting a bulk request refused as too large", "bytes", size, "bound", bound)
	}
	var failed []failedDoc
	for len(batch) > 0 {
		n := s.batchLen(batch)
		lost, err := s.sendBatch(ctx, stats, b, batch[:n])
		failed = append(failed, lost...)
		batch = batch[n:]
		if err != nil {
			return append(failed, failAll(batch, notSent)...), err
		}
	}
	return failed, nil
}

func failAll(docs []bulkDoc, reason string) []failedDoc {
	out := make([]failedDoc, len(docs))
	for i, d := range docs {
		out[i] = failedDoc{doc: d, reason: reason}
	}
	return out
}

func itemReason(status int, e *struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}) string {
	if e == nil {
		return fmt.Sprintf("HTTP %d", status)
	}
	return fmt.Sprintf("HTTP %d: %s: %s", status, e.Type, e.Reason)
}

func (s *store) countStored(stats *lts.PutStats, d bulkDoc, result string) {
	if d.delete {
		if result == "deleted" {
			stats.StaleKPIDocuments++
		}
		return
	}
	if !d.payload {
		stats.KPIDocuments++
		return
	}
	stats.Payloads++
	if result == "updated" {
		stats.Replaced++
	} else {
		stats.Created++
	}
}

// staleChunk is how many runs one search for stale KPI documents covers;
// staleWindow is the most hits one search returns (OpenSearch's default
// index.max_result_window).
const (
	staleChunk  = 500
	staleWindow = 10000
)

// removeStaleKPIs deletes the KPI documents of the uploaded runs that their
// payloads no longer have (a KPI a newer kpi_settings_version dropped, a run
// that failed when run again): dashboards read the KPI index and would go
// on showing them. One search per staleChunk runs finds them: the documents
// of the runs' test_uuids whose ids are not among those just written. A
// fresh upload finds none. The search neither sorts nor relies on the
// mapping of the index template: an operator's own template may map
// test_uuid as text (with a .keyword sub-field), which cannot be sorted on.
func (s *store) removeStaleKPIs(ctx context.Context, stats *lts.PutStats, b *backoff, payloads []*models.Payload) error {
	for start := 0; start < len(payloads); start += staleChunk {
		chunk := payloads[start:min(start+staleChunk, len(payloads))]
		uuids := make([]string, 0, len(chunk))
		current := []string{}
		for _, p := range chunk {
			uuids = append(uuids, p.Metadata.TestUUID)
			for _, k := range p.KPIDocuments() {
				current = append(current, k.ID())
			}
		}
		body, err := json.Marshal(map[string]any{
			"size": staleWindow, "_source": false,
			"query": map[string]any{"bool": map[string]any{
				"filter": []any{map[string]any{"bool": map[string]any{
					"should": []any{
						map[string]any{"terms": map[string]any{"test_uuid": uuids}},
						map[string]any{"terms": map[string]any{"test_uuid.keyword": uuids}},
					},
					"minimum_should_match": 1,
				}}},
				"must_not": []any{map[string]any{"ids": map[string]any{"values": current}}},
			}},
		})
		if err != nil {
			return err
		}
		for {
			stale, err := s.searchIDs(ctx, b, stats, s.names.KPIs(), body)
			if err != nil {
				return err
			}
			if err := s.deleteDocs(ctx, stats, b, s.names.KPIs(), stale); err != nil {
				return err
			}
			if len(stale) < staleWindow {
				break
			}
			// More than one window: make the deletions visible, search again.
			if _, err := s.do(ctx, b, stats, "refresh", func() opensearchapi.Request {
				return opensearchapi.IndicesRefreshRequest{Index: []string{s.names.KPIs()}}
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteDocs deletes documents of index by id, in bulk requests.
func (s *store) deleteDocs(ctx context.Context, stats *lts.PutStats, b *backoff, index string, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), s.opts.MaxBulkDocs)
		batch := make([]bulkDoc, 0, n)
		for _, id := range ids[:n] {
			d, err := newDeleteDoc(index, id)
			if err != nil {
				return err
			}
			batch = append(batch, d)
		}
		ids = ids[n:]
		failed, err := s.sendBatch(ctx, stats, b, batch)
		if err == nil && len(failed) > 0 {
			err = fmt.Errorf("%s: %s", failed[0].doc.id, failed[0].reason)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// searchIDs returns the ids of the hits of one search of index (an index
// that does not exist has none).
func (s *store) searchIDs(ctx context.Context, b *backoff, stats *lts.PutStats, index string, body []byte) ([]string, error) {
	hits, err := s.searchHits(ctx, b, stats, index, body)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, err
}

// hit is a search hit: its id, source, and sort values (the cursor of
// the next page, search_after).
type hit struct {
	ID     string            `json:"_id"`
	Source json.RawMessage   `json:"_source"`
	Sort   []json.RawMessage `json:"sort"`
}

// searchHits returns the hits of one search of index (an index that does
// not exist has none).
func (s *store) searchHits(ctx context.Context, b *backoff, stats *lts.PutStats, index string, body []byte) ([]hit, error) {
	r, err := s.do(ctx, b, stats, "search", func() opensearchapi.Request {
		return opensearchapi.SearchRequest{Index: []string{index}, Body: bytes.NewReader(body)}
	}, http.StatusNotFound)
	if err != nil {
		return nil, err
	}
	if indexMissing(r) {
		return nil, nil
	}
	if r.status == http.StatusNotFound {
		return nil, fmt.Errorf("search: HTTP 404: %s", errorReason(r.body))
	}
	var ans struct {
		Hits *struct {
			Hits []hit `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(r.body, &ans); err != nil || ans.Hits == nil {
		return nil, fmt.Errorf("search: unreadable answer: %s", errorReason(r.body))
	}
	return ans.Hits.Hits, nil
}

// ---- queries

// searchSort orders payloads by time then test_uuid: the tie-breaker makes
// search_after paging exact.
var searchSort = []any{
	map[string]any{"metadata.start": map[string]any{"order": "asc"}},
	map[string]any{"metadata.test_uuid": map[string]any{"order": "asc"}},
}

// openSearchTime formats a query bound; OpenSearch dates have millisecond
// resolution.
func openSearchTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func searchQuery(q lts.Query) map[string]any {
	var filters []any
	for _, name := range q.Labels.Names() {
		filters = append(filters, map[string]any{"terms": map[string]any{"metadata.labels." + name: q.Labels[name]}})
	}
	if q.Workload != "" {
		filters = append(filters, map[string]any{"terms": map[string]any{"metadata.workload": []string{q.Workload}}})
	}
	if len(q.Builds) > 0 {
		filters = append(filters, map[string]any{"terms": map[string]any{"metadata.build.id": q.Builds}})
	}
	if len(q.Commits) > 0 {
		var prefixes []any
		for _, c := range q.Commits {
			prefixes = append(prefixes, map[string]any{"prefix": map[string]any{"metadata.build.commit": c}})
		}
		filters = append(filters, map[string]any{"bool": map[string]any{"should": prefixes, "minimum_should_match": 1}})
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		r := map[string]any{}
		if !q.Since.IsZero() {
			r["gte"] = openSearchTime(q.Since)
		}
		if !q.Until.IsZero() {
			// Stored starts have milliseconds: an exclusive bound inside a
			// millisecond is its end, or a run that started in that
			// millisecond before the bound would be left out.
			until := q.Until.Truncate(time.Millisecond)
			if until.Before(q.Until) {
				until = until.Add(time.Millisecond)
			}
			r["lt"] = openSearchTime(until)
		}
		filters = append(filters, map[string]any{"range": map[string]any{"metadata.start": r}})
	}
	if len(filters) == 0 {
		return map[string]any{"match_all": map[string]any{}}
	}
	return map[string]any{"bool": map[string]any{"filter": filters}}
}

// indexMissing reports an answer saying the index does not exist yet
// (nothing uploaded): an empty store, not an error.
func indexMissing(r *response) bool {
	return r != nil && r.status == http.StatusNotFound && strings.Contains(string(r.body), "index_not_found_exception")
}

// Count counts the matching payloads.
func (s *store) Count(ctx context.Context, q lts.Query) (int64, error) {
	if err := q.Check(); err != nil {
		return 0, err
	}
	return s.count(ctx, s.newBackoff(), searchQuery(q))
}

// count counts the payloads matching an OpenSearch query.
func (s *store) count(ctx context.Context, b *backoff, query map[string]any) (int64, error) {
	body, err := json.Marshal(map[string]any{"query": query})
	if err != nil {
		return 0, err
	}
	var stats lts.PutStats
	r, err := s.do(ctx, b, &stats, "count", func() opensearchapi.Request {
		return opensearchapi.CountRequest{Index: []string{s.names.Payloads()}, Body: bytes.NewReader(body)}
	}, http.StatusNotFound)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s, err)
	}
	if indexMissing(r) {
		return 0, nil
	}
	if r.status == http.StatusNotFound {
		return 0, fmt.Errorf("%s: count: HTTP 404: %s", s, errorReason(r.body))
	}
	var ans struct {
		Count *int64 `json:"count"`
	}
	if err := json.Unmarshal(r.body, &ans); err != nil || ans.Count == nil {
		return 0, fmt.Errorf("%s: count: unreadable answer: %s", s, errorReason(r.body))
	}
	return *ans.Count, nil
}

// labelsField is the object of the labels in the payload index.
const labelsField = "metadata.labels."

// LabelNames asks the payload index which label fields it maps
// (_field_caps), then keeps those that a stored payload has (a count with
// an exists query each): the index template maps every label the
// workloads declare, used or not. It is a handful of requests, asked when
// a filter matched nothing.
func (s *store) LabelNames(ctx context.Context) ([]string, error) {
	var stats lts.PutStats
	b := s.newBackoff()
	r, err := s.do(ctx, b, &stats, "field_caps", func() opensearchapi.Request {
		return opensearchapi.FieldCapsRequest{Index: []string{s.names.Payloads()}, Fields: []string{labelsField + "*"}}
	}, http.StatusNotFound)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	if indexMissing(r) {
		return nil, nil
	}
	if r.status == http.StatusNotFound {
		return nil, fmt.Errorf("%s: field_caps: HTTP 404: %s", s, errorReason(r.body))
	}
	var ans struct {
		Fields map[string]json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(r.body, &ans); err != nil {
		return nil, fmt.Errorf("%s: field_caps: unreadable answer: %s", s, errorReason(r.body))
	}
	var names []string
	for _, field := range slices.Sorted(maps.Keys(ans.Fields)) {
		name, ok := strings.CutPrefix(field, labelsField)
		if !ok || strings.Contains(name, ".") { // a multi-field (.keyword) of a label
			continue
		}
		n, err := s.count(ctx, b, map[string]any{"exists": map[string]any{"field": field}})
		if err != nil {
			return nil, err
		}
		if n > 0 {
			names = append(names, name)
		}
	}
	return names, nil
}

// Payloads yields the whole payloads of the matches.
func (s *store) Payloads(ctx context.Context, q lts.Query) iter.Seq2[*models.Payload, error] {
	return func(yield func(*models.Payload, error) bool) {
		for h, err := range s.search(ctx, q, false) {
			if !yield(h.payload, err) {
				return
			}
		}
	}
}

// Records yields the records of the matches, read from their payloads
// without results (most of a payload, left on the server).
func (s *store) Records(ctx context.Context, q lts.Query) iter.Seq2[lts.Record, error] {
	return func(yield func(lts.Record, error) bool) {
		for h, err := range s.search(ctx, q, true) {
			if err != nil {
				yield(lts.Record{}, err)
				return
			}
			r := lts.RecordOf(h.payload).Only(q.KPIs)
			if q.SampleStats {
				var doc struct {
					Samples map[string]analyze.RunStats `json:"sample_stats"`
				}
				if err := json.Unmarshal(h.source, &doc); err != nil {
					yield(lts.Record{}, fmt.Errorf("%s: stored payload %s: sample_stats: %w", s, h.payload.Metadata.TestUUID, err))
					return
				}
				r.Samples = doc.Samples
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// withSampleStats adds to a payload's document the summaries of its
// samples (sample_stats, PayloadIndexTemplate), when known.
func withSampleStats(doc []byte, stats map[string]analyze.RunStats) ([]byte, error) {
	if stats == nil {
		return doc, nil
	}
	enc, err := json.Marshal(stats)
	if err != nil || len(doc) < 2 || doc[len(doc)-1] != '}' {
		return doc, err
	}
	out := append(doc[:len(doc)-1:len(doc)-1], `,"sample_stats":`...)
	out = append(out, enc...)
	return append(out, '}'), nil
}

// storedHit is a stored payload as a search found it, with its document.
type storedHit struct {
	payload *models.Payload
	source  json.RawMessage
}

// search pages through the matches with search_after on (time, test_uuid).
func (s *store) search(ctx context.Context, q lts.Query, withoutResults bool) iter.Seq2[storedHit, error] {
	return func(yield func(storedHit, error) bool) {
		if err := q.Check(); err != nil {
			yield(storedHit{}, err)
			return
		}
		var after []json.RawMessage
		pageSize := q.PageSizeOr(s.opts.PageSize)
		b := s.newBackoff() // one budget for all the pages
		for {
			req := map[string]any{
				"size":  pageSize,
				"query": searchQuery(q),
				"sort":  searchSort,
			}
			if after != nil {
				req["search_after"] = after
			}
			switch {
			case withoutResults && !q.SampleStats:
				req["_source"] = map[string]any{"excludes": []string{"results", "sample_stats"}}
			case withoutResults:
				req["_source"] = map[string]any{"excludes": []string{"results"}}
			default: // a payload is the document less what was stored beside it
				req["_source"] = map[string]any{"excludes": []string{"sample_stats"}}
			}
			body, err := json.Marshal(req)
			if err != nil {
				yield(storedHit{}, err)
				return
			}
			var stats lts.PutStats
			r, err := s.do(ctx, b, &stats, "search", func() opensearchapi.Request {
				return opensearchapi.SearchRequest{Index: []string{s.names.Payloads()}, Body: bytes.NewReader(body)}
			}, http.StatusNotFound)
			if err != nil {
				yield(storedHit{}, fmt.Errorf("%s: %w", s, err))
				return
			}
			if indexMissing(r) {
				return
			}
			if r.status == http.StatusNotFound {
				yield(storedHit{}, fmt.Errorf("%s: search: HTTP 404: %s", s, errorReason(r.body)))
				return
			}
			var ans struct {
				Hits *struct {
					Hits []struct {
						ID     string            `json:"_id"`
						Source json.RawMessage   `json:"_source"`
						Sort   []json.RawMessage `json:"sort"`
					} `json:"hits"`
				} `json:"hits"`
			}
			if err := json.Unmarshal(r.body, &ans); err != nil || ans.Hits == nil {
				yield(storedHit{}, fmt.Errorf("%s: search: unreadable answer: %s", s, errorReason(r.body)))
				return
			}
			for _, h := range ans.Hits.Hits {
				p, err := lts.DecodeStored(h.Source, withoutResults)
				if err != nil {
					yield(storedHit{}, fmt.Errorf("%s: stored payload %s: %w", s, h.ID, err))
					return
				}
				if !yield(storedHit{p, h.Source}, nil) {
					return
				}
			}
			hits := ans.Hits.Hits
			if len(hits) < pageSize {
				return
			}
			after = hits[len(hits)-1].Sort
			if len(after) == 0 {
				yield(storedHit{}, fmt.Errorf("%s: search: hits without sort values, cannot page", s))
				return
			}
		}
	}
}

// DescribePut says what a Put did: payloads in the payload index, KPI
// documents in the KPI index, requests and retries.
func (s *store) DescribePut(name string, st lts.PutStats) string {
	stale := ""
	if st.StaleKPIDocuments > 0 {
		stale = fmt.Sprintf(" (%d no longer computed removed)", st.StaleKPIDocuments)
	}
	return fmt.Sprintf("stored %d payload(s) in %s index %s: %d new, %d replaced; %d KPI document(s) in index %s%s; %d request(s), %d document(s) retried",
		st.Payloads, name, s.names.Payloads(), st.Created, st.Replaced, st.KPIDocuments, s.names.KPIs(), stale, st.Requests, st.Retries)
}
