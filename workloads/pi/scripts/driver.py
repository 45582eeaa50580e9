# Seshat PI driver: answers timing requests for the operation that setup()
# builds. See workloads/pi/scripts/doc.go for the protocol.
import json
import os
import sys
import time

_proto = None


def send(obj):
    _proto.write(json.dumps(obj) + "\n")
    _proto.flush()


def blas_libraries():
    """Shared libraries mapped in this process that provide BLAS: the one
    actually used, whatever the build said."""
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 6:
                    continue
                path = parts[5]
                base = os.path.basename(path).lower()
                if any(k in base for k in ("blas", "mkl_", "libblis", "atlas")) and path not in found:
                    found.append(path)
    except OSError:
        pass
    return ",".join(found)


class Bench:
    """What setup() returns: the operation, a device synchronisation (a
    no-op on the CPU) and the versions to report."""

    def __init__(self, op, sync, versions):
        self.op = op
        self.sync = sync
        self.versions = versions


def main(setup):
    global _proto
    _proto = os.fdopen(3, "w", buffering=1)
    params = json.loads(sys.argv[1])
    try:
        bench = setup(params)
    except ImportError as e:
        send({"error": "cannot import %s: %s" % (e.name, e), "missing_module": e.name or ""})
        sys.exit(3)
    except Exception as e:  # reported to the Go side, which fails the run
        send({"error": "%s: %s" % (type(e).__name__, e)})
        sys.exit(1)
    versions = {"python": "%d.%d.%d" % sys.version_info[:3], "python_executable": sys.executable}
    versions.update(bench.versions)
    send({"ready": {"versions": {k: str(v) for k, v in versions.items() if v not in (None, "")}}})

    op, sync = bench.op, bench.sync
    clock = time.perf_counter_ns  # monotonic, highest resolution
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "warmup" in req:
                for _ in range(int(req["warmup"])):
                    op()
                sync()
                send({"done": True})
            elif "time" in req:
                samples = []
                for _ in range(int(req["time"])):
                    sync()
                    t0 = clock()
                    op()
                    sync()  # the clock stops when the device is done
                    samples.append((clock() - t0) / 1e6)
                send({"samples_ms": samples})
            else:
                send({"error": "unknown request %r" % (req,)})
                sys.exit(1)
        except Exception as e:
            send({"error": "%s: %s" % (type(e).__name__, e)})
            sys.exit(1)
