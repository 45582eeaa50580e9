package plotting

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
)

func sampleFrame() dataframe.DataFrame {
	return dataframe.New(
		series.New([]string{"a", "a", "a", "b", "b", "b", "b"}, series.String, "group"),
		series.New([]float64{1, 2, 3, 5, 6, 6.5, 7}, series.Float, "value"),
		series.New([]float64{0.5, 1.5, 2.5, 4.5, 5.5, 6, 6.5}, series.Float, "lo"),
		series.New([]float64{1.5, 2.5, 3.5, 5.5, 6.5, 7, 7.5}, series.Float, "hi"),
		series.New([]float64{64, 128, 256, 64, 128, 256, 512}, series.Float, "x"),
		series.New([]float64{1.7e9, 1.7e9 + 86400, 1.7e9 + 2*86400, 1.7e9, 1.7e9 + 86400, 1.7e9 + 2*86400, 1.7e9 + 3*86400}, series.Float, "t"),
		series.New([]bool{false, false, true, false, false, false, false}, series.Bool, "mark"),
	)
}

// drawings are one of each drawing function on sampleFrame.
var drawings = map[string]func(df dataframe.DataFrame) (*plot.Plot, error){
	"box": func(df dataframe.DataFrame) (*plot.Plot, error) {
		return Distribution(df, DistSpec{Title: "box", Group: "group", Value: "value"})
	},
	"violin": func(df dataframe.DataFrame) (*plot.Plot, error) {
		return Distribution(df, DistSpec{Title: "violin", Group: "group", Value: "value", Violin: true})
	},
	"band": func(df dataframe.DataFrame) (*plot.Plot, error) {
		return Band(df, BandSpec{Title: "band", Group: "group", X: "x", Y: "value", Lo: "lo", Hi: "hi", LogX: true, LogY: true})
	},
	"points": func(df dataframe.DataFrame) (*plot.Plot, error) {
		return Points(df, PointsSpec{Title: "points", Category: "group", Group: "group", Y: "value", Lo: "lo", Hi: "hi", Mean: "value"})
	},
	"intervals": func(df dataframe.DataFrame) (*plot.Plot, error) {
		return Intervals(df, IntervalSpec{Title: "intervals", Label: "group", X: "value", Lo: "lo", Hi: "hi", Reference: 1, LogX: true})
	},
	"time": func(df dataframe.DataFrame) (*plot.Plot, error) {
		return Time(df, TimeSpec{Title: "time", Series: "group", Time: "t", Value: "value", Mark: "mark"})
	},
}

// A figure drawn twice from the same data gives the same SVG bytes, with
// the embedded font named, a PNG that decodes and the data as CSV.
func TestFiguresAreDeterministic(t *testing.T) {
	t.Parallel()
	for name, draw := range drawings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var svgs [2][]byte
			for i := range svgs {
				p, err := draw(sampleFrame())
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				f := &Figure{Name: name, Data: sampleFrame(), Plot: p, LegendRows: 2}
				if err := f.write(dir, name); err != nil {
					t.Fatal(err)
				}
				if svgs[i], err = os.ReadFile(filepath.Join(dir, name+".svg")); err != nil {
					t.Fatal(err)
				}
				pngData, err := os.ReadFile(filepath.Join(dir, name+".png"))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(pngData))
				if err != nil {
					t.Fatalf("png: %v", err)
				}
				if b := img.Bounds(); b.Dx() != int(f.PixelWidth()*PNGDPI/96) {
					t.Errorf("png is %dx%d px, want %d px wide at %d dpi", b.Dx(), b.Dy(), f.PixelWidth()*PNGDPI/96, PNGDPI)
				}
				csv, err := os.ReadFile(filepath.Join(dir, name+".csv"))
				if err != nil || !strings.HasPrefix(string(csv), "group,value,lo,hi,x,t,mark\n") {
					t.Errorf("csv: %v %q", err, csv)
				}
			}
			if !bytes.Equal(svgs[0], svgs[1]) {
				t.Error("two drawings of the same data differ")
			}
			if !bytes.Contains(svgs[0], []byte("font-family:Liberation Sans")) {
				t.Error("svg does not use Liberation Sans")
			}
		})
	}
}

func TestDrawingsNameMissingColumns(t *testing.T) {
	t.Parallel()
	df := dataframe.New(series.New([]string{"a"}, series.String, "other"))
	for name, draw := range drawings {
		if _, err := draw(df); err == nil || !strings.Contains(err.Error(), "has no column") {
			t.Errorf("%s: error %v, want one naming the missing column", name, err)
		}
	}
}
