//go:build !(goexperiment.simd && amd64)

package solver

// sliceLoopVec is where an AVX-512 sliceLoop plugs in (joinslice_simd.go,
// built with GOEXPERIMENT=simd on amd64); without it, it never applies.
func sliceLoopVec(west, tab []uint64, g, width, nc int) (uint64, bool) {
	return 0, false
}
