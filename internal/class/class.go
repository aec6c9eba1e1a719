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
// engine met the events. Goroutines are named canonically too: the body's
// goroutine, and the k-th goroutine that a named goroutine starts (see
// Hash.Spawn). Their ids will not do: an exploration numbers the goroutines
// in the order it first meets them, and when the goroutine that starts a
// given one varies between executions (weft/time's clock is started by
// whichever goroutine sets the first timer), two engines that meet the
// executions in different orders give one goroutine different ids.
package class

// Event names the n-th operation of goroutine G, G being the goroutine's
// id in the exploration: Hash names it canonically.
type Event struct{ G, N int32 }

// Init names the initial write of every location.
var Init = Event{G: -1, N: -1}

// None names no operation: an observation without a partner.
var None = Event{G: -2, N: -2}

// Hash accumulates the pairs of an execution. The pairs are summed, so the
// order in which they are added does not matter. Every goroutine but the
// body's must be started (Spawn) before an event of it is added. The zero
// Hash is an empty one.
type Hash struct {
	sum uint64
	// names holds the canonical name of each goroutine, by id (0 for one
	// not started), and started the number of goroutines each started.
	names   []uint64
	started []int32
}

// body is the canonical name of the body's goroutine.
const body = 0x5bd1e9955bd1e995

// Reset empties h for a new execution.
func (h *Hash) Reset() {
	h.sum = 0
	clear(h.names)
	clear(h.started)
}

// Sum returns the hash of the pairs added.
func (h *Hash) Sum() uint64 { return h.sum }

// Spawn records that goroutine parent starts goroutine child: child is
// named by parent's name and the number of goroutines parent started
// before it. A goroutine's starts must be added in its program order.
func (h *Hash) Spawn(parent, child int32) {
	for int(max(parent, child)) >= len(h.names) {
		h.names = append(h.names, 0)
		h.started = append(h.started, 0)
	}
	h.names[child] = splitmix(h.name(parent) ^ uint64(uint32(h.started[parent]))*0x9e3779b97f4a7c15)
	h.started[parent]++
}

// name returns the canonical name of goroutine g: Init's and None's are
// their own.
func (h *Hash) name(g int32) uint64 {
	switch {
	case g == 0:
		return body
	case g < 0:
		return uint64(g)
	case int(g) < len(h.names) && h.names[g] != 0:
		return h.names[g]
	}
	panic("weft: internal error: class: an event of a goroutine that was never started")
}

// RF adds the pair "r reads from w".
func (h *Hash) RF(r, w Event) { h.sum += h.mix(1, r, w) }

// Co adds the pair "w is right after prev in coherence".
func (h *Hash) Co(w, prev Event) { h.sum += h.mix(2, w, prev) }

// Choice adds the pair "e took outcome n" of an operation with several
// outcomes (which waiter Cond.Signal wakes).
func (h *Hash) Choice(e Event, n int32) {
	h.sum += splitmix(h.event(3, e) ^ uint64(uint32(n)))
}

// Observation is what a channel operation observed.
type Observation struct {
	Case    int32   // the case taken (0 for a plain operation)
	Partner Event   // the operation met or received from, or None
	Index   int32   // the place of a buffered send or receive in its channel's order
	Counts  []int32 // sends and receives of the buffered channels a len or a default saw
}

// Observe adds what the channel operation e observed.
func (h *Hash) Observe(e Event, o Observation) {
	x := h.mix(4, e, o.Partner)
	x = splitmix(x ^ uint64(uint32(o.Case))<<32 ^ uint64(uint32(o.Index)))
	for _, n := range o.Counts {
		x = splitmix(x ^ uint64(uint32(n)))
	}
	h.sum += x
}

// event hashes tag and e's canonical name.
func (h *Hash) event(tag uint64, e Event) uint64 {
	x := splitmix(tag*0x9e3779b97f4a7c15 ^ h.name(e.G))
	return splitmix(x ^ uint64(uint32(e.N)))
}

func (h *Hash) mix(tag uint64, a, b Event) uint64 {
	x := splitmix(h.event(tag, a) ^ h.name(b.G))
	return splitmix(x ^ uint64(uint32(b.N)))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
