import json


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_dot(benchmark):
    a = list(range(256))
    b = list(range(256, 0, -1))
    assert benchmark(dot, a, b) > 0


def test_sort(benchmark):
    data = [(i * 7919) % 1000 for i in range(1000)]
    result = benchmark(sorted, data)
    assert result[0] == 0


def test_json_roundtrip(benchmark):
    doc = {"k%d" % i: list(range(10)) for i in range(50)}
    benchmark.extra_info["keys"] = len(doc)
    assert benchmark(lambda: json.loads(json.dumps(doc))) == doc


import pytest


@pytest.mark.parametrize("n", [100, 1000])
def test_sum(benchmark, n):
    values = list(range(n))
    assert benchmark(sum, values) == n * (n - 1) // 2
