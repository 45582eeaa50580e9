package lts

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
)

// rawPayload is a stored payload before its results are decoded into the
// workload's type.
type rawPayload struct {
	Metadata models.Metadata            `json:"metadata"`
	Results  json.RawMessage            `json:"results"`
	KPIs     map[string]models.KPIValue `json:"kpis"`
}

// FileLimit is the largest LTS file read (1 GiB). Every verb that reads
// one (upload, regression, compare, visualize --history) reads it whole
// through ReadFile, under this one limit.
const FileLimit = 1 << 30

// ReadFile reads the LTS file at path, at most FileLimit bytes, into
// records as ReadPayloads does. Every error names the file: one that
// cannot be read is an *fs.PathError (a missing file exits 4, InvalidInput;
// a larger one wraps parsers.ErrTooLarge, a directory
// parsers.ErrNotRegular), one that is not a JSON array of objects is
// InvalidInput with its line.
func ReadFile(path string, lookup Lookup) ([]EntryPayload, error) {
	data, err := parsers.ReadLimited(path, FileLimit)
	if err != nil {
		return nil, exitcode.Input(err)
	}
	return ReadPayloads(path, data, lookup)
}

// ReadPayloads decodes an LTS file (the JSON array `parse --output-lts`
// writes) named name into records, one per payload, each named
// name[index]. Each payload's results are decoded into its workload's
// results type, so that strict validation (SplitValid) checks them as it
// checks freshly built payloads. Unknown fields are refused rather than
// dropped: re-storing a payload must not lose what it holds. A payload that
// cannot be decoded is a record without payload, its error the warning; a
// file that is not a JSON array of objects is an InvalidInput error naming
// the file and line.
func ReadPayloads(name string, data []byte, lookup Lookup) ([]EntryPayload, error) {
	var items []json.RawMessage
	if err := parsers.JSON(name, data, &items); err != nil {
		return nil, exitcode.With(exitcode.InvalidInput, err)
	}
	records := make([]EntryPayload, 0, len(items))
	for i, item := range items {
		path := fmt.Sprintf("%s[%d]", name, i)
		p, cat, err := decodePayload(item, lookup)
		if err != nil {
			records = append(records, EntryPayload{Path: path, Warnings: []string{err.Error()}})
			continue
		}
		records = append(records, EntryPayload{Path: path, Payload: p, Catalog: cat})
	}
	return records, nil
}

func decodePayload(item []byte, lookup Lookup) (*models.Payload, *kpi.Catalog, error) {
	var raw rawPayload
	if err := strictJSON(item, &raw); err != nil {
		return nil, nil, err
	}
	w, ok := lookup(raw.Metadata.Workload)
	if !ok {
		return nil, nil, fmt.Errorf("metadata.workload: %q produces no LTS payloads in this seshat", raw.Metadata.Workload)
	}
	p := &models.Payload{Metadata: raw.Metadata, KPIs: raw.KPIs}
	if len(bytes.TrimSpace(raw.Results)) > 0 && !bytes.Equal(bytes.TrimSpace(raw.Results), []byte("null")) {
		results := w.PayloadResults()
		if err := strictJSON(raw.Results, results); err != nil {
			return nil, nil, fmt.Errorf("results: %w", err)
		}
		p.Results = results
	}
	return p, w.KPIs(), nil
}

// strictJSON decodes one JSON value refusing unknown fields.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
