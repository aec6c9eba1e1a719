//go:build !amd64 && !arm64

package runtime

// getg returns the Go id of the calling goroutine on architectures without
// the assembly stub: an identity that is unique among live goroutines, as
// there, but that costs a microsecond, on every weft operation.
func getg() uintptr { return uintptr(selfID()) }
