package rewritten

import (
	"math/rand"
	randv2 "math/rand/v2"

	"weft.dev/weft/internal/runtime"
)

// The top-level functions of math/rand and math/rand/v2 draw from a source
// that the runtime seeds at random in every run: weft, which replays
// executions, took a program whose goroutines do something else after
// another draw for nondeterministic. The rewrite makes them draw from the
// calling goroutine's own sequence (see runtime.Rand), the same in every
// execution: the values are not explored, as a seed's are not. A
// *rand.Rand of the program's own, from a seed, is left as it is.

// source is a source of math/rand and math/rand/v2 that draws from the
// calling goroutine's sequence. It has no state: the Rands made from it
// are shared by every goroutine.
type source struct{}

func (source) Int63() int64   { return int64(runtime.Rand() >> 1) }
func (source) Uint64() uint64 { return runtime.Rand() }

// Seed does nothing: the sequence is the goroutine's.
func (source) Seed(int64) {}

var (
	rand1 = rand.New(source{})
	rand2 = randv2.New(source{})
)

// RandInt is rand.Int.
func RandInt() int { return rand2.Int() }

// RandFloat64 is rand.Float64.
func RandFloat64() float64 { return rand2.Float64() }

// RandFloat32 is rand.Float32.
func RandFloat32() float32 { return rand2.Float32() }

// RandExpFloat64 is rand.ExpFloat64.
func RandExpFloat64() float64 { return rand2.ExpFloat64() }

// RandNormFloat64 is rand.NormFloat64.
func RandNormFloat64() float64 { return rand2.NormFloat64() }

// RandPerm is rand.Perm.
func RandPerm(n int) []int { return rand2.Perm(n) }

// RandShuffle is rand.Shuffle.
func RandShuffle(n int, swap func(i, j int)) { rand2.Shuffle(n, swap) }

// RandUint32 is rand.Uint32.
func RandUint32() uint32 { return rand2.Uint32() }

// RandUint64 is rand.Uint64.
func RandUint64() uint64 { return rand2.Uint64() }

// RandInt31 is math/rand's Int31.
func RandInt31() int32 { return rand1.Int31() }

// RandInt31n is math/rand's Int31n.
func RandInt31n(n int32) int32 { return rand1.Int31n(n) }

// RandInt63 is math/rand's Int63.
func RandInt63() int64 { return rand1.Int63() }

// RandInt63n is math/rand's Int63n.
func RandInt63n(n int64) int64 { return rand1.Int63n(n) }

// RandIntn is math/rand's Intn.
func RandIntn(n int) int { return rand1.Intn(n) }

// RandRead is math/rand's Read: it fills p and never fails.
func RandRead(p []byte) (n int, err error) {
	for i := 0; i < len(p); i += 8 {
		v := runtime.Rand()
		for j := i; j < len(p) && j < i+8; j++ {
			p[j] = byte(v)
			v >>= 8
		}
	}
	return len(p), nil
}

// RandSeed is math/rand's Seed, which does nothing since Go 1.24 (unless
// GODEBUG has randseednop=0): the sequence is the goroutine's.
func RandSeed(int64) {}

// RandInt32 is math/rand/v2's Int32.
func RandInt32() int32 { return rand2.Int32() }

// RandInt32N is math/rand/v2's Int32N.
func RandInt32N(n int32) int32 { return rand2.Int32N(n) }

// RandInt64 is math/rand/v2's Int64.
func RandInt64() int64 { return rand2.Int64() }

// RandInt64N is math/rand/v2's Int64N.
func RandInt64N(n int64) int64 { return rand2.Int64N(n) }

// RandIntN is math/rand/v2's IntN.
func RandIntN(n int) int { return rand2.IntN(n) }

// RandUint is math/rand/v2's Uint.
func RandUint() uint { return rand2.Uint() }

// RandUint32N is math/rand/v2's Uint32N.
func RandUint32N(n uint32) uint32 { return rand2.Uint32N(n) }

// RandUint64N is math/rand/v2's Uint64N.
func RandUint64N(n uint64) uint64 { return rand2.Uint64N(n) }

// RandUintN is math/rand/v2's UintN.
func RandUintN(n uint) uint { return rand2.UintN(n) }

// integer is the constraint of math/rand/v2's N.
type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// RandN is math/rand/v2's N: a number in [0, n), which must be positive.
func RandN[Int integer](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	return Int(rand2.Uint64N(uint64(n)))
}
