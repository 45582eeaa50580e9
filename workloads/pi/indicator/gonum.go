package indicator

import (
	"runtime"
	"runtime/debug"

	"github.com/seshat-bench/seshat/workloads/pi/kernels"
	"github.com/seshat-bench/seshat/workloads/pi/measure"
)

// gonumTimer builds the in-process kernel of p.
func gonumTimer(p *Params) (measure.Timer, map[string]string, error) {
	if p.Threads > 0 {
		// gonum's gemm splits work over GOMAXPROCS goroutines.
		runtime.GOMAXPROCS(p.Threads)
	}
	versions := map[string]string{"go": runtime.Version()}
	if v := moduleVersion("gonum.org/v1/gonum"); v != "" {
		versions["gonum"] = v
	}
	var run func()
	switch p.PI {
	case "matmul":
		if p.Dtype == "float32" {
			run = kernels.NewMatmul[float32](p.MatrixSize, p.Seed).Run
		} else {
			run = kernels.NewMatmul[float64](p.MatrixSize, p.Seed).Run
		}
	default: // conv1d, conv2d
		if p.Dtype == "float32" {
			c, err := kernels.NewConv[float32](p.Conv, p.ChannelsLast, p.Seed)
			if err != nil {
				return nil, nil, err
			}
			run = c.Run
		} else {
			c, err := kernels.NewConv[float64](p.Conv, p.ChannelsLast, p.Seed)
			if err != nil {
				return nil, nil, err
			}
			run = c.Run
		}
	}
	return measure.FuncTimer(run), versions, nil
}

// moduleVersion is the version of a module linked into this binary.
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range info.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}
