# Seshat import PI: the time of one `import MODULE` in this fresh
# interpreter, written as JSON on file descriptor 3.
import importlib
import json
import os
import sys
import time

proto = os.fdopen(3, "w")
name = sys.argv[1]
t0 = time.perf_counter_ns()
try:
    mod = importlib.import_module(name)
except ImportError as e:
    json.dump({"error": "cannot import %s: %s" % (e.name, e), "missing_module": e.name or ""}, proto)
    proto.close()
    sys.exit(3)
t1 = time.perf_counter_ns()
versions = {"python": "%d.%d.%d" % sys.version_info[:3], "python_executable": sys.executable}
version = getattr(mod, "__version__", "")
if version:
    versions[name] = str(version)
json.dump({"elapsed_ms": (t1 - t0) / 1e6, "versions": versions}, proto)
proto.close()
