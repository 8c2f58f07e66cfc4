package study

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// point is a position in pixels, y down.
type point struct{ X, Y float32 }

// fill paints the polygons (each closed) in col, anti-aliased, with a
// rasterizer the size of their bounding box rather than of the image, so
// a small marker costs a small buffer.
func fill(img *image.RGBA, col color.RGBA, polys ...[]point) {
	if len(polys) == 0 {
		return
	}
	box := image.Rectangle{Min: image.Pt(math.MaxInt32, math.MaxInt32), Max: image.Pt(math.MinInt32, math.MinInt32)}
	for _, poly := range polys {
		for _, p := range poly {
			box.Min.X = min(box.Min.X, int(math.Floor(float64(p.X))))
			box.Min.Y = min(box.Min.Y, int(math.Floor(float64(p.Y))))
			box.Max.X = max(box.Max.X, int(math.Ceil(float64(p.X))))
			box.Max.Y = max(box.Max.Y, int(math.Ceil(float64(p.Y))))
		}
	}
	clipped := box.Intersect(img.Bounds())
	if clipped.Empty() {
		return
	}
	z := vector.NewRasterizer(clipped.Dx(), clipped.Dy())
	ox, oy := float32(clipped.Min.X), float32(clipped.Min.Y)
	for _, poly := range polys {
		z.MoveTo(poly[0].X-ox, poly[0].Y-oy)
		for _, p := range poly[1:] {
			z.LineTo(p.X-ox, p.Y-oy)
		}
		z.ClosePath()
	}
	z.DrawOp = draw.Over
	z.Draw(img, clipped, image.NewUniform(col), image.Point{})
}

// strokePolyline returns the polygons of a line width pixels wide through
// pts: a rectangle along each segment and a disc at each inner joint, so
// bends have no notch. The rectangles all wind the same way, so where they
// overlap the coverage adds up instead of cancelling.
func strokePolyline(pts []point, width float32) [][]point {
	var out [][]point
	h := width / 2
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b.X-a.X, b.Y-a.Y
		l := float32(math.Hypot(float64(dx), float64(dy)))
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*h, dx/l*h
		out = append(out, []point{{a.X + nx, a.Y + ny}, {b.X + nx, b.Y + ny}, {b.X - nx, b.Y - ny}, {a.X - nx, a.Y - ny}})
		if i < len(pts)-1 {
			out = append(out, regular(b, h, 12, 0))
		}
	}
	return out
}

// errorBar is a vertical bar from y0 to y1 at x, with short caps at both
// ends.
func errorBar(x, y0, y1 float32) [][]point {
	const w, c = 0.5, 3 // half-widths of the bar and of its caps, pixels
	box := func(x0, y0, x1, y1 float32) []point { return []point{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}} }
	return [][]point{
		box(x-w, min(y0, y1), x+w, max(y0, y1)),
		box(x-c, y0-w, x+c, y0+w),
		box(x-c, y1-w, x+c, y1+w),
	}
}

// marker is the shape of line i's points, centred on p, about r pixels in
// radius: a disc, a square, triangles up and down, a diamond and a
// pentagon in turn, so lines of similar colours still differ.
func marker(i int, p point, r float32) []point {
	switch i % 6 {
	case 1:
		return regular(p, r*1.15, 4, math.Pi/4) // square
	case 2:
		return regular(p, r*1.3, 3, -math.Pi/2) // triangle up
	case 3:
		return regular(p, r*1.3, 4, 0) // diamond
	case 4:
		return regular(p, r*1.3, 3, math.Pi/2) // triangle down
	case 5:
		return regular(p, r*1.15, 5, -math.Pi/2) // pentagon
	}
	return regular(p, r, 16, 0) // disc
}

// regular is the regular polygon of n corners at distance r from c, the
// first at angle phase (radians, clockwise from the x axis since y is down).
func regular(c point, r float32, n int, phase float64) []point {
	out := make([]point, n)
	for k := range out {
		a := phase + 2*math.Pi*float64(k)/float64(n)
		out[k] = point{c.X + r*float32(math.Cos(a)), c.Y + r*float32(math.Sin(a))}
	}
	return out
}
