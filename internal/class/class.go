// Package class hashes executions into their equivalence classes, so that
// engines with different representations of an execution (interleavings,
// execution graphs) can be compared on the classes they explore.
//
// Two executions are equivalent when every goroutine performs the same
// operations with the same results:
//   - memory (Vars, atomics, the words of sync's primitives): every read
//     reads from the same write and the writes of every location are in the
//     same coherence order (Shasha-Snir equivalence);
//   - channels: every channel operation observed the same (Observe): the
//     case a select took, the operation a receive got its value from (the
//     send, or the offer of the goroutine it met), for a waiting goroutine
//     the operation that took its offer, and for buffered channels the
//     place of each send and receive in the channel's order and the counts
//     of sends and receives a len or a select's default saw;
//   - the outcome of every choice (which waiter Cond.Signal wakes, the
//     outcome of a symbolic branch).
//
// When a goroutine started waiting is not part of an execution: no program
// can observe it (see package chans).
//
// Events are named canonically (goroutine, rank of the operation in the
// goroutine), so that the hash does not depend on the order in which an
// engine met the events.
package class

// Event names the n-th operation of goroutine G.
type Event struct{ G, N int32 }

// Init names the initial write of every location.
var Init = Event{G: -1, N: -1}

// None names no operation: an observation without a partner.
var None = Event{G: -2, N: -2}

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

// Observation is what a channel operation observed.
type Observation struct {
	Case    int32   // the case taken (0 for a plain operation)
	Partner Event   // the operation met or received from, or None
	Index   int32   // the place of a buffered send or receive in its channel's order
	Counts  []int32 // sends and receives of the buffered channels a len or a default saw
}

// Observe adds what the channel operation e observed.
func (h *Hash) Observe(e Event, o Observation) {
	x := mix(4, e, o.Partner)
	x = splitmix(x ^ uint64(uint32(o.Case))<<32 ^ uint64(uint32(o.Index)))
	for _, n := range o.Counts {
		x = splitmix(x ^ uint64(uint32(n)))
	}
	*h += Hash(x)
}

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
