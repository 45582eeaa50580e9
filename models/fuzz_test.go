package models

import (
	"encoding/json"
	"os"
	"testing"
)

// seedPayloads adds the payloads of the LTS golden as seeds.
func seedPayloads(f *testing.F) {
	f.Helper()
	data, err := os.ReadFile("../testdata/golden/lts.json")
	if err != nil {
		f.Fatal(err)
	}
	var docs []json.RawMessage
	if err := json.Unmarshal(data, &docs); err != nil {
		f.Fatal(err)
	}
	for _, d := range docs {
		f.Add([]byte(d))
	}
	f.Add([]byte(`{"metadata":{"labels":{"":""},"urls":{"a":"::"}},"kpis":{"X":{"value":1}}}`))
	f.Add([]byte(`{}`))
}

// A payload read back from storage is any JSON: decoding and validating it
// never panics, and a payload that validates encodes again.
func FuzzPayloadValidate(f *testing.F) {
	seedPayloads(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Payload
		if json.Unmarshal(data, &p) != nil {
			return
		}
		err := Validate(&p)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("Validate returned %T: %v", err, err)
			}
			return
		}
		if _, err := json.Marshal(&p); err != nil {
			t.Fatalf("a valid payload does not encode: %v", err)
		}
	})
}

// KPI documents come back from the KPI index: decoding never panics, and a
// decoded document encodes to a document that decodes to the same thing.
func FuzzKPIDocument(f *testing.F) {
	f.Add([]byte(`{"@timestamp":"2025-03-01T12:00:00Z","kpi":"elapsed_ms","lower_better":true,"test_uuid":"x","unit":"ms","value":0.65,"workload":"pi"}`))
	f.Add([]byte(`{"value":"1"}`))
	f.Add([]byte(`{"device":3}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d KPIDocument
		if json.Unmarshal(data, &d) != nil {
			return
		}
		out, err := json.Marshal(d)
		if err != nil {
			return // e.g. a NaN cannot come from JSON, but stay safe
		}
		var back KPIDocument
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-decode of %s: %v", out, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(out) {
			t.Fatalf("not stable:\n%s\n%s", out, again)
		}
	})
}
