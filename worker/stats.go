package worker

import (
	"sync/atomic"
	"time"
)

// Stats are a worker's own figures, for its /metrics (cmd/nqueens-worker): what it
// computed and sent, whatever the coordinator made of it. Give Run a
// *Stats in Config.Stats and read it at any time with Snapshot; the zero
// Stats is ready.
type Stats struct {
	tasks, nodes, busy, joins atomic.Uint64 // busy in nanoseconds
	running                   atomic.Int64
	joined                    atomic.Bool
}

// StatsSnapshot is one reading of Stats.
type StatsSnapshot struct {
	Tasks   uint64        // tasks computed and sent (each task of a run counts)
	Nodes   uint64        // their search nodes
	Busy    time.Duration // slot time spent computing them (two slots: twice the wall time)
	Running int           // tasks computing now
	Joined  bool          // a Work session is open
	Joins   uint64        // successful joins (1 + rejoins)
}

// NodesPerSecond is the speed of one slot: nodes per second of computing.
func (s StatsSnapshot) NodesPerSecond() float64 {
	if s.Busy <= 0 {
		return 0
	}
	return float64(s.Nodes) / s.Busy.Seconds()
}

// Snapshot reads s; nil reads as zero.
func (s *Stats) Snapshot() StatsSnapshot {
	if s == nil {
		return StatsSnapshot{}
	}
	return StatsSnapshot{
		Tasks: s.tasks.Load(), Nodes: s.nodes.Load(), Busy: time.Duration(s.busy.Load()),
		Running: int(s.running.Load()), Joined: s.joined.Load(), Joins: s.joins.Load(),
	}
}

// The updates are no-ops on a nil *Stats, so the session calls them
// unconditionally.

func (s *Stats) sent(tasks uint64, nodes uint64, took time.Duration) {
	if s != nil {
		s.tasks.Add(tasks)
		s.nodes.Add(nodes)
		s.busy.Add(uint64(max(took, 0)))
	}
}

func (s *Stats) computing(delta int64) {
	if s != nil {
		s.running.Add(delta)
	}
}

func (s *Stats) setJoined(on bool) {
	if s != nil {
		s.joined.Store(on)
		if on {
			s.joins.Add(1)
		}
	}
}
