package trace

import (
	"bufio"
	"image"
	"image/color"
	"image/gif"
	"io"

	"github.com/nqueens/nqueens/render"
)

// Frame delays of the GIF, in hundredths of a second.
const (
	stepDelay     = 35  // about three steps a second: slow enough to follow
	solutionDelay = 200 // a solution stays two seconds
	lastDelay     = 300 // and the last frame three, before the film loops
)

// gifPalette is every colour a frame uses, and the blends that
// anti-aliased glyphs and text make with the fills under them.
func gifPalette() color.Palette {
	pal := render.Colors()
	fills := []color.RGBA{pal.Background, pal.Light, pal.Dark, solutionC, conflictC, pal.Frame}
	for _, c := range []color.RGBA{pal.Light, pal.Dark} {
		fills = append(fills, mix(c, shadeTint, 0.45))
	}
	inks := []color.RGBA{pal.Queen, ghostC, pal.Text, attackerC}
	p := color.Palette{color.RGBA{}} // index 0, transparent: "as the frame before"
	seen := map[color.RGBA]bool{}
	add := func(c color.RGBA) {
		if !seen[c] {
			seen[c] = true
			p = append(p, c)
		}
	}
	for _, c := range append(fills, inks...) {
		add(c)
	}
	for _, ink := range inks {
		for _, f := range fills {
			for _, t := range []float64{0.2, 0.4, 0.6, 0.8} {
				add(mix(f, ink, t))
			}
		}
	}
	return p[:min(len(p), 256)]
}

// quantizer maps RGBA pixels to the palette, remembering each colour's
// index: the frames hold a few dozen colours, so the search runs once each.
type quantizer struct {
	pal   color.Palette
	index map[color.RGBA]uint8
}

func (q *quantizer) at(c color.RGBA) uint8 {
	if i, ok := q.index[c]; ok {
		return i
	}
	i := uint8(q.pal.Index(c))
	q.index[c] = i
	return i
}

// WriteGIF writes t as an animated GIF, one frame per recorded step, looping
// forever. After the first frame, each frame holds only the rectangle that
// changed since the one before, and in it the pixels that did not change
// are transparent (index 0), so a step costs a few hundred bytes.
func WriteGIF(w io.Writer, t *Trace) error {
	p := newPainter(t.N)
	defer p.close()
	g := p.g
	q := &quantizer{pal: gifPalette(), index: map[color.RGBA]uint8{}}
	bounds := image.Rect(0, 0, g.Width, g.Height)
	cur, prev := image.NewRGBA(bounds), image.NewRGBA(bounds)
	anim := &gif.GIF{Config: image.Config{ColorModel: q.pal, Width: g.Width, Height: g.Height}}
	t.Frames(func(f Frame) bool {
		p.paint(cur, t, f)
		r := bounds
		if f.Index > 0 {
			r = changed(prev, cur)
		}
		frame := image.NewPaletted(r, q.pal) // all transparent: unchanged
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if c := cur.RGBAAt(x, y); f.Index == 0 || c != prev.RGBAAt(x, y) {
					frame.Pix[frame.PixOffset(x, y)] = q.at(c)
				}
			}
		}
		delay := stepDelay
		if f.Step.Kind == Solution {
			delay = solutionDelay
		}
		if f.Index == len(t.Steps)-1 {
			delay = max(delay, lastDelay)
		}
		anim.Image = append(anim.Image, frame)
		anim.Delay = append(anim.Delay, delay)
		anim.Disposal = append(anim.Disposal, gif.DisposalNone)
		cur, prev = prev, cur
		return true
	})
	bw := bufio.NewWriter(w)
	if err := gif.EncodeAll(bw, anim); err != nil {
		return err
	}
	return bw.Flush()
}

// changed is the smallest rectangle holding every pixel that differs
// between a and b (at least one pixel: a GIF frame cannot be empty).
func changed(a, b *image.RGBA) image.Rectangle {
	r := image.Rectangle{}
	bd := a.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		row := a.PixOffset(0, y)
		pa, pb := a.Pix[row:row+4*bd.Dx()], b.Pix[row:row+4*bd.Dx()]
		if string(pa) == string(pb) {
			continue
		}
		lo, hi := 0, bd.Dx()-1
		for lo < hi && string(pa[4*lo:4*lo+4]) == string(pb[4*lo:4*lo+4]) {
			lo++
		}
		for hi > lo && string(pa[4*hi:4*hi+4]) == string(pb[4*hi:4*hi+4]) {
			hi--
		}
		r = r.Union(image.Rect(lo, y, hi+1, y+1))
	}
	if r.Empty() {
		r = image.Rect(0, 0, 1, 1)
	}
	return r
}
