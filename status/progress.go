package status

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/nqueens/nqueens/coordinator"
)

// barRefresh is how often the live bar is redrawn.
const barRefresh = 200 * time.Millisecond

// barUnits is the bar's scale: work fractions in millionths.
const barUnits = 1_000_000

// DefaultLogInterval is the period of the progress lines written where
// stderr is not a terminal.
const DefaultLogInterval = 10 * time.Second

// ProgressMode chooses how Progress shows itself.
type ProgressMode int

// The progress modes.
const (
	ProgressBar   ProgressMode = iota // a live bar on a terminal, log lines above it
	ProgressLines                     // one log line every Interval
	ProgressOff                       // nothing
)

// IsTerminal reports whether w is a terminal (where a live bar belongs).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Progress shows a job's progress on a terminal or in the log. Its Writer
// is the output to give the logger: while the bar runs, every log line
// goes through the bar's own writer, which prints it above the bar, so a
// log line and the bar never share a terminal line.
//
//	p := status.NewProgress(os.Stderr, status.ProgressBar, 0)
//	log := hclog.New(&hclog.LoggerOptions{Output: p.Writer()})
//	job, _ := coordinator.New(cfg, log)
//	go p.Run(ctx, job, log) // returns when the job is done or ctx ends
type Progress struct {
	out      io.Writer
	mode     ProgressMode
	interval time.Duration
	floor    floor // the progress shown so far: it never falls

	mu  sync.Mutex
	bar *mpb.Progress // while the bar runs, else nil
	cur string        // the text right of the bar, from the latest snapshot
}

// NewProgress returns a Progress writing on out in mode; interval is the
// period of ProgressLines (0: DefaultLogInterval).
func NewProgress(out io.Writer, mode ProgressMode, interval time.Duration) *Progress {
	if interval <= 0 {
		interval = DefaultLogInterval
	}
	return &Progress{out: out, mode: mode, interval: interval}
}

// Writer returns the writer for log output: above the bar while it runs,
// straight to out otherwise. Each Write should be whole lines (hclog
// writes one line per call).
func (p *Progress) Writer() io.Writer { return progressWriter{p} }

type progressWriter struct{ p *Progress }

func (w progressWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	bar := w.p.bar
	w.p.mu.Unlock()
	if bar != nil {
		if n, err := bar.Write(b); err == nil {
			return n, nil
		}
		// The bar ended between the check and the write: print plainly.
	}
	return w.p.out.Write(b)
}

// Run shows the progress of src until it is Done or ctx ends. log is used
// by ProgressLines.
func (p *Progress) Run(ctx context.Context, src Source, log hclog.Logger) {
	switch p.mode {
	case ProgressOff:
		return
	case ProgressLines:
		p.runLines(ctx, src, log)
	default:
		p.runBar(ctx, src)
	}
}

func (p *Progress) runLines(ctx context.Context, src Source, log hclog.Logger) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s := src.Status()
		if s.Done {
			return
		}
		e := EstimateOf(s)
		e.Fraction, _ = p.floor.hold(e.Fraction)
		eta := "unknown"
		if e.HasETA {
			eta = FormatDuration(e.ETA)
		}
		log.Info("progress", "tasks_done", s.Summary.Committed, "tasks", s.Summary.Tasks,
			"work_percent", fmt.Sprintf("%.1f", 100*e.Fraction), "solutions", s.Summary.Solutions,
			"nodes_per_second", int64(e.NodesPerSec), "eta", eta, "workers", len(s.Workers))
	}
}

func (p *Progress) runBar(ctx context.Context, src Source) {
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mp := mpb.NewWithContext(bctx, mpb.WithOutput(p.out), mpb.WithRefreshRate(barRefresh), mpb.WithWidth(32), mpb.WithAutoRefresh())
	bar := mp.New(barUnits, mpb.BarStyle().Lbound(" [").Filler("#").Tip("#").Padding(".").Rbound("]"),
		mpb.AppendDecorators(decor.Any(func(st decor.Statistics) string {
			p.mu.Lock()
			defer p.mu.Unlock()
			// The bar takes at least minBarCells; the text fits the rest, so
			// the line never wraps (a wrapped line would stay on the screen).
			return fit(p.cur, st.AvailableWidth-minBarCells-1)
		})),
		mpb.BarFillerClearOnComplete(),
		mpb.BarRemoveOnComplete(),
	)
	p.mu.Lock()
	p.bar = mp
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.bar = nil
		p.mu.Unlock()
	}()
	t := time.NewTicker(barRefresh)
	defer t.Stop()
	for {
		s := src.Status()
		e := EstimateOf(s)
		e.Fraction, _ = p.floor.hold(e.Fraction)
		line := strings.Join(barText(s, e), "  ")
		p.mu.Lock()
		p.cur = line
		p.mu.Unlock()
		if s.Done {
			bar.SetCurrent(barUnits) // completes and removes the bar
			mp.Wait()
			return
		}
		bar.SetCurrent(int64(e.Fraction * barUnits))
		select {
		case <-ctx.Done():
			bar.Abort(true)
			mp.Wait()
			return
		case <-t.C:
		}
	}
}

// minBarCells is the narrowest the bar itself gets.
const minBarCells = 12

// BarText is the text after the bar, most important first: work done,
// ETA, solutions, rate, tasks and workers; while a listing is written,
// that instead.
func BarText(s coordinator.Status) []string {
	return barText(s, EstimateOf(s))
}

// barText is BarText with the estimate e of s (its fraction held).
func barText(s coordinator.Status, e Estimate) []string {
	if s.Listing.Writing {
		return []string{fmt.Sprintf("writing %d/%d solutions", s.Listing.Written, s.Listing.Total)}
	}
	eta := "?"
	if e.HasETA {
		eta = FormatDuration(e.ETA)
	}
	return []string{
		fmt.Sprintf("%5.1f%%", 100*e.Fraction), "ETA " + eta, fmt.Sprintf("%d solutions", s.Summary.Solutions),
		coordinator.HumanRate(e.NodesPerSec) + " nodes/s", fmt.Sprintf("%d/%d tasks", s.Summary.Committed, s.Summary.Tasks),
		plural(len(s.Workers), "worker"),
	}
}

// fit drops the last parts of text (separated by two spaces) until it is
// at most width characters.
func fit(text string, width int) string {
	for len(text) > width {
		i := strings.LastIndex(text, "  ")
		if i < 0 {
			return ""
		}
		text = text[:i]
	}
	return text
}

// plural says "1 worker" but "2 workers".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// FormatDuration prints a time left as people read it: 2h05m, 3m07s, 42s,
// 3.0s.
func FormatDuration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d >= 10*time.Second:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
