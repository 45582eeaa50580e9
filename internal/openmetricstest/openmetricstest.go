// Package openmetricstest parses OpenMetrics text back in tests with
// Prometheus' own OpenMetrics parser (model/textparse), so that what Seshat
// exports is checked by what Prometheus will read, not by our own reading.
//
// Why this parser: prometheus/common's expfmt has an OpenMetrics decoder only
// from v0.73.0, whose grammar library is not available from the module proxy;
// Prometheus' textparse is the reference parser and compiles here with three
// small modules (xxhash, gogo/protobuf, grafana/regexp). Only tests import it.
package openmetricstest

import (
	"errors"
	"fmt"
	"io"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// ContentType is the OpenMetrics 1.0 media type.
const ContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// Sample is one sample line.
type Sample struct {
	Name        string
	Labels      map[string]string
	Value       float64
	TimestampMs *int64
}

// Family is a metric family as the parser saw it.
type Family struct {
	Name, Help, Unit string
	Type             model.MetricType
	Samples          []Sample
}

// Parse reads an OpenMetrics exposition and returns its families in order.
// Any error of the parser (a missing # EOF, a unit that is not the name's
// suffix, a malformed line) is returned.
func Parse(data []byte) ([]*Family, error) {
	p, err := textparse.New(data, ContentType, labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return nil, err
	}
	var out []*Family
	byName := map[string]*Family{}
	family := func(name []byte) *Family {
		f := byName[string(name)]
		if f == nil {
			f = &Family{Name: string(name)}
			byName[f.Name] = f
			out = append(out, f)
		}
		return f
	}
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch e {
		case textparse.EntryHelp:
			name, help := p.Help()
			family(name).Help = string(help)
		case textparse.EntryType:
			name, typ := p.Type()
			family(name).Type = typ
		case textparse.EntryUnit:
			name, unit := p.Unit()
			family(name).Unit = string(unit)
		case textparse.EntrySeries:
			_, ts, v := p.Series()
			var ls labels.Labels
			p.Labels(&ls)
			s := Sample{Name: ls.Get(labels.MetricName), Labels: map[string]string{}, Value: v}
			if ts != nil {
				t := *ts
				s.TimestampMs = &t
			}
			ls.Range(func(l labels.Label) {
				if l.Name != labels.MetricName {
					s.Labels[l.Name] = l.Value
				}
			})
			f := byName[s.Name]
			if f == nil {
				return out, fmt.Errorf("sample %s before its metadata", s.Name)
			}
			f.Samples = append(f.Samples, s)
		}
	}
}
