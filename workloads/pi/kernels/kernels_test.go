package kernels

import (
	"math"
	"testing"
)

func TestMatmulFLOPs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want float64
	}{{1, 2}, {2, 16}, {512, 268435456}, {4096, 137438953472}} {
		if got := MatmulFLOPs(tc.n); got != tc.want {
			t.Errorf("MatmulFLOPs(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestConvFLOPs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		g          ConvGeometry
		outH, outW int
		flops      float64
	}{
		{
			// Thoth's conv2d defaults: 4×1×700×161, 20×5 filters, 32 outputs, stride 2, padding 1.
			name: "thoth conv2d defaults",
			g:    ConvGeometry{Batch: 4, InH: 700, InW: 161, InC: 1, KH: 20, KW: 5, OutC: 32, Stride: 2, PadH: 1, PadW: 1},
			outH: 342, outW: 80,
			flops: 2 * 4 * 342 * 80 * 20 * 5 * 1 * 32,
		},
		{
			name: "valid 3x3 stride 1",
			g:    ConvGeometry{Batch: 2, InH: 8, InW: 8, InC: 3, KH: 3, KW: 3, OutC: 4, Stride: 1},
			outH: 6, outW: 6,
			flops: 2 * 2 * 6 * 6 * 3 * 3 * 3 * 4,
		},
		{
			name: "conv1d: height 1",
			g:    ConvGeometry{Batch: 4, InH: 1, InW: 161, InC: 5, KH: 1, KW: 5, OutC: 32, Stride: 2, PadW: 1},
			outH: 1, outW: 80,
			flops: 2 * 4 * 80 * 5 * 5 * 32,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.g.OutH() != tc.outH || tc.g.OutW() != tc.outW {
				t.Errorf("output %dx%d, want %dx%d", tc.g.OutH(), tc.g.OutW(), tc.outH, tc.outW)
			}
			if got := tc.g.FLOPs(); got != tc.flops {
				t.Errorf("FLOPs = %v, want %v", got, tc.flops)
			}
		})
	}
}

func TestConvGeometryValidate(t *testing.T) {
	t.Parallel()
	ok := ConvGeometry{Batch: 1, InH: 4, InW: 4, InC: 1, KH: 3, KW: 3, OutC: 1, Stride: 1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []ConvGeometry{
		func() ConvGeometry { g := ok; g.Stride = 0; return g }(),
		func() ConvGeometry { g := ok; g.KH = 5; return g }(),
		func() ConvGeometry { g := ok; g.PadW = -1; return g }(),
		func() ConvGeometry { g := ok; g.OutC = 0; return g }(),
	}
	for _, g := range bad {
		if err := g.Validate(); err == nil {
			t.Errorf("%v accepted", g)
		}
	}
}

func TestMatmulComputesTheProduct(t *testing.T) {
	t.Parallel()
	m := NewMatmul[float64](7, 1)
	m.Run()
	for i := 0; i < 7; i++ {
		for j := 0; j < 7; j++ {
			var want float64
			for k := 0; k < 7; k++ {
				want += m.A[i*7+k] * m.B[k*7+j]
			}
			if math.Abs(m.C[i*7+j]-want) > 1e-12 {
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, m.C[i*7+j], want)
			}
		}
	}
	f := NewMatmul[float32](5, 1)
	f.Run()
	for _, v := range append(append([]float32{}, f.A...), f.C...) {
		if v == 0 {
			t.Fatal("inputs and products must be non-zero")
		}
	}
}

// directConv is the textbook definition, in NCHW with Cout×Cin×KH×KW weights.
func directConv(g ConvGeometry, in, w []float64) []float64 {
	oh, ow := g.OutH(), g.OutW()
	out := make([]float64, g.Batch*g.OutC*oh*ow)
	for b := 0; b < g.Batch; b++ {
		for o := 0; o < g.OutC; o++ {
			for y := 0; y < oh; y++ {
				for x := 0; x < ow; x++ {
					var s float64
					for c := 0; c < g.InC; c++ {
						for kh := 0; kh < g.KH; kh++ {
							for kw := 0; kw < g.KW; kw++ {
								ih, iw := y*g.Stride+kh-g.PadH, x*g.Stride+kw-g.PadW
								if ih < 0 || ih >= g.InH || iw < 0 || iw >= g.InW {
									continue
								}
								s += in[((b*g.InC+c)*g.InH+ih)*g.InW+iw] * w[((o*g.InC+c)*g.KH+kh)*g.KW+kw]
							}
						}
					}
					out[((b*g.OutC+o)*oh+y)*ow+x] = s
				}
			}
		}
	}
	return out
}

func TestConvMatchesDirectDefinition(t *testing.T) {
	t.Parallel()
	geoms := map[string]ConvGeometry{
		"2d stride 2 padding 1": {Batch: 2, InH: 9, InW: 7, InC: 3, KH: 3, KW: 2, OutC: 4, Stride: 2, PadH: 1, PadW: 1},
		"2d valid":              {Batch: 1, InH: 5, InW: 6, InC: 2, KH: 5, KW: 1, OutC: 3, Stride: 1},
		"1d":                    {Batch: 3, InH: 1, InW: 17, InC: 5, KH: 1, KW: 5, OutC: 6, Stride: 2, PadW: 2},
	}
	for name, g := range geoms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cf, err := NewConv[float64](g, false, 3)
			if err != nil {
				t.Fatal(err)
			}
			cf.Run()
			want := directConv(g, cf.Input, cf.Weights)
			assertClose(t, "NCHW", cf.Output, want)

			// Same tensors in channels-last layouts must give the same numbers.
			cl, err := NewConv[float64](g, true, 3)
			if err != nil {
				t.Fatal(err)
			}
			oh, ow := g.OutH(), g.OutW()
			for b := 0; b < g.Batch; b++ {
				for c := 0; c < g.InC; c++ {
					for h := 0; h < g.InH; h++ {
						for w := 0; w < g.InW; w++ {
							cl.Input[((b*g.InH+h)*g.InW+w)*g.InC+c] = cf.Input[((b*g.InC+c)*g.InH+h)*g.InW+w]
						}
					}
				}
			}
			for o := 0; o < g.OutC; o++ {
				for c := 0; c < g.InC; c++ {
					for kh := 0; kh < g.KH; kh++ {
						for kw := 0; kw < g.KW; kw++ {
							cl.Weights[((o*g.KH+kh)*g.KW+kw)*g.InC+c] = cf.Weights[((o*g.InC+c)*g.KH+kh)*g.KW+kw]
						}
					}
				}
			}
			cl.Run()
			got := make([]float64, len(want))
			for b := 0; b < g.Batch; b++ {
				for o := 0; o < g.OutC; o++ {
					for y := 0; y < oh; y++ {
						for x := 0; x < ow; x++ {
							got[((b*g.OutC+o)*oh+y)*ow+x] = cl.Output[((b*oh+y)*ow+x)*g.OutC+o]
						}
					}
				}
			}
			assertClose(t, "NHWC", got, want)
		})
	}
}

func assertClose(t *testing.T, layout string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", layout, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Abs(want[i]) {
			t.Fatalf("%s: output %d = %v, want %v", layout, i, got[i], want[i])
		}
	}
}

func BenchmarkMatmul256(b *testing.B) {
	m := NewMatmul[float64](256, 1)
	b.SetBytes(0)
	for b.Loop() {
		m.Run()
	}
	b.ReportMetric(MatmulFLOPs(256)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}
