package coordinator

import (
	"github.com/nqueens/nqueens/coordinator/internal/sched"
)

// The lease policy lives in package sched; these are the parts of it a
// caller of Config and New meets.
type (
	// Journal makes commits durable; see sched.Journal.
	Journal = sched.Journal
	// JournalResult is one committed task read back from a journal.
	JournalResult = sched.JournalResult
	// Split is one task split into its children.
	Split = sched.Split
	// Resumed is what an earlier run left: its journal, results and splits.
	Resumed = sched.Resumed
	// JournalEntry is a split or a result of a journal, in its order.
	JournalEntry = sched.JournalEntry
	// Clock tells the time for lease deadlines; tests inject a fake one.
	Clock = sched.Clock
)

// DefaultTaskTarget is the task duration splitting aims at.
const DefaultTaskTarget = sched.DefaultTaskTarget
