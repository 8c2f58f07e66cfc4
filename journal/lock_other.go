//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package journal

import "os"

// lockFile is a no-op where flock is not available: one coordinator per
// journal is then the operator's job.
func lockFile(*os.File) error { return nil }
