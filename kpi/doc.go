// Package kpi declares key performance indicators and evaluates them.
//
// A workload declares a Catalog: its KPI Definitions (name, help, unit,
// direction, display format, extractor) and its labels model (the label
// names KPIs are grouped by, versioned by kpi_settings_version). Catalogs are
// checked when built, so a definition without a direction or with a unit its
// name does not carry is a programming error caught at registration.
//
// Evaluate runs every extractor against a payload: a failing extractor
// leaves its KPI absent with a warning naming it, and a NaN or infinite value
// is refused the same way, so neither reaches JSON nor OpenMetrics.
// WriteOpenMetrics exports the KPIs of payloads through the Prometheus
// client_model and expfmt libraries, never as hand-written text.
package kpi
