// Package journal is the coordinator's durable state: an append-only file that
// holds a job's settings and every committed task result, so a killed
// coordinator resumes with --resume and redoes only unfinished tasks.
//
// A fresh run creates the journal and appends each result before it
// acknowledges the worker; a resumed run opens it with the settings it would
// use anyway, and skips what the replay says is done:
//
//	j, err := journal.Create(path, settings)      // --state FILE (refuses an existing one)
//	j, rp, err := journal.Open(path, settings)     // --state FILE --resume
//	switch {                                       // exit 2 on these: the journal is not this job's, or broken
//	case errors.Is(err, journal.ErrSettingsMismatch), errors.Is(err, journal.ErrCorrupt): ...
//	}
//	if rp.Repaired != nil { log.Warn("journal torn tail truncated", "offset", rp.Repaired.Offset) }
//	for _, r := range rp.Records { done[r.Index] = r }    // these tasks are committed
//	err = j.Append(journal.Record{Index: 7, Total: 92, Nodes: 1965}) // fsynced when it returns: now ack
//	defer j.Close()
//
// Why a journal and not bbolt or SQLite: the state is one header and a list of
// small immutable results that are only ever added. An append-only file with a
// length and a CRC-32C per record and an fsync per append is all the
// durability that needs, it is one file with no dependency, a torn write can
// only ever be at the end (where it is truncated), and its decoder is small
// enough to fuzz completely.
//
// A result may name the worker session that computed it (Record.Worker).
// Distrust(worker) records that a worker lied (--verify-fraction caught
// it): the replay drops every result of that worker, wherever it stands in
// the file, and its tasks may then be committed again by others.
//
// QueueRun writes the results of a run of consecutive tasks of one worker
// as one record, a few bytes a task. A coordinator resuming a long run
// uses Resume instead of Open: Replay.Records stays nil and
// Replay.Results reads the results again from the file through a window,
// so a replay of 10^7 tasks holds a bit per task, not the file. A journal
// of many single-task records is compacted by the resume that opens it
// (compact.go): rewritten aside as run records, read back, checked and
// renamed over the original (Replay.Compacted).
//
// Format: an 8-byte magic, then frames of [length uint32][crc32c uint32][payload];
// the first payload holds the Settings, every later one a Record, a run
// of results, a split or a distrusted worker. See format.go.
package journal
