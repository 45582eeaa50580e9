// Package pi is the built-in performance-indicator workload: Thoth-style
// microbenchmarks (matmul, conv1d, conv2d, import time, exec) and the parser
// of the run directories they produce.
package pi
