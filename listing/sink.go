package listing

// Sink receives the listing, one solution at a time, in order.
// render.Sink implements it and both faster interfaces below.
type Sink interface {
	Write(cols []int) error // called once per solution, in order; must not keep cols
	Close(total uint64) error
}

// NibbleSink is a Sink that also takes many solutions at once as keys
// (packed.Key): the fastest path, for n <= packed.MaxKeyN, as the bucket
// sort hands them over without unpacking.
type NibbleSink interface {
	WriteNibbles(keys []uint64) error
}

// PackedSink is a Sink that also takes many solutions at once in the
// Bytes layout (packed.Append): the fast path above packed.MaxKeyN.
type PackedSink interface {
	WritePacked(sols []byte) error
}
