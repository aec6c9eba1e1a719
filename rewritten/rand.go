package rewritten

import "weft.dev/weft/internal/runtime"

// The runtime's random numbers, which code reaches through go:linkname
// (puzpuzpuz/xsync picks a counter's stripe with runtime.cheaprand): the
// rewrite makes a function linked to one of them call its counterpart
// here, which draws from the calling goroutine's own sequence, the same in
// every execution (see runtime.Rand). The runtime's numbers are another in
// every run: weft, which replays executions, took them for nondeterminism
// of the program.

// Cheaprand is runtime.cheaprand.
func Cheaprand() uint32 { return uint32(runtime.Rand()) }

// Cheaprand64 is runtime.cheaprand64.
func Cheaprand64() int64 { return int64(runtime.Rand() >> 1) }

// Cheaprandn is runtime.cheaprandn: a number in [0, n).
func Cheaprandn(n uint32) uint32 { return uint32(uint64(uint32(runtime.Rand())) * uint64(n) >> 32) }

// Fastrand is runtime.fastrand, the former name of cheaprand.
func Fastrand() uint32 { return Cheaprand() }

// Fastrandn is runtime.fastrandn.
func Fastrandn(n uint32) uint32 { return Cheaprandn(n) }

// Fastrand64 is runtime.fastrand64.
func Fastrand64() uint64 { return runtime.Rand() }

// Fastrandu is runtime.fastrandu.
func Fastrandu() uint { return uint(runtime.Rand()) }
