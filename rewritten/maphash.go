package rewritten

import (
	"hash/maphash"
	"unsafe"

	"weft.dev/weft/internal/runtime"
)

// MakeSeed is hash/maphash.MakeSeed: a seed that is the same in every
// execution (the calling goroutine's next number, inside a check; one
// fixed number outside), so that what a program picks by a hash, a
// map's shard say, is the same too. The runtime's seeds are another in
// every run: weft, which replays executions, took a goroutine that locked
// another shard in the replay for nondeterminism of the program. A
// maphash.Hash that is not given a seed still draws its own.
func MakeSeed() maphash.Seed {
	s := uint64(0x9E3779B97F4A7C15)
	if !runtime.Outside() {
		s = runtime.Rand() | 1 // a seed of 0 is no seed
	}
	var seed maphash.Seed
	if unsafe.Sizeof(seed) != unsafe.Sizeof(s) {
		// Not the Seed of Go 1.14 to 1.26, a uint64: its own.
		return maphash.MakeSeed()
	}
	*(*uint64)(unsafe.Pointer(&seed)) = s
	return seed
}
