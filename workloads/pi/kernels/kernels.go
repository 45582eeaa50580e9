package kernels

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Float is the element type of a gonum kernel.
type Float interface{ float32 | float64 }

// gemm computes C = A·op(B) with gonum's pure-Go BLAS (Sgemm or Dgemm).
// a is m×k; b is k×n, or n×k when transB; c is m×n; all row-major, packed.
func gemm[T Float](transB bool, m, n, k int, a, b, c []T) {
	tb := blas.NoTrans
	bRows, bCols := k, n
	if transB {
		tb, bRows, bCols = blas.Trans, n, k
	}
	switch a := any(a).(type) {
	case []float32:
		blas32.Gemm(blas.NoTrans, tb, 1,
			blas32.General{Rows: m, Cols: k, Stride: k, Data: a},
			blas32.General{Rows: bRows, Cols: bCols, Stride: bCols, Data: any(b).([]float32)},
			0, blas32.General{Rows: m, Cols: n, Stride: n, Data: any(c).([]float32)})
	case []float64:
		blas64.Gemm(blas.NoTrans, tb, 1,
			blas64.General{Rows: m, Cols: k, Stride: k, Data: a},
			blas64.General{Rows: bRows, Cols: bCols, Stride: bCols, Data: any(b).([]float64)},
			0, blas64.General{Rows: m, Cols: n, Stride: n, Data: any(c).([]float64)})
	}
}

// randomNonZero fills a new slice with values uniform in [0.5, 1.5): never
// zero, never denormal, no cancellation to zero either.
func randomNonZero[T Float](r *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(0.5 + r.Float64())
	}
	return s
}

// Matmul multiplies two random n×n matrices.
type Matmul[T Float] struct {
	N       int
	A, B, C []T
}

// NewMatmul allocates the operands of an n×n product, filled from seed.
func NewMatmul[T Float](n int, seed uint64) *Matmul[T] {
	r := rand.New(rand.NewPCG(seed, 0x5e5a7))
	return &Matmul[T]{N: n, A: randomNonZero[T](r, n*n), B: randomNonZero[T](r, n*n), C: make([]T, n*n)}
}

// Run computes C = A·B once.
func (m *Matmul[T]) Run() { gemm(false, m.N, m.N, m.N, m.A, m.B, m.C) }

// Conv is a convolution computed as im2col followed by one gemm per image
// (channels first) or one gemm for the batch (channels last), the way CPU
// frameworks lower it.
type Conv[T Float] struct {
	G ConvGeometry
	// ChannelsLast selects NHWC (NWC) layouts; otherwise NCHW (NCW).
	ChannelsLast bool
	// Input is B×C×H×W or B×H×W×C; Weights is Cout×Cin×KH×KW for channels
	// first, Cout×KH×KW×Cin for channels last; Output follows Input's layout.
	Input, Weights, Output []T
	cols                   []T
}

// NewConv allocates the tensors of g, filled from seed.
func NewConv[T Float](g ConvGeometry, channelsLast bool, seed uint64) (*Conv[T], error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0xc0417))
	oh, ow := g.OutH(), g.OutW()
	patch := g.KH * g.KW * g.InC
	c := &Conv[T]{
		G:            g,
		ChannelsLast: channelsLast,
		Input:        randomNonZero[T](r, g.Batch*g.InC*g.InH*g.InW),
		Weights:      randomNonZero[T](r, g.OutC*patch),
		Output:       make([]T, g.Batch*g.OutC*oh*ow),
	}
	if channelsLast {
		c.cols = make([]T, g.Batch*oh*ow*patch)
	} else {
		c.cols = make([]T, patch*oh*ow)
	}
	return c, nil
}

// Run computes the convolution once.
func (c *Conv[T]) Run() {
	g := c.G
	oh, ow := g.OutH(), g.OutW()
	patch := g.KH * g.KW * g.InC
	if c.ChannelsLast {
		c.im2colNHWC()
		// (B·OH·OW × patch) · (Cout × patch)ᵀ -> B·OH·OW × Cout, i.e. NHWC.
		gemm(true, g.Batch*oh*ow, g.OutC, patch, c.cols, c.Weights, c.Output)
		return
	}
	img := g.InC * g.InH * g.InW
	out := g.OutC * oh * ow
	for b := 0; b < g.Batch; b++ {
		c.im2colNCHW(c.Input[b*img : (b+1)*img])
		// (Cout × patch) · (patch × OH·OW) -> Cout × OH·OW, image b of NCHW.
		gemm(false, g.OutC, oh*ow, patch, c.Weights, c.cols, c.Output[b*out:(b+1)*out])
	}
}

// im2colNCHW lays out one image as a patch × (OH·OW) matrix: row
// (c, kh, kw), column (oh, ow); taps that fall in the padding are zero.
func (c *Conv[T]) im2colNCHW(img []T) {
	g := c.G
	oh, ow := g.OutH(), g.OutW()
	row := 0
	for ch := 0; ch < g.InC; ch++ {
		plane := img[ch*g.InH*g.InW : (ch+1)*g.InH*g.InW]
		for kh := 0; kh < g.KH; kh++ {
			for kw := 0; kw < g.KW; kw++ {
				dst := c.cols[row*oh*ow : (row+1)*oh*ow]
				for y := 0; y < oh; y++ {
					ih := y*g.Stride + kh - g.PadH
					d := dst[y*ow : (y+1)*ow]
					if ih < 0 || ih >= g.InH {
						clear(d)
						continue
					}
					src := plane[ih*g.InW : (ih+1)*g.InW]
					for x := range d {
						iw := x*g.Stride + kw - g.PadW
						if iw < 0 || iw >= g.InW {
							d[x] = 0
						} else {
							d[x] = src[iw]
						}
					}
				}
				row++
			}
		}
	}
}

// im2colNHWC lays out the whole batch as a (B·OH·OW) × patch matrix: row
// (b, oh, ow), column (kh, kw, c), channels contiguous as in the input.
func (c *Conv[T]) im2colNHWC() {
	g := c.G
	oh, ow := g.OutH(), g.OutW()
	patch := g.KH * g.KW * g.InC
	row := 0
	for b := 0; b < g.Batch; b++ {
		img := c.Input[b*g.InH*g.InW*g.InC : (b+1)*g.InH*g.InW*g.InC]
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				dst := c.cols[row*patch : (row+1)*patch]
				for kh := 0; kh < g.KH; kh++ {
					ih := y*g.Stride + kh - g.PadH
					for kw := 0; kw < g.KW; kw++ {
						iw := x*g.Stride + kw - g.PadW
						d := dst[(kh*g.KW+kw)*g.InC : (kh*g.KW+kw+1)*g.InC]
						if ih < 0 || ih >= g.InH || iw < 0 || iw >= g.InW {
							clear(d)
							continue
						}
						copy(d, img[(ih*g.InW+iw)*g.InC:])
					}
				}
				row++
			}
		}
	}
}

// String describes the geometry for messages.
func (g ConvGeometry) String() string {
	return fmt.Sprintf("batch %d, input %dx%dx%d, filter %dx%d, %d outputs, stride %d, padding %d/%d",
		g.Batch, g.InH, g.InW, g.InC, g.KH, g.KW, g.OutC, g.Stride, g.PadH, g.PadW)
}
