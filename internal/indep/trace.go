package indep

import (
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// Trace accumulates the events of one interleaving and hashes its
// Mazurkiewicz trace: equivalent interleavings have the same hash, and
// interleavings of different traces differ in their events (kind and
// outcome of some goroutine's n-th operation) or in the order of a pair of
// dependent events, which the hash sums over. Events are named by goroutine
// and rank, which every interleaving of a trace gives them alike. A
// goroutine is named by its parent's name and its rank among the parent's
// children, not by its id: the runtime numbers goroutines in the order an
// exploration first meets them, which differs from engine to engine when
// goroutines start others.
//
// It costs a comparison per pair of events: it is for the reference
// engine on small programs.
type Trace struct {
	evs   []Event
	notes []Note  // of each event, with a refinement
	ranks []int32 // rank of each event in its goroutine
	next  []int32 // by goroutine: the rank of its next event
	in    []bool  // scratch space of Local
	rel   Refinement
	// names holds, by goroutine, its name (0: not started by an event of
	// the trace), kids how many goroutines it started.
	names, kids []uint64
}

// Refine makes t hash the traces of the refinement r of the relation
// (nil: the relation itself): the pairs of events that r lets commute are
// independent. The events are then added with their notes (AddNoted).
func (t *Trace) Refine(r Refinement) { t.rel = r }

// Reset empties t for a new interleaving.
func (t *Trace) Reset() {
	t.evs, t.notes, t.ranks = t.evs[:0], t.notes[:0], t.ranks[:0]
	clear(t.next)
	clear(t.names)
	clear(t.kids)
}

// Add appends the next event of the interleaving.
func (t *Trace) Add(e Event) { t.AddNoted(e, Note{}) }

// AddNoted appends the next event of the interleaving with what the
// refinement noted of it.
func (t *Trace) AddNoted(e Event, n Note) {
	for int(e.G) >= len(t.next) {
		t.next = append(t.next, 0)
	}
	t.ranks = append(t.ranks, t.next[e.G])
	t.next[e.G]++
	t.evs = append(t.evs, e)
	t.notes = append(t.notes, n)
	if e.Kind == event.Spawn {
		for int(max(e.G, e.Arg)) >= len(t.names) {
			t.names, t.kids = append(t.names, 0), append(t.kids, 0)
		}
		t.kids[e.G]++
		t.names[e.Arg] = Mix(t.goroutine(e.G), t.kids[e.G])
	}
}

// goroutine returns the name of goroutine g: the one Add gave it, or,
// for one that no event of the trace started (the body, weft/time's
// clock), its id.
func (t *Trace) goroutine(g int32) uint64 {
	if int(g) < len(t.names) && t.names[g] != 0 {
		return t.names[g]
	}
	return uint64(uint32(g))
}

// dependent reports whether the i-th and j-th events are dependent.
func (t *Trace) dependent(i, j int) bool {
	a, b := &t.evs[i], &t.evs[j]
	if !Dependent(a, b) {
		return false
	}
	return t.rel == nil || a.G == b.G || !t.rel.Commute(a, b, t.notes[i], t.notes[j])
}

// Len returns the number of events added.
func (t *Trace) Len() int { return len(t.evs) }

// Hash returns the hash of the trace of the events added so far.
func (t *Trace) Hash() uint64 { return t.hash(nil) }

// Local returns the hash of the trace of the local configuration of
// goroutine g's last event: that event and every event added before it
// that it depends on, directly or through others. Two interleavings have
// the same local configuration of an event when they agree on the event,
// on everything that must happen before it and on the order of the
// dependent pairs there, whatever else they did before or around it: the
// hash of a trace of those events alone. It returns 0 when g has no event.
func (t *Trace) Local(g int32) uint64 {
	last := -1
	for j := len(t.evs) - 1; j >= 0; j-- {
		if t.evs[j].G == g {
			last = j
			break
		}
	}
	if last < 0 {
		return 0
	}
	t.in = append(t.in[:0], make([]bool, last+1)...)
	t.in[last] = true
	// An event is in the configuration when an event of it that comes
	// later depends on it; the events after last are not.
	for i := last - 1; i >= 0; i-- {
		for j := i + 1; j <= last; j++ {
			if t.in[j] && t.dependent(i, j) {
				t.in[i] = true
				break
			}
		}
	}
	return t.hash(t.in)
}

// Ending returns the class of an interleaving of t's events that ends in
// a bug of kind k at fault goroutine g (-1: none). A deadlock or a leak
// is the state where every goroutine left is blocked: its class is the
// whole trace. Any other bug is an operation of g (its failure step, for
// an assertion or a panic; a racing access; a misuse), and its class is
// the local configuration of that operation (Local): an execution that
// reaches the same operation after the same history is the same bug
// however the goroutines it does not depend on moved meanwhile.
func (t *Trace) Ending(k engine.BugKind, g int32) uint64 {
	if k == engine.Deadlock || k == engine.GoroutineLeak || g < 0 {
		return t.Hash()
	}
	return t.Local(g)
}

// hash hashes the events that in marks (all when in is nil).
func (t *Trace) hash(in []bool) uint64 {
	var h uint64
	n := len(t.evs)
	if in != nil {
		n = len(in)
	}
	for j := range n {
		if in != nil && !in[j] {
			continue
		}
		b := &t.evs[j]
		nb := t.name(j)
		arg := uint64(uint32(b.Arg))
		if b.Kind == event.Spawn || b.Kind == event.Join {
			arg = t.goroutine(b.Arg)
		}
		with := uint64(0)
		if b.With != 0 {
			with = t.goroutine(b.With - 1)
		}
		h += Mix(Mix(Mix(Mix(Mix(1, nb), uint64(b.Kind)), arg), uint64(uint32(b.Alt))), with)
		for i := range j {
			if (in == nil || in[i]) && t.dependent(i, j) {
				h += Mix(Mix(2, t.name(i)), nb)
			}
		}
	}
	return h
}

// name returns the name of the j-th event: its goroutine's and its rank.
func (t *Trace) name(j int) uint64 { return Mix(t.goroutine(t.evs[j].G), uint64(uint32(t.ranks[j]))) }

// Mix mixes x into the hash h (splitmix64's finalizer): trace hashes, and
// the tests' hashes of executions, are built with it.
func Mix(h, x uint64) uint64 {
	x ^= h * 0x9e3779b97f4a7c15
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
