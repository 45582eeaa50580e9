// Package cpdscore scores change points against labelled ones the way
// TCPDBench does (van den Burg and Williams, "An Evaluation of Change
// Point Detection Algorithms", 2020, analysis/scripts/metrics.py): true
// positives within a margin, one-to-one, and the F1 over every annotator.
// bench/tcpd and bench/realdata share it.
package cpdscore
