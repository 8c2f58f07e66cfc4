// Package wire is what the coordinator accepts from the network, checked
// before anything reaches the scheduler: the bounds on every field of the
// Work protocol's messages (ValidateJoin, ValidateWork, ValidateResult),
// the server's message and stream caps, and the per-worker rate of Work
// messages (Limiter), topped up for every lease so that a worker doing
// its job is never cut off and one that floods is (FloodError).
//
// Each refusal is a gRPC status that says which bound was hit; none can
// panic, and together they bound the memory and CPU one worker can make
// the coordinator spend. FuzzValidateRequest feeds the validators
// arbitrary bytes. Whether an accepted message is right (its solutions,
// its counts, its lease) is judged later, by listing.Checker and the
// scheduler.
package wire
