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
// Queue gathers the single results of a sync window into one batch
// record, a few bytes a result with the worker named by a small number
// (batch.go); QueueRun writes the results of a run of consecutive tasks
// of one worker as one record, a few bytes a task. A coordinator
// resuming a long run uses Resume instead of Open: Replay.Records stays
// nil and Replay.Results reads the results again from the file through a
// window, so a replay of 10^7 tasks holds a bit per task, not the file.
// A journal of many single-task records (format version 1) is compacted
// by the resume that opens it (compact.go): rewritten aside as run and
// batch records, read back, checked and renamed over the original
// (Replay.Compacted).
//
// The path production takes (cmd/nqueens-coordinator's state.go, then
// coordinator.New and the scheduler):
//
//  1. Create for a new job, or Resume (never Open: it holds every record)
//     for --resume; both take the file's lock, so two coordinators never
//     share a journal.
//  2. Resume replays: the settings must match, a torn tail is truncated
//     (Replay.Repaired), a journal of many single-task records is compacted
//     aside first (Replay.Compacted), and Replay.Entries yields the splits,
//     reopenings and standing results in file order. Which results stand
//     (the first commit of each task, none of a distrusted worker's) is
//     decided by the parse (parseFrom, parsed.add, dropDistrusted), whose
//     bitsets Results and Entries then read through. Every reading of the
//     records, the parse, the replays, compaction and the repair's scan,
//     goes through one walk (walk) and one decoder (decodeEntry).
//  3. While the job runs, each commit is queued (Queue, QueueRun), Split
//     records the scheduler's splits, Distrust a quarantined worker, and
//     one Sync per window makes them durable before the workers' Acks.
//  4. Close at the end; the next Resume starts again at 1.
//
// Files: journal.go opens and appends (Create, Open, Resume, Queue, Sync,
// Distrust, Split, Close); settings.go is what a journal belongs to
// (Settings, Diff, the header); codec.go is the bytes (frames, record
// payloads and their decoders); batch.go the batch records and the
// worker numbers they use; replay.go reads a journal back (Replay,
// Entries, the walk over the frames, repair of a torn tail); compact.go
// rewrites one compactly; commits.go and source.go are the replay's
// bitsets and its window over the file.
//
// Format: an 8-byte magic, then frames of [length uint32][crc32c uint32][payload];
// the first payload holds the Settings, every later one a Record, a run
// or a batch of results, a worker's number, a split or a distrusted
// worker. See codec.go and batch.go.
package journal
