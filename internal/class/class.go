// Package class hashes executions into their Shasha-Snir equivalence
// classes: two executions are equivalent when every read reads from the
// same write and the writes of every location are in the same coherence
// order. Events are named canonically (goroutine, rank of the operation in
// the goroutine), so that engines with different representations of an
// execution (interleavings, execution graphs) compute the same hash.
package class

// Event names the n-th operation of goroutine G.
type Event struct{ G, N int32 }

// Init names the initial write of every location.
var Init = Event{G: -1, N: -1}

// Hash accumulates the pairs of an execution. The pairs are summed, so the
// order in which they are added does not matter.
type Hash uint64

// RF adds the pair "r reads from w".
func (h *Hash) RF(r, w Event) { *h += Hash(mix(1, r, w)) }

// Co adds the pair "w is right after prev in coherence".
func (h *Hash) Co(w, prev Event) { *h += Hash(mix(2, w, prev)) }

// Choice adds the pair "e took outcome n" of an operation with several
// outcomes (which waiter Cond.Signal wakes).
func (h *Hash) Choice(e Event, n int32) { *h += Hash(mix(3, e, Event{N: n})) }

func mix(tag uint64, a, b Event) uint64 {
	h := tag*0x9e3779b97f4a7c15 ^ uint64(uint32(a.G))<<32 ^ uint64(uint32(a.N))
	h = splitmix(h)
	h ^= uint64(uint32(b.G))<<32 ^ uint64(uint32(b.N))
	return splitmix(h)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
