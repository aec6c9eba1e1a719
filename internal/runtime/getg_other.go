//go:build !amd64 && !arm64

package runtime

// self returns an identity of the calling goroutine that is unique among
// live goroutines: on architectures without the assembly stub of getg, its
// Go id, which costs microseconds, on every weft operation.
func self() uintptr { return uintptr(selfID()) }

// goid returns the Go id of the calling goroutine.
func goid() int64 { return selfID() }
