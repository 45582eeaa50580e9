// benches/kernels.rs: the criterion benchmarks whose target/criterion tree is
// importers/testdata/criterion/ (see docs/import.md).
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;

fn fib(n: u64) -> u64 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

fn bench_fib(c: &mut Criterion) {
    let mut group = c.benchmark_group("fib");
    for n in [10u64, 15] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| b.iter(|| fib(black_box(n))));
    }
    group.finish();
}

fn bench_sum(c: &mut Criterion) {
    let v: Vec<u64> = (0..4096).collect();
    let mut group = c.benchmark_group("sum");
    group.throughput(Throughput::Bytes((v.len() * 8) as u64));
    group.bench_function("iter", |b| b.iter(|| black_box(&v).iter().sum::<u64>()));
    group.finish();
}

fn bench_format(c: &mut Criterion) {
    c.bench_function("format_u64", |b| b.iter(|| format!("{}", black_box(1234567890u64))));
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .without_plots()
}

criterion_group! { name = benches; config = config(); targets = bench_fib, bench_sum, bench_format }
criterion_main!(benches);
