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
    """The BLAS libraries mapped in this process (the ones actually used,
    whatever the build said), each as "name version": "openblas 0.3.21",
    not its path. The version is asked of the library itself, as
    threadpoolctl does, else read from its file name."""
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
    names = []
    for path in found:
        name = blas_name(path)
        if name not in names:
            names.append(name)
    # A versioned name says more than the bare one of the same library
    # (libblas.so.3 is OpenBLAS's too on Debian).
    versioned = {n.split()[0] for n in names if " " in n}
    return ", ".join(n for n in names if " " in n or (n not in versioned and not (n == "blas" and versioned)))


def blas_name(path):
    import ctypes
    import re

    try:
        lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD)
    except (OSError, AttributeError):
        lib = None
    if lib is not None:
        try:
            get = lib.openblas_get_config
            get.restype = ctypes.c_char_p
            words = get().decode("utf-8", "replace").split()
            if len(words) > 1:
                return "openblas " + words[1]
        except (AttributeError, UnicodeError):
            pass
        try:
            buf = ctypes.create_string_buffer(256)
            lib.MKL_Get_Version_String(buf, len(buf))
            m = re.search(r"Version ([0-9][^ -]*)", buf.value.decode("utf-8", "replace"))
            if m:
                return "mkl " + m.group(1)
        except AttributeError:
            pass
        try:
            get = lib.bli_info_get_version_str
            get.restype = ctypes.c_char_p
            return "blis " + get().decode("utf-8", "replace")
        except AttributeError:
            pass
    return blas_file_name(path)


def blas_file_name(path):
    """The library's name and version as its file name says them:
    libopenblasp-r0.3.21.so is "openblas 0.3.21", libmkl_rt.so.2 "mkl"."""
    import re

    base = os.path.basename(path).lower()
    m = re.match(r"lib(openblas|blis|flexiblas|mkl|atlas|blas)[a-z0-9_]*?[-_.]r?(\d+(?:\.\d+)+)", base)
    if m:
        name, version = m.group(1), m.group(2)
    else:
        m = re.match(r"lib(openblas|blis|flexiblas|mkl|atlas|blas)", base)
        if not m:
            return base
        name, version = m.group(1), None
    if name == "blas" and "openblas" in path.lower():
        name = "openblas"
    return name + (" " + version if version else "")


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
