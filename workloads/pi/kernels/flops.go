package kernels

import (
	"errors"
	"fmt"
)

// MatmulFLOPs is the operation count of one n×n by n×n product: n² dot
// products of n multiply-adds, 2n³ (Thoth's PI counted n³).
func MatmulFLOPs(n int) float64 {
	f := float64(n)
	return 2 * f * f * f
}

// ConvGeometry is one convolution: a batch of Batch inputs of InH×InW with
// InC channels, OutC filters of KH×KW, one stride for both axes and an
// explicit zero padding per side. A 1-D convolution has InH = KH = 1 and
// PadH = 0.
type ConvGeometry struct {
	Batch, InH, InW, InC int
	KH, KW, OutC         int
	Stride               int
	PadH, PadW           int
}

// OutH is the output height: floor((InH + 2·PadH − KH) / Stride) + 1.
func (g ConvGeometry) OutH() int { return (g.InH+2*g.PadH-g.KH)/g.Stride + 1 }

// OutW is the output width: floor((InW + 2·PadW − KW) / Stride) + 1.
func (g ConvGeometry) OutW() int { return (g.InW+2*g.PadW-g.KW)/g.Stride + 1 }

// FLOPs is 2·B·Hout·Wout·KH·KW·Cin·Cout: one multiply-add per filter tap,
// input channel and output channel, for every output position. (Thoth's
// formula divided the input size by the stride squared, which is wrong
// whenever the kernel overhangs or padding is used.)
func (g ConvGeometry) FLOPs() float64 {
	return 2 * float64(g.Batch) * float64(g.OutH()) * float64(g.OutW()) *
		float64(g.KH) * float64(g.KW) * float64(g.InC) * float64(g.OutC)
}

// Validate checks that the geometry describes a convolution with a
// non-empty output.
func (g ConvGeometry) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"batch", g.Batch}, {"input_height", g.InH}, {"input_width", g.InW}, {"input_channels", g.InC},
		{"filter_height", g.KH}, {"filter_width", g.KW}, {"output_channels", g.OutC}, {"strides", g.Stride}} {
		if f.v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", f.name, f.v)
		}
	}
	if g.PadH < 0 || g.PadW < 0 {
		return errors.New("padding must not be negative")
	}
	if g.InH+2*g.PadH < g.KH {
		return fmt.Errorf("filter_height %d is larger than the padded input height %d", g.KH, g.InH+2*g.PadH)
	}
	if g.InW+2*g.PadW < g.KW {
		return fmt.Errorf("filter_width %d is larger than the padded input width %d", g.KW, g.InW+2*g.PadW)
	}
	return nil
}
