// Package scripts embeds the Python programs of the numpy and torch PIs, so
// that the seshat binary carries everything a run needs.
//
// A benchmark program is the protocol driver (driver.py) followed by one
// backend (numpy_pi.py, torch_pi.py) defining setup(params). It is run as
// `python -c PROGRAM PARAMS_JSON` with requests on stdin and answers, one
// JSON object a line, on file descriptor 3, so that anything a framework
// prints on stdout cannot corrupt the protocol:
//
//	-> (start)             <- {"ready": {"versions": {...}}}  or {"error": ..., "missing_module": ...}
//	-> {"warmup": N}       <- {"done": true}
//	-> {"time": N}         <- {"samples_ms": [...]}
//	-> (stdin closed)         the program exits 0
//
// The Go side (workloads/pi/indicator) decides how many repetitions to run
// and computes every statistic, so all backends are summarised alike.
//
// import_pi.py times one `import MODULE` in a fresh interpreter and writes
// {"elapsed_ms": ..., "versions": {...}} on descriptor 3.
package scripts
