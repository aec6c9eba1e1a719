//go:build !amd64 && !arm64

package runtime

// getg returns 0 on architectures without the assembly stub: goroutines
// that were not started by weft.Go are then not detected.
func getg() uintptr { return 0 }
