// Package sqlite is the embedded LTS store: one SQLite file (modernc.org/sqlite,
// pure Go), opened from a sqlite:PATH URL. It registers itself with package
// lts in init.
package sqlite

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, "sqlite"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// migrations bring a store from schema version i (PRAGMA user_version)
// to i+1. Append only: a released migration never changes.
var migrations = []string{
	// 1: payloads stored whole, keyed by test_uuid. Each distinct label
	// (name, value) gets an integer id and the number of payloads that
	// have it; labels links payloads to them, so that a label query is an
	// index search on integers that starts from its most selective label.
	`CREATE TABLE payloads (
		id INTEGER PRIMARY KEY,
		test_uuid TEXT NOT NULL UNIQUE,
		start_ns INTEGER NOT NULL,
		workload TEXT NOT NULL,
		payload TEXT NOT NULL
	);
	CREATE INDEX payloads_by_time ON payloads (start_ns, test_uuid);
	CREATE TABLE label_values (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		value TEXT NOT NULL,
		payloads INTEGER NOT NULL DEFAULT 0,
		UNIQUE (name, value)
	);
	CREATE TABLE labels (
		value_id INTEGER NOT NULL REFERENCES label_values (id),
		payload_id INTEGER NOT NULL REFERENCES payloads (id),
		PRIMARY KEY (value_id, payload_id)
	) WITHOUT ROWID;`,
	// 2: each payload's labels and KPI values as a small JSON document
	// beside it, {"labels": {...}, "kpis": {"name": value}}, so that
	// regression history reads a tenth of the bytes and decodes no
	// results (what is now Records).
	`ALTER TABLE payloads ADD COLUMN summary TEXT NOT NULL DEFAULT '{}';
	UPDATE payloads SET summary = json_object(
		'labels', json(COALESCE(payload->'$.metadata.labels', '{}')),
		'kpis', json(COALESCE((SELECT json_group_object(key, value->'$.value')
			FROM json_each(payload, '$.kpis')), '{}')));`,
	// 3: the summaries move out of the payloads' rows, where they were
	// reached only through each payload's overflow pages: each distinct
	// label set once (canonical JSON, sorted keys), and per payload its
	// key, time, label set and KPI values ({"name": value}). History
	// reads dense pages and decodes each label set once per query. The
	// summary column of 2 is no longer written nor read (dropping it
	// would rewrite every payload).
	`CREATE TABLE label_sets (
		id INTEGER PRIMARY KEY,
		labels TEXT NOT NULL UNIQUE
	);
	CREATE TABLE summaries (
		id INTEGER PRIMARY KEY REFERENCES payloads (id),
		test_uuid TEXT NOT NULL,
		start_ns INTEGER NOT NULL,
		label_set INTEGER NOT NULL REFERENCES label_sets (id),
		kpis TEXT NOT NULL
	);
	INSERT OR IGNORE INTO label_sets (labels)
	SELECT json(COALESCE(payload->'$.metadata.labels', '{}')) FROM payloads;
	INSERT INTO summaries (id, test_uuid, start_ns, label_set, kpis)
	SELECT p.id, p.test_uuid, p.start_ns, ls.id,
		json(COALESCE((SELECT json_group_object(key, value->'$.value') FROM json_each(p.payload, '$.kpis')), '{}'))
	FROM payloads p JOIN label_sets ls ON ls.labels = json(COALESCE(p.payload->'$.metadata.labels', '{}'));`,
	// 4: the summaries hold the whole lts.Record. Each payload's workload
	// (a column, for Query.Workload), its kind — workload, exit code and
	// KPI definitions (unit, help, direction), each distinct kind once,
	// {"workload", "exit_code", "kpis": {"name": {"unit", "help",
	// "lower_better"}}} — and its build (metadata.build, each distinct one
	// once; NULL when the run has none). Like label sets, kinds and builds
	// are decoded once per query: a record costs no more to read than the
	// values did.
	`CREATE TABLE kinds (
		id INTEGER PRIMARY KEY,
		kind TEXT NOT NULL UNIQUE
	);
	CREATE TABLE builds (
		id INTEGER PRIMARY KEY,
		build TEXT NOT NULL UNIQUE
	);
	ALTER TABLE summaries ADD COLUMN workload TEXT NOT NULL DEFAULT '';
	ALTER TABLE summaries ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE summaries ADD COLUMN build INTEGER REFERENCES builds (id);
	CREATE TEMP TABLE migrated AS
	SELECT p.id, p.workload,
		json_object('workload', p.workload, 'exit_code', json(p.payload->'$.metadata.exit_code'),
			'kpis', json(COALESCE((SELECT json_group_object(key, json_object(
				'unit', COALESCE(value->>'$.unit', ''),
				'help', COALESCE(value->>'$.help', ''),
				'lower_better', json(CASE WHEN value->'$.lower_better' = 'true' THEN 'true' ELSE 'false' END)))
				FROM json_each(p.payload, '$.kpis')), '{}'))) AS kind,
		json(p.payload->'$.metadata.build') AS build
	FROM payloads p;
	INSERT OR IGNORE INTO kinds (kind) SELECT kind FROM migrated;
	INSERT OR IGNORE INTO builds (build) SELECT build FROM migrated WHERE build IS NOT NULL;
	UPDATE summaries SET
		workload = (SELECT m.workload FROM migrated m WHERE m.id = summaries.id),
		kind = (SELECT k.id FROM migrated m JOIN kinds k ON k.kind = m.kind WHERE m.id = summaries.id),
		build = (SELECT b.id FROM migrated m JOIN builds b ON b.build = m.build WHERE m.id = summaries.id);
	DROP TABLE migrated;`,
	// 5: the verdicts of regression analyses (lts.Verdict, a JSON document
	// with its time, build and status as columns for the queries), and
	// the triage of each (lts.Triage), the latest only.
	`CREATE TABLE verdicts (
		id TEXT PRIMARY KEY,
		time_ns INTEGER NOT NULL,
		workload TEXT NOT NULL,
		kpi TEXT NOT NULL,
		status TEXT NOT NULL,
		build TEXT NOT NULL,
		verdict TEXT NOT NULL
	);
	CREATE INDEX verdicts_by_time ON verdicts (time_ns DESC, id);
	CREATE INDEX verdicts_by_build ON verdicts (build);
	CREATE TABLE triage (
		verdict_id TEXT PRIMARY KEY REFERENCES verdicts (id),
		triage TEXT NOT NULL
	);`,
	// 6: the summaries by build, in time order, so that the runs of a
	// build (Query.Builds: `seshat compare build:ID`, the explorer's
	// comparisons) are an index search, not a scan of every summary.
	`CREATE INDEX summaries_by_build ON summaries (build, start_ns, test_uuid);`,
	// 7: every triage of a verdict, in the order made (lts.Verdict's
	// TriageHistory), beside the latest in triage; a store's latest
	// triages are the first of their history.
	`CREATE TABLE triage_history (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		verdict_id TEXT NOT NULL REFERENCES verdicts (id),
		triage TEXT NOT NULL
	);
	CREATE INDEX triage_history_by_verdict ON triage_history (verdict_id, seq);
	INSERT INTO triage_history (verdict_id, triage) SELECT verdict_id, triage FROM triage ORDER BY verdict_id;`,
	// 8: each summary's host load (lts.Record.HostLoad: the one-minute
	// load average before the run started, metadata.host_start) and CPU
	// share (metadata.cpu_share), NULL when the payload does not say.
	`ALTER TABLE summaries ADD COLUMN host_load REAL;
	ALTER TABLE summaries ADD COLUMN cpu_share REAL;
	UPDATE summaries SET
		host_load = (SELECT p.payload->>'$.metadata.host_start.loadavg[0]' FROM payloads p WHERE p.id = summaries.id),
		cpu_share = (SELECT p.payload->>'$.metadata.cpu_share' FROM payloads p WHERE p.id = summaries.id);`,
	// 9: each summary's CPU pressure (lts.Record.CPUPressure,
	// metadata.cpu_pressure), NULL when the payload does not say.
	`ALTER TABLE summaries ADD COLUMN cpu_pressure REAL;
	UPDATE summaries SET
		cpu_pressure = (SELECT p.payload->>'$.metadata.cpu_pressure' FROM payloads p WHERE p.id = summaries.id);`,
	// 10: the summaries of each run's per-iteration samples
	// (lts.Record.Samples, {"kpi": {"n", "log_mean", "log_var"}}), written
	// when the store is opened with lts.StoreOptions.Samples; no row when
	// not (the payloads stored before: their samples are the workload's
	// to read from the results, which SQL cannot). A table of their own:
	// in summaries they would spread every record read over more pages.
	`CREATE TABLE sample_stats (
		id INTEGER PRIMARY KEY REFERENCES payloads (id),
		stats TEXT NOT NULL
	);`,
	// 11: the alerts in time order (lts.VerdictQuery.AlertsOnly: the
	// explorer's /alerts), so that listing them reads the alerts, not
	// every verdict: on the explorer benchmark's store (44,000 verdicts,
	// 4,000 alerts) the query takes 11 ms instead of 21 ms in SQLite's C
	// library; with the verdicts decoded by the v2 engine of encoding/json,
	// bench/serve's /api/alerts took a median of 91-108 ms (p95 116-136)
	// instead of 128-135 ms (p95 158-167), two rounds alternately.
	`CREATE INDEX verdicts_alerts_by_time ON verdicts (time_ns DESC, id)
		WHERE status IN ('regression', 'improvement', 'acknowledged');`,
}

// applicationID marks a database file as a seshat store ("SESH").
const applicationID = 0x53455348

// busyTimeout is how long a writer waits for another one (a parallel
// upload) before giving up.
const busyTimeout = 60 * time.Second

type store struct {
	db       *sql.DB
	path     string
	pageSize int
	samples  func(p *models.Payload, kpi string) []float64 // lts.StoreOptions.Samples
	// The label sets, kinds and builds decoded so far (Records).
	labelSets docCache[map[string]string]
	kinds     docCache[*kind]
	builds    docCache[*models.Build]
}

func init() { lts.Register("sqlite", "sqlite:PATH", open) }

// open opens the store of a sqlite:PATH URL and brings its schema up to
// date. A file that does not exist is created (unless opts.MustExist), in
// a directory that must exist (unless opts.CreateDirs).
func open(ctx context.Context, rawURL string, opts lts.StoreOptions) (lts.Store, error) {
	_, path, _ := strings.Cut(rawURL, ":")
	if path == "" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store %q: no path after sqlite:", rawURL)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store sqlite:%s: %s is a directory, not a store file (name a file in it: sqlite:%s)",
			path, path, filepath.Join(path, "lts.db"))
	}
	if opts.MustExist {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.With(exitcode.NoData, fmt.Errorf("store sqlite:%s does not exist: %w", path, lts.ErrNoStore))
		}
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) && !opts.CreateDirs {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "store sqlite:%s: directory %s does not exist (--create creates it)", path, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store sqlite:%s: %w", path, err)
	}
	// WAL: readers never block the writer. busy_timeout: a second upload
	// waits for the first. _txlock=immediate: a transaction takes the
	// write lock when it begins, so two writers queue instead of both
	// reading and then failing to upgrade. synchronous=NORMAL is durable
	// in WAL mode except on power loss, which at worst drops the last
	// upload.
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	// A page cache of 8 MiB a connection: each connection of the pool
	// keeps its own, filled by every read (a read of all the records, a
	// build's payloads), and memory it holds is not given back. 64 MiB
	// made seshat serve's peak RSS up to 150 MB larger (BenchmarkExplorer) and
	// an upload no faster (BenchmarkSQLitePut: 403-527 µs a payload, 258-361
	// with 8 MiB, alternating). Statement journals (one per multi-row
	// insert) stay in memory. 16 KiB pages (set when the file is created)
	// hold a payload of a few KiB without a chain of overflow pages.
	q.Add("_pragma", "cache_size(-8192)")
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", "page_size(16384)")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store sqlite:%s: %w", path, err)
	}
	s := &store{db: db, path: path, pageSize: opts.PageSize, samples: opts.Samples}
	if err := s.migrateWaiting(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store sqlite:%s: %w", path, err)
	}
	return s, nil
}

func (s *store) String() string { return "sqlite:" + s.path }

func (s *store) Close() error { return s.db.Close() }

// migrateWaiting is migrate, tried again while SQLite says the file is
// busy, for up to busyTimeout: two processes creating one store at once
// (parallel uploads to a new file) meet where the busy timeout does not
// wait, in the first connection's switch to WAL and in WAL recovery
// (TestSQLiteConcurrentUploads failed 4 times in 60 without this).
func (s *store) migrateWaiting(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		err := s.migrate(ctx)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// busy tells whether err is SQLite's "database is locked" (SQLITE_BUSY).
func busy(err error) bool {
	var e interface{ Code() int }
	if errors.As(err, &e) {
		return e.Code()&0xff == 5 // SQLITE_BUSY and its extended codes
	}
	return false
}

// migrate applies the migrations the file lacks, in one transaction, so a
// concurrent opener sees the old schema or the new one.
func (s *store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var version, appID int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return err
	}
	switch {
	case version > len(migrations):
		return fmt.Errorf("schema version %d is newer than this seshat knows (%d): upgrade seshat", version, len(migrations))
	case version == len(migrations):
		return nil
	case version == 0:
		var tables int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
			return err
		}
		if tables > 0 || (appID != 0 && appID != applicationID) {
			return exitcode.Errorf(exitcode.InvalidInput, "not a seshat store (a SQLite database with other tables)")
		}
	case appID != applicationID:
		return exitcode.Errorf(exitcode.InvalidInput, "not a seshat store (application_id %#x)", appID)
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no parameters; the values are constants.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	return tx.Commit()
}

// Put stores the payloads in one transaction: all or nothing.
func (s *store) Put(ctx context.Context, payloads []*models.Payload) (lts.PutStats, error) {
	var stats lts.PutStats
	if len(payloads) == 0 {
		return stats, nil
	}
	docs, err := encodePayloads(payloads, s.samples)
	if err != nil {
		return stats, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return stats, fmt.Errorf("%s: %w", s, err)
	}
	defer func() { _ = tx.Rollback() }()
	w, err := newWriter(ctx, tx)
	if err != nil {
		return stats, fmt.Errorf("%s: %w", s, err)
	}
	defer w.close()
	for i, p := range payloads {
		replaced, err := w.put(ctx, p, docs[i])
		if err != nil {
			return lts.PutStats{}, fmt.Errorf("%s: payload %s: %w", s, p.Metadata.TestUUID, err)
		}
		stats.Payloads++
		if replaced {
			stats.Replaced++
		} else {
			stats.Created++
		}
	}
	if err := w.flushCounts(ctx); err != nil {
		return lts.PutStats{}, fmt.Errorf("%s: %w", s, err)
	}
	if err := tx.Commit(); err != nil {
		return lts.PutStats{}, fmt.Errorf("%s: %w", s, err)
	}
	return stats, nil
}

// encodedPayload is a payload as the store writes it: the whole document,
// and its summary: label set, KPI values, kind, build (nil when none), and
// the summaries of its samples (nil when not known).
type encodedPayload struct {
	doc, labels, values, kind, build, samples []byte
}

// encodePayloads marshals payloads in parallel, before the transaction
// starts: encoding is a third of an upload's time, and a parallel upload
// waits for the write lock meanwhile.
func encodePayloads(payloads []*models.Payload, samples func(*models.Payload, string) []float64) ([]encodedPayload, error) {
	kinds, err := encodeKinds(payloads)
	if err != nil {
		return nil, err
	}
	docs := make([]encodedPayload, len(payloads))
	err = parallelEach(len(payloads), 32, func(i int) error {
		p := payloads[i]
		e := encodedPayload{kind: kinds[i]}
		var err error
		if e.doc, err = json.Marshal(p); err == nil {
			e.labels, e.values, e.build, err = encodeSummary(p)
		}
		if stats := lts.SampleStatsOf(p, samples); err == nil && stats != nil {
			e.samples, err = json.Marshal(stats)
		}
		if err != nil {
			return fmt.Errorf("payload %s: %w", p.Metadata.TestUUID, err)
		}
		docs[i] = e
		return nil
	})
	return docs, err
}

// parallelEach calls f for 0..n-1 on up to GOMAXPROCS goroutines, at
// least per calls each (starting a goroutine for less costs more than it
// saves), and returns the errors joined in index order.
func parallelEach(n, per int, f func(i int) error) error {
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/per))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				errs[i] = f(i)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// idArgs makes the arguments of an `id IN (...)` query, and where each id
// is in ids, to put the rows back in the order of ids.
func idArgs(ids []int64) (args []any, pos map[int64]int) {
	args = make([]any, len(ids))
	pos = make(map[int64]int, len(ids))
	for i, id := range ids {
		args[i] = id
		pos[id] = i
	}
	return args, pos
}

// writer holds the prepared statements of one upload transaction and the
// ids it met: label values, and the label sets, KPI definition sets and
// builds of the summaries (interned: each distinct document once).
type writer struct {
	tx                                        *sql.Tx
	find, insert, update, summary, oldLabels  *sql.Stmt
	putStats, dropStats                       *sql.Stmt
	findValue, insertValue, deleteLabel, bump *sql.Stmt
	insertLabels                              map[int]*sql.Stmt // by number of labels
	valueIDs                                  map[[2]string]int64
	labelSets, kinds, builds                  *interned
	counts                                    map[int64]int // payloads gained per label value
}

// interned is a table of distinct documents: each gets an id once.
type interned struct {
	find, insert *sql.Stmt
	ids          map[string]int64
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx, insertLabels: map[int]*sql.Stmt{}, valueIDs: map[[2]string]int64{}, counts: map[int64]int{},
		labelSets: &interned{ids: map[string]int64{}}, kinds: &interned{ids: map[string]int64{}}, builds: &interned{ids: map[string]int64{}}}
	for _, st := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&w.find, "SELECT id FROM payloads WHERE test_uuid = ?"},
		{&w.insert, "INSERT INTO payloads (test_uuid, start_ns, workload, payload) VALUES (?, ?, ?, ?)"},
		{&w.update, "UPDATE payloads SET start_ns = ?, workload = ?, payload = ? WHERE id = ?"},
		{&w.summary, "INSERT OR REPLACE INTO summaries (id, test_uuid, start_ns, workload, label_set, kpis, kind, build, host_load, cpu_share, cpu_pressure) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
		{&w.putStats, "INSERT OR REPLACE INTO sample_stats (id, stats) VALUES (?, ?)"},
		{&w.dropStats, "DELETE FROM sample_stats WHERE id = ?"},
		{&w.labelSets.find, "SELECT id FROM label_sets WHERE labels = ?"},
		{&w.labelSets.insert, "INSERT INTO label_sets (labels) VALUES (?)"},
		{&w.kinds.find, "SELECT id FROM kinds WHERE kind = ?"},
		{&w.kinds.insert, "INSERT INTO kinds (kind) VALUES (?)"},
		{&w.builds.find, "SELECT id FROM builds WHERE build = ?"},
		{&w.builds.insert, "INSERT INTO builds (build) VALUES (?)"},
		// The old labels come from the stored payload itself, so that
		// labels needs no second index (which would slow every upload).
		{&w.oldLabels, "SELECT key, value FROM payloads, json_each(payloads.payload, '$.metadata.labels') WHERE payloads.id = ?"},
		{&w.findValue, "SELECT id FROM label_values WHERE name = ? AND value = ?"},
		{&w.insertValue, "INSERT INTO label_values (name, value) VALUES (?, ?)"},
		{&w.deleteLabel, "DELETE FROM labels WHERE value_id = ? AND payload_id = ?"},
		{&w.bump, "UPDATE label_values SET payloads = payloads + ? WHERE id = ?"},
	} {
		stmt, err := tx.PrepareContext(ctx, st.query)
		if err != nil {
			w.close()
			return nil, err
		}
		*st.dst = stmt
	}
	return w, nil
}

// hostLoad is the host_load column of a summary: NULL when the run does
// not say.
func hostLoad(h *models.HostState) any {
	if l := lts.LoadOf(h); l != nil {
		return *l
	}
	return nil
}

// nullIfNil is NULL for nil (unknown), else *v.
func nullIfNil(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// nullIfZero is NULL for 0 (unknown), else v.
func nullIfZero(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.find, w.insert, w.update, w.summary, w.putStats, w.dropStats, w.oldLabels, w.findValue, w.insertValue, w.deleteLabel, w.bump,
		w.labelSets.find, w.labelSets.insert, w.kinds.find, w.kinds.insert, w.builds.find, w.builds.insert} {
		if st != nil {
			_ = st.Close()
		}
	}
	for _, st := range w.insertLabels {
		_ = st.Close()
	}
}

// put inserts or replaces one payload and its labels; replaced tells which.
func (w *writer) put(ctx context.Context, p *models.Payload, e encodedPayload) (replaced bool, err error) {
	m := p.Metadata
	var id int64
	err = w.find.QueryRowContext(ctx, m.TestUUID).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := w.insert.ExecContext(ctx, m.TestUUID, m.Start.UnixNano(), m.Workload, e.doc)
		if err != nil {
			return false, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return false, err
		}
	case err != nil:
		return false, err
	default:
		replaced = true
		if err := w.forgetLabels(ctx, id); err != nil {
			return true, err
		}
		if _, err := w.update.ExecContext(ctx, m.Start.UnixNano(), m.Workload, e.doc, id); err != nil {
			return true, err
		}
	}
	set, err := w.labelSets.id(ctx, e.labels)
	if err != nil {
		return replaced, err
	}
	kind, err := w.kinds.id(ctx, e.kind)
	if err != nil {
		return replaced, err
	}
	var build any // NULL: no build
	if e.build != nil {
		if build, err = w.builds.id(ctx, e.build); err != nil {
			return replaced, err
		}
	}
	if _, err := w.summary.ExecContext(ctx, id, m.TestUUID, m.Start.UnixNano(), m.Workload, set, string(e.values), kind, build, hostLoad(m.HostStart), nullIfZero(m.CPUShare), nullIfNil(m.CPUPressure)); err != nil {
		return replaced, err
	}
	switch {
	case e.samples != nil:
		_, err = w.putStats.ExecContext(ctx, id, string(e.samples))
	case replaced: // those of the run stored before are not this one's
		_, err = w.dropStats.ExecContext(ctx, id)
	}
	if err != nil {
		return replaced, err
	}
	return replaced, w.addLabels(ctx, id, m.Labels)
}

// id returns the id of a document, adding it when new.
func (t *interned) id(ctx context.Context, doc []byte) (int64, error) {
	if id, ok := t.ids[string(doc)]; ok {
		return id, nil
	}
	// Bound as text: the migrations compare them with text.
	id, err := findOrInsert(ctx, t.find, t.insert, string(doc))
	if err == nil {
		t.ids[string(doc)] = id
	}
	return id, err
}

// valueID returns the id of a label value, creating it when new.
func (w *writer) valueID(ctx context.Context, name, value string) (int64, error) {
	k := [2]string{name, value}
	if id, ok := w.valueIDs[k]; ok {
		return id, nil
	}
	id, err := findOrInsert(ctx, w.findValue, w.insertValue, name, value)
	if err == nil {
		w.valueIDs[k] = id
	}
	return id, err
}

// findOrInsert returns the id of the row find selects by args, inserting
// it with insert (the same args) when there is none.
func findOrInsert(ctx context.Context, find, insert *sql.Stmt, args ...any) (int64, error) {
	var id int64
	err := find.QueryRowContext(ctx, args...).Scan(&id)
	if !errors.Is(err, sql.ErrNoRows) {
		return id, err
	}
	res, err := insert.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (w *writer) forgetLabels(ctx context.Context, id int64) error {
	rows, err := w.oldLabels.QueryContext(ctx, id)
	if err != nil {
		return err
	}
	var old [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			_ = rows.Close()
			return err
		}
		old = append(old, k)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, k := range old {
		vid, err := w.valueID(ctx, k[0], k[1])
		if err != nil {
			return err
		}
		res, err := w.deleteLabel.ExecContext(ctx, vid, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			w.counts[vid]--
		}
	}
	return nil
}

// addLabels inserts every label of a payload in one statement: per-label
// statements would dominate the upload time.
func (w *writer) addLabels(ctx context.Context, id int64, labels map[string]string) error {
	if len(labels) == 0 {
		return nil
	}
	stmt, ok := w.insertLabels[len(labels)]
	if !ok {
		// OR IGNORE: no pair can repeat, and without a conflict to
		// abort on SQLite needs no statement journal.
		q := "INSERT OR IGNORE INTO labels (value_id, payload_id) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?), ", len(labels)), ", ")
		var err error
		if stmt, err = w.tx.PrepareContext(ctx, q); err != nil {
			return err
		}
		w.insertLabels[len(labels)] = stmt
	}
	args := make([]any, 0, 2*len(labels))
	for name, value := range labels {
		vid, err := w.valueID(ctx, name, value)
		if err != nil {
			return err
		}
		args = append(args, vid, id)
		w.counts[vid]++
	}
	_, err := stmt.ExecContext(ctx, args...)
	return err
}

// flushCounts applies the label count changes of the transaction.
func (w *writer) flushCounts(ctx context.Context) error {
	for vid, n := range w.counts {
		if n == 0 {
			continue
		}
		if _, err := w.bump.ExecContext(ctx, n, vid); err != nil {
			return err
		}
	}
	return nil
}

// sqlQuery is a Query translated to SQL selecting payload ids in order.
type sqlQuery struct {
	from, where string
	args        []any
	empty       bool // a label value nothing has: no need to ask
}

// querier is a database or one connection of it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// snapshot runs f on one connection inside a read transaction: every
// statement of f sees the same state of the store, whatever uploads run
// meanwhile (WAL readers never wait for them).
func (s *store) snapshot(ctx context.Context, f func(c *sql.Conn) error) error {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	// A plain BEGIN is deferred: it takes no write lock (BeginTx would,
	// the store's transactions being immediate).
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	err = f(c)
	if _, rerr := c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		// A connection left inside a transaction must not go back to
		// the pool.
		_ = c.Raw(func(any) error { return sqldriver.ErrBadConn })
		if err == nil {
			err = rerr
		}
	}
	return err
}

// plan translates q, on db inside a snapshot. Each label filter becomes the
// ids of its values; the filter matching the fewest payloads (label_values
// counts them) drives the query through the labels primary key, each other
// filter is a primary key probe per candidate, unless it matches every
// payload of the store (a label all runs share, such as the workload):
// such a filter removes nothing and its probes would cost most of a query.
//
// The matches come from table p: payloads, or summaries (Records), both
// with the id, test_uuid, start_ns and workload of each payload.
func (s *store) plan(ctx context.Context, db querier, q lts.Query, table string) (sqlQuery, error) {
	var sq sqlQuery
	var conds []string
	names := q.Labels.Names()
	ids := make(map[string][]any, len(names))
	counts := make(map[string]int64, len(names))
	driver, best := "", int64(-1)
	for _, name := range names {
		values := q.Labels[name]
		rows, err := db.QueryContext(ctx,
			"SELECT id, payloads FROM label_values WHERE name = ? AND value IN ("+placeholders(len(values))+")",
			append([]any{name}, stringsAsArgs(values)...)...)
		if err != nil {
			return sq, err
		}
		var n int64
		for rows.Next() {
			var id, count int64
			if err := rows.Scan(&id, &count); err != nil {
				_ = rows.Close()
				return sq, err
			}
			if count > 0 {
				ids[name] = append(ids[name], id)
				n += count
			}
		}
		if err := rows.Close(); err != nil {
			return sq, err
		}
		if n == 0 {
			sq.empty = true
			return sq, nil
		}
		counts[name] = n
		if best < 0 || n < best {
			driver, best = name, n
		}
	}
	if len(names) > 0 {
		var total int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM payloads").Scan(&total); err != nil {
			return sq, err
		}
		kept := names[:0:0]
		for _, name := range names {
			if counts[name] < total {
				kept = append(kept, name)
			}
		}
		names = kept
		if counts[driver] >= total {
			driver = ""
			if len(names) > 0 {
				driver = names[0]
				for _, name := range names {
					if counts[name] < counts[driver] {
						driver = name
					}
				}
			}
		}
	}
	if driver == "" {
		sq.from = table + " p"
	} else {
		// CROSS JOIN fixes the join order: SQLite's planner has no
		// statistics to know which label is selective, label_values does.
		sq.from = "labels d CROSS JOIN " + table + " p"
		conds = append(conds, "d.value_id IN ("+placeholders(len(ids[driver]))+")", "p.id = d.payload_id")
		sq.args = append(sq.args, ids[driver]...)
	}
	for _, name := range names {
		if name == driver {
			continue
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM labels l WHERE l.value_id IN ("+placeholders(len(ids[name]))+") AND l.payload_id = p.id)")
		sq.args = append(sq.args, ids[name]...)
	}
	if len(q.Builds) > 0 || len(q.Commits) > 0 {
		builds, err := matchingBuilds(ctx, db, q)
		if err != nil {
			return sq, err
		}
		if len(builds) == 0 {
			sq.empty = true
			return sq, nil
		}
		switch {
		case table == "summaries":
			conds = append(conds, "p.build IN ("+placeholders(len(builds))+")")
		case driver == "":
			// The build's summaries (summaries_by_build) drive the
			// query, each a primary key probe of payloads.
			sq.from = "summaries b CROSS JOIN " + table + " p"
			conds = append(conds, "b.build IN ("+placeholders(len(builds))+")", "p.id = b.id")
		default:
			conds = append(conds, "EXISTS (SELECT 1 FROM summaries b WHERE b.id = p.id AND b.build IN ("+placeholders(len(builds))+"))")
		}
		sq.args = append(sq.args, builds...)
	}
	if q.Workload != "" {
		conds = append(conds, "p.workload = ?")
		sq.args = append(sq.args, q.Workload)
	}
	if !q.Since.IsZero() {
		conds = append(conds, "p.start_ns >= ?")
		sq.args = append(sq.args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		conds = append(conds, "p.start_ns < ?")
		sq.args = append(sq.args, q.Until.UnixNano())
	}
	if len(conds) > 0 {
		sq.where = " WHERE " + strings.Join(conds, " AND ")
	}
	return sq, nil
}

// matchingBuilds returns the ids of the builds (one row per distinct
// metadata.build, a few per CI run) whose id is one of q.Builds and whose
// commit starts with one of q.Commits.
func matchingBuilds(ctx context.Context, db querier, q lts.Query) ([]any, error) {
	var conds []string
	var args []any
	if len(q.Builds) > 0 {
		conds = append(conds, "build->>'$.id' IN ("+placeholders(len(q.Builds))+")")
		args = append(args, stringsAsArgs(q.Builds)...)
	}
	if len(q.Commits) > 0 {
		var prefixes []string
		for _, c := range q.Commits {
			prefixes = append(prefixes, "substr(COALESCE(build->>'$.commit', ''), 1, ?) = ?")
			args = append(args, len(c), c)
		}
		conds = append(conds, "("+strings.Join(prefixes, " OR ")+")")
	}
	found, err := scanIDs(db.QueryContext(ctx, "SELECT id FROM builds WHERE "+strings.Join(conds, " AND "), args...))
	ids := make([]any, len(found))
	for i, id := range found {
		ids[i] = id
	}
	return ids, err
}

// LabelNames returns the label names of the stored payloads, from the
// counts of label_values.
func (s *store) LabelNames(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT name FROM label_values WHERE payloads > 0 ORDER BY name")
	if err != nil {
		return nil, wrapErr(s, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, wrapErr(s, err)
		}
		names = append(names, name)
	}
	return names, wrapErr(s, rows.Err())
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func stringsAsArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Count counts the payloads matching q.
func (s *store) Count(ctx context.Context, q lts.Query) (int64, error) {
	if err := q.Check(); err != nil {
		return 0, err
	}
	var n int64
	err := s.snapshot(ctx, func(c *sql.Conn) error {
		sq, err := s.plan(ctx, c, q, "payloads")
		if err != nil || sq.empty {
			return err
		}
		return c.QueryRowContext(ctx, "SELECT count(*) FROM "+sq.from+sq.where, sq.args...).Scan(&n)
	})
	return n, wrapErr(s, err)
}

func wrapErr(s lts.Store, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", s, err)
}

// idsQuery is the SQL selecting the ids of the matches in order.
func (sq sqlQuery) idsQuery() string {
	return "SELECT p.id FROM " + sq.from + sq.where + " ORDER BY p.start_ns, p.test_uuid"
}

// Payloads selects the ids of every match in order first (8 bytes each,
// one sort), then reads the payloads a page at a time, so memory holds one
// page of payloads however many match, and no read transaction stays open
// while the caller works.
func (s *store) Payloads(ctx context.Context, q lts.Query) iter.Seq2[*models.Payload, error] {
	return func(yield func(*models.Payload, error) bool) {
		ids, err := s.matchingIDs(ctx, q, "payloads")
		if err != nil {
			yield(nil, wrapErr(s, err))
			return
		}
		pageSize := q.PageSizeOr(s.pageSize)
		for start := 0; start < len(ids); start += pageSize {
			page := ids[start:min(start+pageSize, len(ids))]
			payloads, err := s.readPayloads(ctx, page, q.ResultsOnly)
			if err != nil {
				yield(nil, wrapErr(s, err))
				return
			}
			for _, p := range payloads {
				if !yield(p, nil) {
					return
				}
			}
		}
	}
}

// matchingIDs returns the ids of the matches in order, read from table
// (payloads or summaries).
func (s *store) matchingIDs(ctx context.Context, q lts.Query, table string) ([]int64, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	var ids []int64
	err := s.snapshot(ctx, func(c *sql.Conn) error {
		sq, err := s.plan(ctx, c, q, table)
		if err != nil || sq.empty {
			return err
		}
		ids, err = scanIDs(c.QueryContext(ctx, sq.idsQuery(), sq.args...))
		return err
	})
	return ids, err
}

// scanIDs returns the ids that a query selecting one integer column
// found, and closes its rows.
func scanIDs(rows *sql.Rows, err error) ([]int64, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// readPayloads reads and decodes the payloads of ids, in the order of ids;
// of each only its test_uuid, workload and results when resultsOnly.
func (s *store) readPayloads(ctx context.Context, ids []int64, resultsOnly bool) ([]*models.Payload, error) {
	docs, names, err := payloadDocs(ctx, s.db, ids)
	if err != nil {
		return nil, err
	}
	decode := func(doc []byte) (*models.Payload, error) { return lts.DecodeStored(doc, false) }
	if resultsOnly {
		decode = lts.DecodeStoredResults
	}
	return decodeAll(docs, names, decode)
}

// payloadDocs reads the stored documents of the payloads of ids and
// their test_uuids, in the order of ids (nil: gone since selected), from
// db or a transaction.
func payloadDocs(ctx context.Context, db interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, ids []int64) (docs [][]byte, names []string, err error) {
	args, pos := idArgs(ids)
	rows, err := db.QueryContext(ctx, "SELECT id, test_uuid, payload FROM payloads WHERE id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	docs, names = make([][]byte, len(ids)), make([]string, len(ids))
	for rows.Next() {
		var id int64
		var uuid string
		var doc []byte
		if err := rows.Scan(&id, &uuid, &doc); err != nil {
			return nil, nil, err
		}
		docs[pos[id]], names[pos[id]] = doc, uuid
	}
	return docs, names, rows.Err()
}

// decodeAll decodes stored payload documents in parallel (decoding is
// most of a query's time); nil documents (gone since selected) are
// skipped. The first error names its payload.
func decodeAll(docs [][]byte, names []string, decode func([]byte) (*models.Payload, error)) ([]*models.Payload, error) {
	out := make([]*models.Payload, len(docs))
	err := parallelEach(len(docs), 32, func(i int) error {
		if docs[i] == nil {
			return nil
		}
		p, err := decode(docs[i])
		if err != nil {
			return fmt.Errorf("stored payload %s: %w", names[i], err)
		}
		out[i] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, p := range out {
		if p != nil {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// explainQuery returns SQLite's plan of the ids query of q on table
// (payloads, or summaries: Records), one line per step, for the tests
// proving that queries search indices.
func (s *store) explainQuery(ctx context.Context, q lts.Query, table string) ([]string, error) {
	sq, err := s.plan(ctx, s.db, q, table)
	if err != nil {
		return nil, err
	}
	return s.explain(ctx, sq.idsQuery(), sq.args)
}

// explain returns SQLite's plan of a query, one line per step, sorted.
func (s *store) explain(ctx context.Context, query string, args []any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		lines = append(lines, detail)
	}
	sort.Strings(lines)
	return lines, rows.Err()
}
