package main

import (
	"math"
	"slices"
	"syscall"
	"time"
)

// clusterReport is the one JSON line nqbench cluster prints.
type clusterReport struct {
	N                   int     `json:"n"`
	Depth               int     `json:"depth"`
	Tasks               int     `json:"tasks"`
	Workers             int     `json:"workers"`
	Slots               int     `json:"slots"`
	Credits             int     `json:"credits"` // credits each worker grants (slots + prefetch)
	Journal             bool    `json:"journal"`
	Synthetic           bool    `json:"synthetic"`
	Batches             int     `json:"batched_workers"`    // workers whose coordinator agreed to batches
	Runs                bool    `json:"runs"`               // the workers asked for runs of tasks
	Leases              int     `json:"leases"`             // Assigns received (a run is one)
	TasksMade           int     `json:"tasks_made"`         // tasks the coordinator made: the plan's and every split's children
	PeakLiveTasks       int     `json:"peak_live_tasks"`    // the most the coordinator held at once
	CommitsPerSecond    float64 `json:"commits_per_second"` // commits / elapsed_seconds
	P50CommitMS         float64 `json:"p50_commit_ms"`
	P99CommitMS         float64 `json:"p99_commit_ms"` // Result sent to its Ack received
	MaxCommitMS         float64 `json:"max_commit_ms"`
	CoordinatorRSSMB    float64 `json:"coordinator_rss_mb"` // peak resident set (VmHWM)
	JournalBytesPerTask float64 `json:"journal_bytes_per_task"`
	ElapsedSeconds      float64 `json:"elapsed_seconds"`           // first Assign to last Ack
	JoinSeconds         float64 `json:"join_seconds"`              // first Assign to the last worker's first Assign
	SteadyCommitsPerSec float64 `json:"steady_commits_per_second"` // commits / time once every worker had its first Assign
	CoordinatorCPU      float64 `json:"coordinator_cpu_seconds"`   // user + system
	CPUPerTaskUS        float64 `json:"coordinator_cpu_us_per_task"`
	LoadgenCPU          float64 `json:"loadgen_cpu_seconds"` // this process's, while the workers ran
	WallSeconds         float64 `json:"wall_seconds"`        // coordinator start to its exit
	Commits             int     `json:"commits"`             // COMMITTED acks received
	NotCommitted        int     `json:"not_committed"`       // any other ack outcome
	Drained             int     `json:"drained"`             // workers that ended on the coordinator's Drain
	Late                int     `json:"late_workers"`        // joined as the job ended, never drained
	JoinAttempts        int     `json:"join_attempts"`
	JoinP99MS           float64 `json:"join_p99_ms"` // first Join call to success, p99 over joined workers
	AcksAfterDrain      int     `json:"acks_after_drain"`
	Total               uint64  `json:"total"`
	Unique              uint64  `json:"unique"`
	Exact               bool    `json:"exact"`
}

// simSet is every simulated worker of a run.
type simSet []*simWorker

// fill puts the workers' measurements into the report.
func (ss simSet) fill(rep *clusterReport) {
	var first, last, lastStart time.Time
	var lat, joins []time.Duration
	for _, w := range ss {
		rep.JoinAttempts += w.joinAttempts
		if w.joinTime > 0 {
			joins = append(joins, w.joinTime)
		}
		rep.Commits += w.commits
		rep.Leases += w.leases
		rep.NotCommitted += w.others
		rep.AcksAfterDrain += w.lateAcks
		if w.drained {
			rep.Drained++
		}
		if w.batches {
			rep.Batches++
		}
		if !w.drained {
			rep.Late++
		}
		lat = append(lat, w.latencies...)
		if !w.firstAssign.IsZero() {
			if first.IsZero() || w.firstAssign.Before(first) {
				first = w.firstAssign
			}
			if w.firstAssign.After(lastStart) {
				lastStart = w.firstAssign
			}
		}
		if w.lastAck.After(last) {
			last = w.lastAck
		}
	}
	if !first.IsZero() && last.After(first) {
		rep.ElapsedSeconds = last.Sub(first).Seconds()
		rep.CommitsPerSecond = float64(rep.Commits) / rep.ElapsedSeconds
		rep.JoinSeconds = lastStart.Sub(first).Seconds()
	}
	if last.After(lastStart) {
		steady := 0
		for _, w := range ss {
			for _, t := range w.ackTimes {
				if t >= lastStart.UnixNano() {
					steady++
				}
			}
		}
		rep.SteadyCommitsPerSec = float64(steady) / last.Sub(lastStart).Seconds()
	}
	slices.Sort(joins)
	rep.JoinP99MS = quantileMS(joins, 0.99)
	slices.Sort(lat)
	rep.P50CommitMS = quantileMS(lat, 0.50)
	rep.P99CommitMS = quantileMS(lat, 0.99)
	rep.MaxCommitMS = quantileMS(lat, 1)
}

// quantileMS is the q-quantile (nearest rank) of sorted durations, in
// milliseconds.
func quantileMS(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return float64(sorted[i]) / float64(time.Millisecond)
}

// selfCPU is this process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
