package listing_test

import (
	"github.com/nqueens/nqueens/listing"
	"github.com/nqueens/nqueens/render"
)

// render's sink takes every path the publisher writes by.
var (
	_ listing.Sink       = (*render.Sink)(nil)
	_ listing.NibbleSink = (*render.Sink)(nil)
	_ listing.PackedSink = (*render.Sink)(nil)
)
