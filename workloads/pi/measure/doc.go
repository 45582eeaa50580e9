// Package measure times a repeated operation and summarises the samples the
// way every PI backend reports them: an untimed warm-up, one monotonic-clock
// sample per repetition, all samples kept, the median with a 95% confidence
// interval from order statistics, and the coefficient of variation.
//
// A Timer runs the operation (a Go kernel in process, a Python script over a
// pipe, a fresh interpreter per sample); Run drives it, either for a fixed
// number of repetitions or, with Plan.Auto, until the confidence interval of
// the median is narrow enough or the time budget is spent. The statistics are
// computed here, once, so that every backend's numbers mean the same thing.
package measure
