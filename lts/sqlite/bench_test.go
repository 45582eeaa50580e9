package sqlite_test

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
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// BenchmarkSQLitePut stores 10,000 pi payloads shaped like bench/gen's
// (200 samples each) into a new SQLite store, in one upload. The target of
// issue 5 is 2 s per upload (ns/op).
func BenchmarkSQLitePut(b *testing.B) {
	ps := pitest.Payloads(10000, ltstest.Options{Series: 28, Seed: 1})
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

type bigStore struct {
	once sync.Once
	path string
	ps   []*models.Payload
	err  error
}

// bigStores are SQLite stores of 100,000 payloads, by number of series.
var bigStores = map[int]*bigStore{100: {}, 1000: {}}

// storeOf100k is a SQLite store of 100,000 payloads in the given number of
// series, built once per benchmark run, in SESHAT_BENCH_DIR when set (kept
// between runs: it takes a while to build) else in a temporary directory.
func storeOf100k(b *testing.B, series int) (string, []*models.Payload) {
	st := bigStores[series]
	st.once.Do(func() {
		st.ps = pitest.Payloads(100000, ltstest.Options{Series: series, Seed: 2})
		dir := os.Getenv("SESHAT_BENCH_DIR")
		if dir == "" {
			if dir, st.err = os.MkdirTemp("", "seshat-bench-"); st.err != nil {
				return
			}
		}
		st.path = filepath.Join(dir, fmt.Sprintf("lts-100k-%d-series.db", series))
		s, err := lts.Open(context.Background(), "sqlite:"+st.path, lts.StoreOptions{})
		if err != nil {
			st.err = err
			return
		}
		defer s.Close()
		if n, err := s.Count(context.Background(), lts.Query{}); err == nil && n == 100000 {
			return
		}
		for i := 0; i < len(st.ps) && st.err == nil; i += 10000 {
			_, st.err = s.Put(context.Background(), st.ps[i:i+10000])
		}
	})
	if st.err != nil {
		b.Fatal(st.err)
	}
	return st.path, st.ps
}

// BenchmarkSQLiteQuerySeries reads one series (every label given, as
// regression history asks) out of 100,000 payloads: a series of 100 runs
// (1,000 series) and one of 1,000 runs (100 series), as whole payloads or
// as records (what history, regression and the history plots read, from
// the summaries). The target of issue 5 is 50 ms per query (ns/op).
func BenchmarkSQLiteQuerySeries(b *testing.B) {
	for _, series := range []int{1000, 100} {
		runs := 100000 / series
		for _, what := range []string{"payloads", "records"} {
			b.Run(fmt.Sprintf("runs=%d/%s", runs, what), func(b *testing.B) {
				path, ps := storeOf100k(b, series)
				s, err := lts.Open(context.Background(), "sqlite:"+path, lts.StoreOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				q := ltstest.SeriesQuery(ps[42])
				b.ResetTimer()
				for b.Loop() {
					n := 0
					if what == "payloads" {
						for _, err := range s.Payloads(context.Background(), q) {
							if err != nil {
								b.Fatal(err)
							}
							n++
						}
					} else {
						for _, err := range s.Records(context.Background(), q) {
							if err != nil {
								b.Fatal(err)
							}
							n++
						}
					}
					if n != runs {
						b.Fatalf("%d runs, want %d", n, runs)
					}
				}
			})
		}
	}
}
