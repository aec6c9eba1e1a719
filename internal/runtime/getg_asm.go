//go:build amd64 || arm64

package runtime

import (
	"sync"
	"unsafe"
)

// getg returns the calling goroutine's runtime descriptor.
func getg() unsafe.Pointer

// self returns an identity of the calling goroutine that is unique among
// live goroutines: its descriptor's address, which costs one instruction,
// where parsing runtime.Stack would cost microseconds.
func self() uintptr { return uintptr(getg()) }

// goid returns the Go id of the calling goroutine: read from its descriptor
// when goidOffset found where it is, else parsed from runtime.Stack.
func goid() int64 {
	if off := goidOffset(); off >= 0 {
		return *(*int64)(unsafe.Add(getg(), off))
	}
	return selfID()
}

// goidOffset is where a goroutine's descriptor holds its Go id, -1 if not
// found. The descriptor's layout is the Go runtime's own and changes
// between versions: the offset is the only one at which the descriptors of
// four goroutines hold their ids.
var goidOffset = sync.OnceValue(func() int {
	const span = 256 // bytes, less than the descriptor of any version of Go
	match := func(offs []int) []int {
		id, g := selfID(), getg()
		var kept []int
		for _, off := range offs {
			if *(*int64)(unsafe.Add(g, off)) == id {
				kept = append(kept, off)
			}
		}
		return kept
	}
	var offs []int
	for off := 0; off < span; off += 8 {
		offs = append(offs, off)
	}
	offs = match(offs)
	for range 3 {
		c := make(chan []int)
		go func() { c <- match(offs) }()
		offs = <-c
	}
	if len(offs) != 1 {
		return -1
	}
	return offs[0]
})
