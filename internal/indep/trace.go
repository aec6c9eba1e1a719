package indep

// Trace accumulates the events of one interleaving and hashes its
// Mazurkiewicz trace: equivalent interleavings have the same hash, and
// interleavings of different traces differ in their events (kind and
// outcome of some goroutine's n-th operation) or in the order of a pair of
// dependent events, which the hash sums over. Events are named by goroutine
// and rank, which every interleaving of a trace gives them alike.
//
// It costs a comparison per pair of events: it is for the reference
// engine on small programs.
type Trace struct {
	evs   []Event
	ranks []int32 // rank of each event in its goroutine
	next  []int32 // by goroutine: the rank of its next event
}

// Reset empties t for a new interleaving.
func (t *Trace) Reset() {
	t.evs, t.ranks = t.evs[:0], t.ranks[:0]
	clear(t.next)
}

// Add appends the next event of the interleaving.
func (t *Trace) Add(e Event) {
	for int(e.G) >= len(t.next) {
		t.next = append(t.next, 0)
	}
	t.ranks = append(t.ranks, t.next[e.G])
	t.next[e.G]++
	t.evs = append(t.evs, e)
}

// Len returns the number of events added.
func (t *Trace) Len() int { return len(t.evs) }

// Hash returns the hash of the trace of the events added so far.
func (t *Trace) Hash() uint64 {
	var h uint64
	for j := range t.evs {
		b := &t.evs[j]
		nb := name(b.G, t.ranks[j])
		h += Mix(Mix(Mix(1, nb), uint64(b.Kind)<<32|uint64(uint32(b.Arg))), uint64(uint32(b.Alt))<<32|uint64(uint32(b.With)))
		for i := range j {
			if Dependent(&t.evs[i], b) {
				h += Mix(Mix(2, name(t.evs[i].G, t.ranks[i])), nb)
			}
		}
	}
	return h
}

func name(g, rank int32) uint64 { return uint64(uint32(g))<<32 | uint64(uint32(rank)) }

// Mix mixes x into the hash h (splitmix64's finalizer): trace hashes, and
// the tests' hashes of executions, are built with it.
func Mix(h, x uint64) uint64 {
	x ^= h * 0x9e3779b97f4a7c15
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
