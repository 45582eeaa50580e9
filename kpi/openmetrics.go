package kpi

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/seshat-bench/seshat/models"
)

// LabelTestUUID is the label OpenMetrics samples carry besides the payload's
// labels: repeated runs of one matrix point share every other label, and an
// OpenMetrics metric family may not hold two series with the same labels.
const LabelTestUUID = "test_uuid"

// MetricName is the OpenMetrics name of a workload's KPI: prefixed by the
// workload so that two workloads may define KPIs of the same name.
func MetricName(workload, kpi string) string { return workload + "_" + kpi }

// MetricFamilies turns the KPIs of payloads into OpenMetrics gauge families,
// one per workload and KPI, sorted by name; samples are sorted by timestamp
// then test_uuid. HELP and UNIT come from the first sample of a family; the
// unit is declared only when it is an OpenMetrics base unit the name ends
// with. NaN or infinite values, and labels whose names are not snake_case,
// are refused with a warning naming the KPI and run.
func MetricFamilies(payloads []*models.Payload) ([]*dto.MetricFamily, []string) {
	type sample struct {
		ts   int64
		uuid string
		m    *dto.Metric
	}
	families := map[string]*dto.MetricFamily{}
	samples := map[string][]sample{}
	var warnings []string
	for _, p := range payloads {
		for _, name := range sortedKeys(p.KPIs) {
			k := p.KPIs[name]
			metric := MetricName(p.Metadata.Workload, name)
			if math.IsNaN(k.Value) || math.IsInf(k.Value, 0) {
				warnings = append(warnings, fmt.Sprintf("kpi %s of run %s: value %v is not a finite number, not exported", name, p.Metadata.TestUUID, k.Value))
				continue
			}
			if !models.IsSnakeCase(metric) {
				warnings = append(warnings, fmt.Sprintf("kpi %s of run %s: metric name %q is not snake_case, not exported", name, p.Metadata.TestUUID, metric))
				continue
			}
			mf := families[metric]
			if mf == nil {
				mf = &dto.MetricFamily{Name: proto.String(metric), Help: proto.String(k.Help), Type: dto.MetricType_GAUGE.Enum()}
				if IsOpenMetricsUnit(k.Unit) && strings.HasSuffix(metric, "_"+k.Unit) {
					mf.Unit = proto.String(k.Unit)
				}
				families[metric] = mf
			}
			m := &dto.Metric{Gauge: &dto.Gauge{Value: proto.Float64(k.Value)}}
			if !k.Timestamp.IsZero() {
				m.TimestampMs = proto.Int64(k.Timestamp.UnixMilli())
			}
			labels := map[string]string{LabelTestUUID: k.TestUUID}
			for ln, lv := range p.Metadata.Labels {
				if !models.IsSnakeCase(ln) || ln == LabelTestUUID {
					warnings = append(warnings, fmt.Sprintf("kpi %s of run %s: label %q not exported: not a valid label name", name, p.Metadata.TestUUID, ln))
					continue
				}
				labels[ln] = lv
			}
			for _, ln := range sortedKeys(labels) {
				m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(ln), Value: proto.String(labels[ln])})
			}
			samples[metric] = append(samples[metric], sample{ts: m.GetTimestampMs(), uuid: k.TestUUID, m: m})
		}
	}
	out := make([]*dto.MetricFamily, 0, len(families))
	for _, name := range sortedKeys(families) {
		ss := samples[name]
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].ts != ss[j].ts {
				return ss[i].ts < ss[j].ts
			}
			return ss[i].uuid < ss[j].uuid
		})
		mf := families[name]
		for _, s := range ss {
			mf.Metric = append(mf.Metric, s.m)
		}
		out = append(out, mf)
	}
	return out, warnings
}

// WriteOpenMetrics writes the KPIs of payloads in the OpenMetrics 1.0 text
// format, ending with # EOF. The warnings are those of MetricFamilies.
func WriteOpenMetrics(w io.Writer, payloads []*models.Payload) ([]string, error) {
	families, warnings := MetricFamilies(payloads)
	for _, mf := range families {
		if _, err := expfmt.MetricFamilyToOpenMetrics(w, mf); err != nil {
			return warnings, fmt.Errorf("openmetrics: %s: %w", mf.GetName(), err)
		}
	}
	if _, err := expfmt.FinalizeOpenMetrics(w); err != nil {
		return warnings, fmt.Errorf("openmetrics: %w", err)
	}
	return warnings, nil
}
