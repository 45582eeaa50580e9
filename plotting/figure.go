package plotting

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/charts"
)

// Default figure size and PNG resolution.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
	PNGDPI        = 144
	// wideWidth: figures at least this wide span the whole page.
	wideWidth = 8 * vg.Inch
)

// Figure is one drawn figure with the data behind it.
type Figure struct {
	// Name is the file stem within its page ("rate_box_1024"); made of
	// lower-case letters, digits, '_', '-' and '.'.
	Name    string
	Title   string
	Alt     string // the text an <img> shows when it cannot show the figure
	Caption string
	// Data is the DataFrame the figure was drawn from, written as CSV.
	Data dataframe.DataFrame
	Plot *plot.Plot
	// Width and Height default to DefaultWidth and DefaultHeight.
	Width, Height vg.Length
	// LegendRows, when positive, moves the legend below the plot, in a
	// band of that many rows added to Height: long series names would hide
	// the data inside the plot.
	LegendRows int

	// Chart, when set, is the figure as an interactive chart: the page
	// draws it (internal/charts) over the SVG, which stays for a reader
	// without JavaScript. Generate names it.
	Chart *charts.Chart

	// SVG, PNG and CSV are the written files, relative to the page, set by
	// Generate.
	SVG, PNG, CSV string
}

var unsafeName = regexp.MustCompile(`[^a-z0-9_.-]+`)

// Slug turns a title into a file-name part: lower case, runs of anything
// but letters, digits, '.', '-' and '_' replaced by one '_'.
func Slug(s string) string {
	s = unsafeName.ReplaceAllString(strings.ToLower(s), "_")
	s = strings.Trim(s, "_.")
	if s == "" {
		return "figure"
	}
	return s
}

func (f *Figure) size() (w, h vg.Length) {
	w, h = f.Width, f.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	return w, h + f.legendHeight()
}

const (
	legendFontSize = 10.5
	tickFontSize   = 10.5
)

// WrapLegend breaks a legend entry into lines no wider than width in the
// legend's font, at ", " (the separator of label=value pairs), so that a
// legend below a figure is never cut at its edge; a part wider than width
// alone is cut with "…".
func WrapLegend(text string, width vg.Length) []string {
	fnt := font.DefaultCache.Lookup(sans, legendFontSize)
	fits := func(s string) bool { return fnt.Width(s) <= width }
	var lines []string
	line := ""
	for part := range strings.SplitSeq(text, ", ") {
		for !fits(part) && part != "" {
			r := []rune(part)
			part = string(r[:len(r)-1])
			if fits(part + "…") {
				part += "…"
				break
			}
		}
		switch {
		case line == "":
			line = part
		case fits(line + ", " + part):
			line += ", " + part
		default:
			lines = append(lines, line+",")
			line = part
		}
	}
	return append(lines, line)
}

func (f *Figure) legendHeight() vg.Length {
	if f.LegendRows <= 0 {
		return 0
	}
	return vg.Length(f.LegendRows)*vg.Points(legendFontSize*1.25+2) + vg.Points(10)
}

// drawer returns the function drawing the figure on a canvas: the plot,
// and the legend below it when LegendRows asks.
func (f *Figure) drawer() func(draw.Canvas) {
	if f.LegendRows <= 0 {
		return f.Plot.Draw
	}
	legend := f.Plot.Legend
	f.Plot.Legend = plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.XOffs = vg.Points(36)
	legend.Padding = vg.Points(2)
	lh := f.legendHeight()
	return func(c draw.Canvas) {
		c.SetColor(white)
		c.Fill(c.Rectangle.Path())
		f.Plot.Draw(draw.Crop(c, 0, 0, lh, 0))
		legend.Draw(draw.Crop(c, 0, 0, 0, -(c.Max.Y-c.Min.Y-lh)-vg.Points(4)))
	}
}

// Wide reports whether the page shows the figure across its whole width.
func (f *Figure) Wide() bool {
	w, _ := f.size()
	return w >= wideWidth
}

// PixelWidth and PixelHeight are the figure's CSS size (96 px per inch), so
// the page keeps its layout while the images load.
func (f *Figure) PixelWidth() int { w, _ := f.size(); return int(w.Points() * 96 / 72) }

// PixelHeight: see PixelWidth.
func (f *Figure) PixelHeight() int { _, h := f.size(); return int(h.Points() * 96 / 72) }

// WriteSVG draws the figure as SVG, with its legend below the plot when
// LegendRows asks (the regression report's figures, which have no PNG or
// CSV beside them).
func (f *Figure) WriteSVG(w io.Writer) error {
	width, height := f.size()
	sc := vgsvg.New(width, height)
	f.drawer()(draw.New(sc))
	if _, err := sc.WriteTo(w); err != nil {
		return fmt.Errorf("figure %s: svg: %w", f.Name, err)
	}
	return nil
}

// write draws the figure to dir/stem.svg and dir/stem.png and its data to
// dir/stem.csv, each atomically.
func (f *Figure) write(dir, stem string) error {
	w, h := f.size()
	drawFigure := f.drawer()
	var svg bytes.Buffer
	sc := vgsvg.New(w, h)
	drawFigure(draw.New(sc))
	if _, err := sc.WriteTo(&svg); err != nil {
		return fmt.Errorf("figure %s: svg: %w", f.Name, err)
	}
	var pngData bytes.Buffer
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	drawFigure(draw.New(ic))
	// Fast compression: PNG encoding would otherwise dominate the time of
	// a report, for files a few percent smaller.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&pngData, ic.Image()); err != nil {
		return fmt.Errorf("figure %s: png: %w", f.Name, err)
	}
	var csv bytes.Buffer
	if err := f.Data.WriteCSV(&csv); err != nil {
		return fmt.Errorf("figure %s: csv: %w", f.Name, err)
	}
	for ext, data := range map[string][]byte{".svg": svg.Bytes(), ".png": pngData.Bytes(), ".csv": csv.Bytes()} {
		if err := atomicfile.WriteFileNoSync(filepath.Join(dir, stem+ext), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// mkdirAll creates an output directory, naming it in the error.
func mkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	return nil
}

// sans is the font of every text in a figure: Liberation Sans, embedded in
// gonum/plot, so the figures look the same on every machine.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// palette is Tableau 10: distinguishable, and readable by most colour-blind
// readers.
var palette = []color.NRGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff},
	{0x76, 0xb7, 0xb2, 0xff}, {0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff},
	{0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff},
	{0xba, 0xb0, 0xac, 0xff},
}

// Color returns the i-th colour of the palette, cycling.
func Color(i int) color.NRGBA { return palette[i%len(palette)] }

func withAlpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

// darker is c at two thirds of its brightness, for outlines and dots.
func darker(c color.NRGBA) color.NRGBA {
	return color.NRGBA{R: uint8(int(c.R) * 2 / 3), G: uint8(int(c.G) * 2 / 3), B: uint8(int(c.B) * 2 / 3), A: c.A}
}

var (
	gridColor = color.NRGBA{0xe3, 0xe6, 0xea, 0xff}
	inkColor  = color.NRGBA{0x33, 0x33, 0x33, 0xff}
	markColor = color.NRGBA{0xc0, 0x1c, 0x28, 0xff}
	white     = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// NewPlot returns an empty plot in the house style of every figure of
// Seshat (fonts, grid, plain decimal ticks), for figures drawn outside
// this package.
func NewPlot(title, xLabel, yLabel string) *plot.Plot {
	p := newPlot(title, xLabel, yLabel)
	p.Y.Tick.Marker = NumberTicks{}
	return p
}

// newPlot returns a plot with the house style: sans fonts, light grid, no
// frame on the data.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 13.5)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 12)
		a.Tick.Label.Font = font.From(sans, tickFontSize)
		a.Color, a.Tick.Color = inkColor, inkColor
		a.Label.TextStyle.Color, a.Tick.Label.Color = inkColor, inkColor
		a.Tick.Marker = precTicks{}
	}
	p.Legend.TextStyle.Font = font.From(sans, legendFontSize)
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	g.Vertical.Width = 0
	p.Add(g)
	return p
}

// Length and Inch let workloads size figures without importing vg.
type Length = vg.Length

// Inch is one inch.
const Inch = vg.Inch
