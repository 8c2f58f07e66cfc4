package solver

import "math/bits"

func bitIndex(b uint32) int { return bits.TrailingZeros32(b) }
