package lts_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/ltstest"
	"github.com/seshat-bench/seshat/models"
)

// BenchmarkSQLitePut stores 10,000 pi payloads shaped like bench/gen's
// (200 samples each) into a new SQLite store, in one upload. The target of
// issue 5 is 2 s per upload (ns/op).
func BenchmarkSQLitePut(b *testing.B) {
	ps := ltstest.Payloads(10000, ltstest.Options{Series: 28, Seed: 1})
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s, err := lts.Open(context.Background(), fmt.Sprintf("sqlite:%s/lts-%d.db", dir, i), lts.StoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Put(context.Background(), ps); err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/10000*1000, "µs/payload")
}

var bigStore struct {
	once sync.Once
	path string
	ps   []*models.Payload
	err  error
}

// storeOf100k is a SQLite store of 100,000 payloads in 1,000 series (100
// each) built once per benchmark run, in SESHAT_BENCH_DIR when set (kept
// between runs, it takes a while to build) else in a temporary directory.
func storeOf100k(b *testing.B) (string, []*models.Payload) {
	bigStore.once.Do(func() {
		bigStore.ps = ltstest.Payloads(100000, ltstest.Options{Series: 1000, Seed: 2})
		dir := os.Getenv("SESHAT_BENCH_DIR")
		if dir == "" {
			if dir, bigStore.err = os.MkdirTemp("", "seshat-bench-"); bigStore.err != nil {
				return
			}
		}
		bigStore.path = filepath.Join(dir, "lts-100k.db")
		s, err := lts.Open(context.Background(), "sqlite:"+bigStore.path, lts.StoreOptions{})
		if err != nil {
			bigStore.err = err
			return
		}
		defer s.Close()
		if n, err := s.Count(context.Background(), lts.Query{}); err == nil && n == 100000 {
			return
		}
		for i := 0; i < len(bigStore.ps) && bigStore.err == nil; i += 10000 {
			_, bigStore.err = s.Put(context.Background(), bigStore.ps[i:i+10000])
		}
	})
	if bigStore.err != nil {
		b.Fatal(bigStore.err)
	}
	return bigStore.path, bigStore.ps
}

// BenchmarkSQLiteQuerySeries reads one series (every label given, as
// regression history asks) out of 100,000 payloads. The target of issue 5
// is 50 ms per query (ns/op).
func BenchmarkSQLiteQuerySeries(b *testing.B) {
	path, ps := storeOf100k(b)
	s, err := lts.Open(context.Background(), "sqlite:"+path, lts.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	q := ltstest.SeriesQuery(ps[42])
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range s.Query(context.Background(), q) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100 {
			b.Fatalf("%d payloads, want 100", n)
		}
	}
}

// BenchmarkSQLiteQueryKPIsSeries reads the KPI records of one series out
// of 100,000 payloads: what regression history reads per series.
func BenchmarkSQLiteQueryKPIsSeries(b *testing.B) {
	path, ps := storeOf100k(b)
	s, err := lts.Open(context.Background(), "sqlite:"+path, lts.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	q := ltstest.SeriesQuery(ps[42])
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range lts.QueryKPIs(context.Background(), s, q) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100 {
			b.Fatalf("%d records, want 100", n)
		}
	}
}
