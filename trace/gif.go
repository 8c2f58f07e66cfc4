package trace

import (
	"bufio"
	"bytes"
	"errors"
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
// are transparent (index 0), so a step costs a few kilobytes. Frames are
// encoded and written one at a time, so memory stays at a few frames
// whatever the number of steps.
func WriteGIF(w io.Writer, t *Trace) error {
	p := newPainter(t.N)
	defer p.close()
	g := p.g
	q := &quantizer{pal: gifPalette(), index: map[color.RGBA]uint8{}}
	bounds := image.Rect(0, 0, g.Width, g.Height)
	cur, prev := image.NewRGBA(bounds), image.NewRGBA(bounds)
	bw := bufio.NewWriter(w)
	out := &gifStream{w: bw, config: image.Config{ColorModel: q.pal, Width: g.Width, Height: g.Height}}
	var err error
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
		err = out.frame(frame, delay)
		cur, prev = prev, cur
		return err == nil
	})
	if err == nil {
		err = out.close()
	}
	if err == nil {
		err = bw.Flush()
	}
	return err
}

// gifStream writes an animated GIF frame by frame. image/gif encodes a
// whole animation at once, from every frame in memory (hundreds of
// megabytes for a few thousand frames of N=12), so each frame is encoded
// alone as a one-frame GIF with the same global palette, and its image
// block (graphic control extension, descriptor, LZW data) is copied out:
// the header, screen descriptor and palette once before the first, the
// NETSCAPE2.0 loop extension after them, the trailer at close.
type gifStream struct {
	w       io.Writer
	config  image.Config
	buf     bytes.Buffer
	started bool
}

// netscapeLoop is the application extension that makes viewers loop the
// animation forever (a loop count of 0).
var netscapeLoop = []byte{0x21, 0xff, 0x0b, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 0x03, 0x01, 0x00, 0x00, 0x00}

func (s *gifStream) frame(img *image.Paletted, delay int) error {
	s.buf.Reset()
	one := &gif.GIF{Image: []*image.Paletted{img}, Delay: []int{delay}, Disposal: []byte{gif.DisposalNone}, Config: s.config}
	if err := gif.EncodeAll(&s.buf, one); err != nil {
		return err
	}
	b := s.buf.Bytes()
	// Header (6 bytes), logical screen descriptor (7), global colour table
	// (3·2^(k+1) bytes when bit 7 of the descriptor's packed byte is set).
	head := 13
	if b[10]&0x80 != 0 {
		head += 3 << ((b[10] & 7) + 1)
	}
	if len(b) < head+1 || b[len(b)-1] != 0x3b {
		return errors.New("trace: gif: unexpected encoder output")
	}
	if !s.started {
		if _, err := s.w.Write(b[:head]); err != nil {
			return err
		}
		if _, err := s.w.Write(netscapeLoop); err != nil {
			return err
		}
		s.started = true
	}
	_, err := s.w.Write(b[head : len(b)-1])
	return err
}

func (s *gifStream) close() error {
	if !s.started {
		return errors.New("trace: gif: no frames")
	}
	_, err := s.w.Write([]byte{0x3b})
	return err
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
