package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/seshat-bench/seshat/lts"
)

// PutVerdicts stores verdicts in one transaction, replacing those of the
// same ID (their triage stays).
func (s *store) PutVerdicts(ctx context.Context, vs []lts.Verdict) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return wrapErr(s, err)
	}
	defer func() { _ = tx.Rollback() }()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO verdicts (id, time_ns, workload, kpi, status, build, verdict)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET time_ns = excluded.time_ns, workload = excluded.workload, kpi = excluded.kpi,
			status = excluded.status, build = excluded.build, verdict = excluded.verdict`)
	if err != nil {
		return wrapErr(s, err)
	}
	defer stmt.Close()
	for _, v := range vs {
		v.Triage, v.TriageHistory = nil, nil
		doc, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("verdict %s: %w", v.ID, err)
		}
		if _, err := stmt.ExecContext(ctx, v.ID, v.Time.UnixNano(), v.Workload, v.KPI, v.Status, v.Build, string(doc)); err != nil {
			return wrapErr(s, fmt.Errorf("verdict %s: %w", v.ID, err))
		}
	}
	return wrapErr(s, tx.Commit())
}

// Verdicts returns the matching verdicts, newest first, with their triage.
func (s *store) Verdicts(ctx context.Context, q lts.VerdictQuery) ([]lts.Verdict, error) {
	query, args := verdictsQuery(q)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapErr(s, err)
	}
	defer rows.Close()
	var out []lts.Verdict
	for rows.Next() {
		var doc string
		var triage sql.NullString
		if err := rows.Scan(&doc, &triage); err != nil {
			return nil, wrapErr(s, err)
		}
		var v lts.Verdict
		if err := jsonv2.Unmarshal([]byte(doc), &v, v1Semantics); err != nil {
			return nil, fmt.Errorf("%s: a stored verdict: %w", s, err)
		}
		if triage.Valid {
			v.Triage = &lts.Triage{}
			if err := json.Unmarshal([]byte(triage.String), v.Triage); err != nil {
				return nil, fmt.Errorf("%s: the triage of verdict %s: %w", s, v.ID, err)
			}
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(s, err)
	}
	return out, s.triageHistory(ctx, out)
}

// verdictsQuery is the SQL of Verdicts and its arguments. With AlertsOnly
// its status condition is the one of the index verdicts_alerts_by_time
// (migration 11), word for word, so that SQLite reads the alerts only.
func verdictsQuery(q lts.VerdictQuery) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, a ...any) { where = append(where, cond); args = append(args, a...) }
	if q.ID != "" {
		add("v.id = ?", q.ID)
	}
	if q.AlertsOnly {
		add("v.status IN ('regression', 'improvement', 'acknowledged')")
	}
	if len(q.Builds) > 0 {
		add("v.build IN ("+placeholders(len(q.Builds))+")", stringsAsArgs(q.Builds)...)
	}
	if q.Workload != "" {
		add("v.workload = ?", q.Workload)
	}
	if q.KPI != "" {
		add("v.kpi = ?", q.KPI)
	}
	query := "SELECT v.verdict, t.triage FROM verdicts v LEFT JOIN triage t ON t.verdict_id = v.id"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY v.time_ns DESC, v.id"
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return query, args
}

// triageHistory fills the TriageHistory of the verdicts that have a
// triage, a query per 500 of them.
func (s *store) triageHistory(ctx context.Context, vs []lts.Verdict) error {
	at := map[string]int{}
	var ids []string
	for i := range vs {
		if vs[i].Triage != nil {
			at[vs[i].ID] = i
			ids = append(ids, vs[i].ID)
		}
	}
	for chunk := range slices.Chunk(ids, 500) {
		rows, err := s.db.QueryContext(ctx, "SELECT verdict_id, triage FROM triage_history WHERE verdict_id IN ("+
			placeholders(len(chunk))+") ORDER BY seq", stringsAsArgs(chunk)...)
		if err != nil {
			return wrapErr(s, err)
		}
		for rows.Next() {
			var id, doc string
			if err := rows.Scan(&id, &doc); err != nil {
				rows.Close()
				return wrapErr(s, err)
			}
			var t lts.Triage
			if err := json.Unmarshal([]byte(doc), &t); err != nil {
				rows.Close()
				return fmt.Errorf("%s: the triage history of verdict %s: %w", s, id, err)
			}
			v := &vs[at[id]]
			v.TriageHistory = append(v.TriageHistory, t)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return wrapErr(s, err)
		}
	}
	return nil
}

// PutTriage stores the triage of a verdict the store holds: its latest, and
// the next of its history.
func (s *store) PutTriage(ctx context.Context, t lts.Triage) error {
	if err := t.Check(); err != nil {
		return err
	}
	doc, err := json.Marshal(t)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return wrapErr(s, err)
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `INSERT INTO triage (verdict_id, triage) SELECT id, ? FROM verdicts WHERE id = ?
		ON CONFLICT (verdict_id) DO UPDATE SET triage = excluded.triage`, string(doc), t.VerdictID)
	if err != nil {
		return wrapErr(s, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("triage of %s in %s: %w", t.VerdictID, s, lts.ErrUnknownVerdict)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO triage_history (verdict_id, triage) VALUES (?, ?)`, t.VerdictID, string(doc)); err != nil {
		return wrapErr(s, err)
	}
	return wrapErr(s, tx.Commit())
}
