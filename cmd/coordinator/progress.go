package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/term"

	"github.com/nqueens/nqueens/coordinator"
)

// progressMode says how the command reports progress on stderr.
type progressMode int

const (
	progressAuto progressMode = iota // a live bar on a terminal, log lines otherwise
	progressBar                      // always the live bar
	progressLog                      // always periodic log lines
	progressOff                      // nothing
)

// barInterval is the refresh period of the live progress bar.
const barInterval = 200 * time.Millisecond

// barWidth is the number of cells of the progress bar.
const barWidth = 30

// showProgress reports the job's progress on o.Stderr until stop closes: a
// live bar on a terminal, log lines every ProgressInterval otherwise.
func showProgress(job *coordinator.Job, o options, log hclog.Logger, stop <-chan struct{}) {
	mode := o.Progress
	if mode == progressAuto {
		mode = progressLog
		if f, ok := o.Stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = progressBar
		}
	}
	if mode == progressOff {
		<-stop
		return
	}
	interval := o.ProgressInterval
	if mode == progressBar {
		interval = barInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			if mode == progressBar {
				fmt.Fprint(o.Stderr, "\r\033[K")
			}
			return
		case <-t.C:
			st := job.Status()
			if mode == progressBar {
				fmt.Fprintf(o.Stderr, "\r\033[K%s", statusBar(st))
				continue
			}
			logProgress(log, st)
		}
	}
}

// logProgress writes one progress line.
func logProgress(log hclog.Logger, st coordinator.Status) {
	if st.Listing.Writing {
		log.Info("writing solutions", "written", st.Listing.Written, "of", st.Listing.Total)
		return
	}
	s := st.Summary
	log.Info("progress", "tasks_done", s.Committed, "tasks", s.Tasks, "solutions", s.Solutions,
		"rate_per_second", int64(solutionRate(st)), "eta", eta(st), "workers", len(st.Workers))
}

// workFraction is the share of this run's estimated work that is done.
func workFraction(st coordinator.Status) float64 {
	if st.WorkTotal <= 0 {
		return 0
	}
	return min(1, st.WorkDone/st.WorkTotal)
}

// solutionRate is the solutions found per second of busy time (time with
// at least one worker attached).
func solutionRate(st coordinator.Status) float64 {
	if st.Busy <= 0 {
		return 0
	}
	return float64(st.Summary.Solutions) / st.Busy.Seconds()
}

// eta estimates the time left from the work done per second of busy time;
// tasks restored from a journal count neither as work done nor as work to
// do, so a resumed run's ETA is its own.
func eta(st coordinator.Status) string {
	if st.WorkDone <= 0 || st.Busy <= 0 {
		return "?"
	}
	rate := st.WorkDone / st.Busy.Seconds()
	left := time.Duration((st.WorkTotal - st.WorkDone) / rate * float64(time.Second))
	if left < 10*time.Second {
		return left.Round(100 * time.Millisecond).String()
	}
	return left.Round(time.Second).String()
}

// statusBar renders one line of the live progress bar.
func statusBar(st coordinator.Status) string {
	if st.Listing.Writing {
		return writeBar(st.Listing.Written, st.Listing.Total)
	}
	s := st.Summary
	filled := int(barWidth * workFraction(st))
	return fmt.Sprintf("[%s%s] %d/%d tasks  %d solutions  %s/s  ETA %s  %d workers",
		strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled),
		s.Committed, s.Tasks, s.Solutions, humanRate(solutionRate(st)), eta(st), len(st.Workers))
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

// humanRate prints a rate with a k/M/G suffix.
func humanRate(r float64) string {
	switch {
	case r >= 1e9:
		return fmt.Sprintf("%.2fG", r/1e9)
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1fk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}
