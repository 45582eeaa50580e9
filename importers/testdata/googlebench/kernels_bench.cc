// kernels_bench.cc: a tiny Google Benchmark program whose JSON output is
// importers/testdata/googlebench/kernels.json (see docs/import.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

static void BM_Sort(benchmark::State& state) {
  std::mt19937 rng(1);
  std::vector<int> v(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& x : v) x = static_cast<int>(rng());
    state.ResumeTiming();
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sort)->Arg(1 << 8)->Arg(1 << 12)->Unit(benchmark::kMicrosecond);

static void BM_Accumulate(benchmark::State& state) {
  std::vector<double> v(state.range(0), 1.5);
  for (auto _ : state) {
    double s = std::accumulate(v.begin(), v.end(), 0.0);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * sizeof(double));
  state.counters["elements"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Accumulate)->Arg(1 << 10)->Threads(1)->Threads(2);

static void BM_StringConcat(benchmark::State& state) {
  for (auto _ : state) {
    std::string s;
    for (int i = 0; i < 64; i++) s += std::to_string(i);
    benchmark::DoNotOptimize(s.data());
  }
}
BENCHMARK(BM_StringConcat);

// A benchmark that cannot run: Google Benchmark reports it with
// error_occurred and its message.
static void BM_ReadInput(benchmark::State& state) {
  FILE* f = std::fopen("/nonexistent/input.bin", "rb");
  if (f == nullptr) {
    state.SkipWithError("cannot open /nonexistent/input.bin");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(std::fgetc(f));
  std::fclose(f);
}
BENCHMARK(BM_ReadInput);

BENCHMARK_MAIN();
