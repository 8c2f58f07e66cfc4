package coordinator

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// barInterval is the refresh period of the live progress bar.
const barInterval = 200 * time.Millisecond

// barWidth is the number of cells of the progress bar.
const barWidth = 30

// showProgress reports progress on cfg.Stderr until stop closes: a live bar
// on a terminal, hclog lines every ProgressInterval otherwise.
func (j *job) showProgress(stop <-chan struct{}) {
	mode := j.cfg.Progress
	if mode == ProgressAuto {
		mode = ProgressLog
		if f, ok := j.cfg.Stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = ProgressBar
		}
	}
	if mode == ProgressOff {
		<-stop
		return
	}
	interval := j.cfg.ProgressInterval
	if mode == ProgressBar {
		interval = barInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			if mode == ProgressBar {
				fmt.Fprint(j.cfg.Stderr, "\r\033[K")
			}
			return
		case <-t.C:
			p := j.sched.progress()
			if j.pub != nil {
				// A listing is written once every task is in.
				if pp := j.pub.Progress(); pp.Writing {
					if mode == ProgressBar {
						fmt.Fprintf(j.cfg.Stderr, "\r\033[K%s", writeBar(pp.Written, pp.Total))
						continue
					}
					j.log.Info("writing solutions", "written", pp.Written, "of", pp.Total)
					continue
				}
			}
			elapsed := time.Since(j.start)
			rate := float64(p.Solutions) / elapsed.Seconds()
			eta := "?"
			if p.Done > 0 {
				left := time.Duration(float64(elapsed) * float64(p.Total-p.Done) / float64(p.Done))
				eta = left.Round(time.Second).String()
				if left < 10*time.Second {
					eta = left.Round(100 * time.Millisecond).String()
				}
			}
			if mode == ProgressBar {
				fmt.Fprintf(j.cfg.Stderr, "\r\033[K%s", bar(p, rate, eta))
				continue
			}
			j.log.Info("progress", "tasks_done", p.Done, "tasks", p.Total, "solutions", p.Solutions,
				"rate_per_second", int64(rate), "eta", eta, "workers", p.Workers)
		}
	}
}

// bar renders one line of the live progress bar.
func bar(p progress, rate float64, eta string) string {
	filled := 0
	if p.Total > 0 {
		filled = barWidth * p.Done / p.Total
	}
	return fmt.Sprintf("[%s%s] %d/%d tasks  %d solutions  %s/s  ETA %s  %d workers",
		strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled),
		p.Done, p.Total, p.Solutions, humanRate(rate), eta, p.Workers)
}

// writeBar renders the progress bar of the listing's last phase.
func writeBar(written, total uint64) string {
	filled := 0
	if total > 0 {
		filled = int(uint64(barWidth) * min(written, total) / total)
	}
	return fmt.Sprintf("[%s%s] writing %d/%d solutions",
		strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), written, total)
}
