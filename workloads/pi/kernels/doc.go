// Package kernels holds the pure-Go PI operations on gonum BLAS (matrix
// multiplication with Sgemm/Dgemm, convolution as im2col + gemm) and the
// FLOP counts every backend reports, so that a rate means the same on gonum,
// numpy and torch.
//
// Inputs are random, seeded and non-zero: gonum's gemm skips zero elements,
// so zero inputs would measure a shortcut instead of the arithmetic.
package kernels
