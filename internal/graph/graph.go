// Package graph is the execution graph of the optimal engine: the events of
// each goroutine in program order, the reads-from relation, the coherence
// order of each location, the order in which events were added (stamps), and
// porf and happens-before views so that "a is porf-before b" costs one
// comparison.
//
// A graph is restricted (cut back to a stamp) in place, and copied, keeping
// only a prefix-closed set of events, for a backward revisit. Both are linear
// in the size of the graph.
package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"weft.dev/weft/internal/event"
)

// Pos names an event: goroutine T, index I in its program order.
type Pos struct{ T, I int32 }

// Init is the initialization write of every location.
var Init = Pos{T: -1, I: -1}

// IsInit reports whether p is the initialization write.
func (p Pos) IsInit() bool { return p.T < 0 }

func (p Pos) String() string {
	if p.IsInit() {
		return "init"
	}
	return fmt.Sprintf("(%d,%d)", p.T, p.I)
}

// Kind is the role of an event in the graph.
type Kind uint8

// The kinds of events.
const (
	Read   Kind = iota // reads a location; RF is the write it reads
	Write              // writes a location; it has a place in the location's coherence order
	Spawn              // starts goroutine Lab.Arg
	Join               // waits for goroutine Lab.Arg; RF is its End
	End                // the goroutine returned
	Block              // the goroutine blocked forever (Assume)
	Choice             // an explicit choice among Alts outcomes (maximal: outcome 0)
	// Constraint is the evaluation of a symbolic condition (ConDPOR's C
	// events): Outcome is the outcome taken among Alts. Its maximal
	// outcome is the one a model of the revisited graph gives.
	Constraint
	Fail // the goroutine failed (a panic, a failed assert): nothing of it follows
)

var kindNames = [...]string{"R", "W", "spawn", "join", "end", "block", "choice", "C", "fail"}

func (k Kind) String() string { return kindNames[k] }

// Event is one event of a graph.
type Event struct {
	Lab  event.Label // the operation the event comes from
	Kind Kind
	RMW  bool // Read: the read part of an update; Write: its write part
	// Cont marks an event that continues the operation of the event
	// before it in program order: the write part of an update, or a
	// later read or write of a channel operation, which reads every
	// channel it acts on before it writes any. The events of an
	// operation happen at once: the consistency check contracts them
	// into one node.
	Cont  bool
	Loc   int32 // location of a Read or Write, else -1
	Stamp int32
	RF    Pos // Read: the write read; Join: the End of the goroutine joined
	// Val is the value a Write writes. A read's value is its write's
	// (ReadValue): an engine that recomputes a write's value when it
	// replays it changes what its reads read, with nothing to update.
	Val event.Value
	// Revisitable is false for the events of a revisiting write's prefix
	// in a revisited graph: revisiting them would lose what was revisited.
	Revisitable bool
	// AddedMax records that the event was added the default way: a read
	// read the coherence-latest write, a write was placed last, a choice
	// took its default outcome. Backward revisits may only delete events
	// added that way (the maximal-extension condition).
	AddedMax bool
	// With names, for the first event of a channel operation that took a
	// partner, that partner's goroutine plus one (0 for none).
	With int32
	// Recheck asks the engine to check the event for races when it is
	// replayed: a backward revisit changed what it reads.
	Recheck bool
	// Forced marks a read whose write is determined by the rest of its
	// operation (the value of the k-th send a k-th receive takes): it has
	// no alternative to explore and no later write revisits it.
	Forced bool
	// Joins marks a forced read that only orders its event after the
	// write: it reads that write's value, not the location at some point in
	// time, and has no from-read edge to the writes after it.
	Joins bool
	// Sync marks a read of a channel's state whose reads-from edge is
	// part of happens-before (see the engine's channel model).
	Sync bool
	// Handed marks the choice event of a channel operation that waited
	// until a backward revisit handed it its outcome.
	Handed bool
	// Moved marks the choice event of a channel operation that a
	// backward revisit by the write in RF placed after that write.
	Moved bool
	// Repaired marks the choice event of a channel operation that the
	// repair of a conflict, the revisit by the write in RF of another
	// update that read what it read, placed after that write: waiting, or
	// taking an outcome that reads it.
	Repaired bool
	// Rewaited marks the choice event of a channel operation that a
	// backward revisit left waiting after the write in RF when it was
	// waiting already where it stood.
	Rewaited bool
	// Origin names, for the choice event of a channel operation, the
	// event added right before its first addition (Init for none): where
	// the operation stood before any revisit moved it.
	Origin  Pos
	Outcome int32 // Choice, Constraint, update reads: the outcome taken
	Alts    int32 // how many outcomes there are
	// View holds, for each goroutine t, the index of the last event of t
	// that is porf-before this event (the event itself included), -1 for
	// none; goroutines beyond its length have none. HB is the same for
	// happens-before: porf without the reads-from edges of plain Var
	// accesses. Views are never changed once made (an event may share
	// one array for both, see sameView). They are carved from the slab of
	// the graph that holds the event, which a copy of the graph copies
	// them out of: no other graph points into a graph's slab, so that
	// cutting it back frees the slab past the views it keeps.
	View, HB []int32
}

// Thread is the events of one goroutine.
type Thread struct {
	Events []Event
	Spawn  Pos // the event that started it; Init for the body's goroutine
}

// Loc is the state of one location.
type Loc struct {
	Kind  event.ObjKind
	Co    []Pos // writes in coherence order; Init is implicitly first
	Reads []Pos // reads in the order they were added
	// rfs[i] is the write Reads[i] reads: the scans for the reads of a
	// write compare it rather than look up each read's event, which was
	// most of their cost.
	rfs []Pos
	// byRF is Reads sorted by the write read and then in the order added,
	// byThread by goroutine and program order, coByThread is Co sorted
	// likewise: the reads of a write (ReadsOf), and the reads and the
	// writes that are not porf-before an event (ReadsNotIn, WritesNotIn:
	// few in a long execution), are runs of them, found by binary search
	// rather than by scanning every access of the location. They are
	// built when first asked for, kept sorted as events are added and
	// removed, filtered as Reads and Co are when the graph is cut back or
	// copied, and rebuilt, in the arrays they had, after a read changes
	// its write.
	byRF, byThread, coByThread []Pos
	indexed, coIndexed         bool
}

// comparePos orders positions by goroutine, then program order.
func comparePos(a, b Pos) int {
	if c := cmp.Compare(a.T, b.T); c != 0 {
		return c
	}
	return cmp.Compare(a.I, b.I)
}

// index returns location l with byRF and byThread built.
func (g *Graph) index(l int32) *Loc {
	loc := &g.Locs[l]
	if !loc.indexed {
		loc.byRF = append(loc.byRF[:0], loc.Reads...)
		slices.SortStableFunc(loc.byRF, func(a, b Pos) int { return comparePos(g.Ev(a).RF, g.Ev(b).RF) })
		loc.byThread = append(loc.byThread[:0], loc.Reads...)
		slices.SortFunc(loc.byThread, comparePos)
		loc.indexed = true
	}
	return loc
}

// rfRun returns the bounds of the run of byRF that reads w. Its binary
// searches, here and in searchPos, are written out: the generic ones,
// with a closure, deepen the stack of the program's goroutines, on which
// the engine runs, enough to make each of them grow it.
func (g *Graph) rfRun(byRF []Pos, w Pos) (i, j int) {
	lo, hi := 0, len(byRF) // byRF[:lo] reads writes before w, byRF[hi:] not
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); comparePos(g.Ev(byRF[mid]).RF, w) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	j = lo
	for j < len(byRF) && g.Ev(byRF[j]).RF == w {
		j++
	}
	return lo, j
}

// searchPos returns where p is, or would go, in ps, sorted by comparePos,
// and whether it is there.
func searchPos(ps []Pos, p Pos) (int, bool) {
	lo, hi := 0, len(ps)
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); comparePos(ps[mid], p) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(ps) && ps[lo] == p
}

// ReadsOf returns the reads of location l that read w, in the order they
// were added. The slice belongs to the graph: it must not be changed, and
// holds until the graph changes or ReadsOf is called again.
func (g *Graph) ReadsOf(l int32, w Pos) []Pos {
	if reads := g.Locs[l].Reads; len(reads) <= scanned {
		// Scanned: a forward revisit changes a read's write, and sorting
		// the reads into the index again after each, for the next call,
		// was a sixteenth of fib_bench's instructions.
		out := g.readsOf[:0]
		for i, rf := range g.Locs[l].rfs {
			if rf == w {
				out = append(out, reads[i])
			}
		}
		g.readsOf = out
		return out[:len(out):len(out)]
	}
	rs := g.index(l).byRF
	i, j := g.rfRun(rs, w)
	return rs[i:j:j]
}

// LatestSeen returns the index, in the coherence order of location l, of
// the latest write that view v has seen: one in v, or read by a read in v;
// -1 for Init. A new access whose porf view is v may neither read a write
// before it nor be placed before it in coherence.
func (g *Graph) LatestSeen(l int32, v []int32) int {
	loc := &g.Locs[l]
	co := loc.Co
	i := len(co) - 1
	for i >= 0 && !InView(v, co[i]) {
		i--
	}
	later := co[i+1:] // the writes v may have seen through a read
	if len(later) == 0 {
		return i
	}
	if len(loc.Reads) > scanned {
		for j := len(later) - 1; j >= 0; j-- {
			for _, r := range g.ReadsOf(l, later[j]) {
				if InView(v, r) {
					return i + 1 + j
				}
			}
		}
		return i
	}
	// One pass over the reads rather than one per write (ReadsOf's): it
	// runs for every access added.
	seen := -1 // the latest of later that a read in v reads
	for k, r := range loc.Reads {
		if !InView(v, r) {
			continue
		}
		for j, rf := len(later)-1, loc.rfs[k]; j > seen; j-- {
			if later[j] == rf {
				seen = j
				break
			}
		}
	}
	return i + 1 + seen
}

// scanned is the number of accesses up to which a location's are scanned
// rather than indexed: the index costs more than it saves on the short
// executions of most tests.
const scanned = 32

// ReadsNotIn appends to dst the reads of location l that are not in view
// v, in the order they were added, and returns it.
func (g *Graph) ReadsNotIn(l int32, v []int32, dst []Pos) []Pos {
	if reads := g.Locs[l].Reads; len(reads) <= scanned {
		for _, r := range reads {
			if !InView(v, r) {
				dst = append(dst, r)
			}
		}
		return dst
	}
	start := len(dst)
	dst = appendNotIn(dst, g.index(l).byThread, v)
	slices.SortFunc(dst[start:], func(a, b Pos) int { return cmp.Compare(g.Ev(a).Stamp, g.Ev(b).Stamp) })
	return dst
}

// WritesNotIn appends to dst the writes of location l that are not in
// view v, in coherence order, and returns it.
func (g *Graph) WritesNotIn(l int32, v []int32, dst []Pos) []Pos {
	loc := &g.Locs[l]
	if len(loc.Co) <= scanned {
		for _, w := range loc.Co {
			if !InView(v, w) {
				dst = append(dst, w)
			}
		}
		return dst
	}
	if !loc.coIndexed {
		loc.coByThread = append(loc.coByThread[:0], loc.Co...)
		slices.SortFunc(loc.coByThread, comparePos)
		loc.coIndexed = true
	}
	if len(appendNotIn(nil, loc.coByThread, v)) == 0 {
		return dst
	}
	// There are some: the coherence order says in which order.
	for _, w := range loc.Co {
		if !InView(v, w) {
			dst = append(dst, w)
		}
	}
	return dst
}

// appendNotIn appends to dst the events of ps, sorted by comparePos,
// that are not in view v: the end of each goroutine's run.
func appendNotIn(dst, ps []Pos, v []int32) []Pos {
	for len(ps) > 0 {
		t := ps[0].T
		end := runEnd(ps)
		if int(t) >= len(v) {
			dst = append(dst, ps[:end]...)
		} else if ps[end-1].I > v[t] {
			// The first not in v, by binary search: ps[lo] is in v or
			// lo is -1, ps[hi] is not.
			lo, hi := -1, end-1
			for lo+1 < hi {
				if mid := int(uint(lo+hi) >> 1); ps[mid].I > v[t] {
					hi = mid
				} else {
					lo = mid
				}
			}
			dst = append(dst, ps[hi:end]...)
		}
		ps = ps[end:]
	}
	return dst
}

// runEnd returns the length of the run of ps[0]'s goroutine at the start
// of ps, sorted by comparePos, by galloping: the runs are often short (one
// or two accesses each of many goroutines) and sometimes very long.
func runEnd(ps []Pos) int {
	t := ps[0].T
	lo, hi := 0, 1 // ps[lo] is of t
	for hi < len(ps) && ps[hi].T == t {
		lo, hi = hi, 2*hi
	}
	hi = min(hi, len(ps)) // ps[hi] is not of t, or hi is len(ps)
	for lo+1 < hi {
		if mid := int(uint(lo+hi) >> 1); ps[mid].T == t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// insertSorted inserts p into ps, sorted by comparePos, and returns ps.
func insertSorted(ps []Pos, p Pos) []Pos {
	i, _ := searchPos(ps, p)
	return slices.Insert(ps, i, p)
}

// removeSorted removes p from ps, sorted by comparePos, and returns ps.
func removeSorted(ps []Pos, p Pos) []Pos {
	if i, ok := searchPos(ps, p); ok {
		return slices.Delete(ps, i, i+1)
	}
	return ps
}

// Graph is an execution graph.
type Graph struct {
	Threads []Thread
	Locs    []Loc
	Order   []Pos // Order[s] is the event with stamp s
	// Choices are the Choice events in the order they were added: the
	// selects and waits that each channel write may revisit, a few among
	// many events.
	Choices []Pos
	// joins are the Join events in the order they were added: the
	// successors of an End, which the cycle check asks for.
	joins []Pos
	// slab holds the views of the events, each carved at its end (see
	// newView). slabEnd[s] is how much of it the views of the events with
	// stamps up to s take, views in arrays the slab grew out of taking
	// none: cutting the graph back to stamp s cuts the slab back to it,
	// and the executions rebuilt from there reuse the slab instead of
	// allocating their views, over a third of the bytes fib_bench
	// allocated.
	slab    []int32
	slabEnd []int32
	// seen and stack are Acyclic's, kept from one call to the next: the
	// check runs on nearly every event added, and allocating them was a
	// third of the bytes fib_bench allocated.
	seen  []bool
	stack []Pos
	// readsOf holds what ReadsOf returned last for a location with few
	// reads.
	readsOf []Pos
	// cutLocs holds CutToStamp's locations of the events it removes.
	cutLocs []int32
}

// New returns the graph with no event.
func New() *Graph { return &Graph{Threads: []Thread{{Spawn: Init}}} }

// Ev returns the event at p, which must not be Init.
func (g *Graph) Ev(p Pos) *Event { return &g.Threads[p.T].Events[p.I] }

// Has reports whether the graph contains p.
func (g *Graph) Has(p Pos) bool {
	return p.IsInit() || int(p.T) < len(g.Threads) && int(p.I) < len(g.Threads[p.T].Events)
}

// Len returns the number of events.
func (g *Graph) Len() int { return len(g.Order) }

// Alive reports whether goroutine t has been started in the graph.
func (g *Graph) Alive(t int32) bool {
	if t == 0 {
		return true
	}
	if int(t) >= len(g.Threads) {
		return false
	}
	s := g.Threads[t].Spawn
	return s != Init && g.Has(s)
}

// Loc returns location l, growing the table as needed.
func (g *Graph) Loc(l int32) *Loc {
	for int(l) >= len(g.Locs) {
		g.Locs = append(g.Locs, Loc{})
	}
	return &g.Locs[l]
}

// Before reports whether a is porf-before (or equal to) b.
func (g *Graph) Before(a, b Pos) bool {
	if a.IsInit() {
		return true
	}
	if b.IsInit() {
		return false
	}
	v := g.Ev(b).View
	return int(a.T) < len(v) && a.I <= v[a.T]
}

// HBBefore reports whether a happens before (or is) b.
func (g *Graph) HBBefore(a, b Pos) bool {
	if a.IsInit() {
		return true
	}
	if b.IsInit() {
		return false
	}
	v := g.Ev(b).HB
	return int(a.T) < len(v) && a.I <= v[a.T]
}

// InView reports whether p is in the view v.
func InView(v []int32, p Pos) bool { return p.IsInit() || int(p.T) < len(v) && p.I <= v[p.T] }

// Leader returns the first event of the operation that the event at p
// belongs to.
func (g *Graph) Leader(p Pos) Pos {
	evs := g.Threads[p.T].Events
	for p.I > 0 && evs[p.I].Cont {
		p.I--
	}
	return p
}

// OpEnd returns the index, in p's goroutine, right after the last event
// of the operation that the event at p belongs to.
func (g *Graph) OpEnd(p Pos) int32 {
	evs := g.Threads[p.T].Events
	i := p.I + 1
	for int(i) < len(evs) && evs[i].Cont {
		i++
	}
	return i
}

// Value returns the value written by w (the zero value for Init).
func (g *Graph) Value(w Pos) event.Value {
	if w.IsInit() {
		return event.Value{}
	}
	return g.Ev(w).Val
}

// ReadValue returns the value the read at r reads.
func (g *Graph) ReadValue(r Pos) event.Value { return g.Value(g.Ev(r).RF) }

// CoIndex returns the index of write w in the coherence order of loc l:
// -1 for Init.
func (g *Graph) CoIndex(l int32, w Pos) int {
	if w.IsInit() {
		return -1
	}
	// From the end: the writes asked about are mostly the latest ones
	// (a new write goes after the last), and a long execution's
	// coherence orders are long.
	co := g.Locs[l].Co
	for i := len(co) - 1; i >= 0; i-- {
		if co[i] == w {
			return i
		}
	}
	panic(fmt.Sprintf("weft: internal error: %v is not in the coherence order of location %d", w, l))
}

// CoMax returns the coherence-latest write of l.
func (g *Graph) CoMax(l int32) Pos {
	co := g.Loc(l).Co
	if len(co) == 0 {
		return Init
	}
	return co[len(co)-1]
}

// newView allocates a view of n entries from the graph's slab, a copy of
// base (at most n entries) and -1 beyond. Views of existing events keep
// the slab arrays they were cut from when it grows: they take none of the
// new array.
func (g *Graph) newView(n int, base []int32) []int32 {
	if len(g.slab)+n > cap(g.slab) {
		// Doubling from a small first array: the copy that a backward
		// revisit makes often ends after a few events, and a first array
		// of 1,024 entries was half the bytes fib_bench allocated.
		g.slab = make([]int32, 0, max(64, 2*n, 2*cap(g.slab)))
		clear(g.slabEnd)
	}
	start := len(g.slab)
	g.slab = g.slab[:start+n]
	v := g.slab[start : start+n : start+n]
	for i := copy(v, base); i < n; i++ {
		v[i] = -1
	}
	return v
}

// join makes dst (at least as long as v) the union of dst and v.
func join(dst, v []int32) {
	for i, x := range v {
		if x > dst[i] {
			dst[i] = x
		}
	}
}

// Add appends e to goroutine t's events and returns its position: Next
// and Push for an event built elsewhere.
func (g *Graph) Add(t int32, e Event, sync bool) Pos {
	*g.slot(t) = e
	return g.Push(t, sync)
}

// Next returns the slot of goroutine t's next event, cleared, for the
// caller to fill in and Push to add. An event built in its slot is not
// copied from the caller's frame to Add's and on to the graph: half a
// percent of fib_bench's instructions.
func (g *Graph) Next(t int32) *Event {
	ev := g.slot(t)
	*ev = Event{}
	return ev
}

// slot returns the slot of goroutine t's next event, as it is.
func (g *Graph) slot(t int32) *Event {
	for int(t) >= len(g.Threads) {
		g.Threads = append(g.Threads, Thread{Spawn: Init})
	}
	th := &g.Threads[t]
	n := len(th.Events)
	if n == cap(th.Events) {
		th.Events = slices.Grow(th.Events, 1)
	}
	return &th.Events[:n+1][n]
}

// Push adds the event filled in the slot Next returned for goroutine t and
// returns its position. The views of the event are computed here from its
// program-order predecessor (or the spawn that started t), its reads-from
// source and, for a join, the joined goroutine's end; sync reports whether
// its reads-from edge synchronizes (is part of happens-before).
func (g *Graph) Push(t int32, sync bool) Pos {
	th := &g.Threads[t]
	p := Pos{T: t, I: int32(len(th.Events))}
	th.Events = th.Events[:p.I+1]
	ev := &th.Events[p.I]
	ev.Stamp = int32(len(g.Order))
	g.Order = append(g.Order, p)
	g.computeViews(p, ev, sync)
	g.slabEnd = append(g.slabEnd, int32(len(g.slab)))
	switch ev.Kind {
	case Read:
		l := g.Loc(ev.Loc)
		l.Reads = append(l.Reads, p)
		l.rfs = append(l.rfs, ev.RF)
		if l.indexed {
			// p was added last: it goes at the end of its write's run.
			_, j := g.rfRun(l.byRF, ev.RF)
			l.byRF = slices.Insert(l.byRF, j, p)
			l.byThread = insertSorted(l.byThread, p)
		}
	case Spawn:
		c := ev.Lab.Arg
		for int(c) >= len(g.Threads) {
			g.Threads = append(g.Threads, Thread{Spawn: Init})
		}
		g.Threads[c].Spawn = p
	case Choice:
		g.Choices = append(g.Choices, p)
	case Join:
		g.joins = append(g.joins, p)
	}
	return p
}

// computeViews sets the views of ev, the event at p, from its
// predecessors.
func (g *Graph) computeViews(p Pos, ev *Event, sync bool) {
	th := &g.Threads[p.T]
	var pv, ph []int32 // the program-order predecessor's views
	if p.I > 0 {
		pe := &th.Events[p.I-1]
		pv, ph = pe.View, pe.HB
	} else if sp := th.Spawn; !sp.IsInit() {
		pe := g.Ev(sp)
		pv, ph = pe.View, pe.HB
	}
	var sv, sh []int32 // the reads-from source's
	src := (ev.Kind == Read || ev.Kind == Join) && !ev.RF.IsInit()
	if src {
		se := g.Ev(ev.RF)
		sv, sh = se.View, se.HB
	}
	// The view reaches no goroutine beyond those its sources reach:
	// an event of a program that starts goroutines one after the other
	// needs far fewer entries than there are goroutines.
	n := max(int(p.T)+1, len(pv), len(sv))
	// A view starts as its program-order predecessor's.
	view := g.newView(n, pv)
	join(view, sv)
	view[p.T] = p.I
	synced := !src || sync || ev.Kind == Join
	if synced && sameView(pv, ph) && sameView(sv, sh) {
		// Happens-before is porf here, as for every event of a program
		// of atomics only: the event shares one array for both, half
		// the views to make and to collect.
		ev.View, ev.HB = view, view
		return
	}
	hb := g.newView(n, ph)
	if synced {
		join(hb, sh)
	}
	hb[p.T] = p.I
	ev.View, ev.HB = view, hb
}

// sameView reports whether the views a and b are one array (then equal:
// views never change once made).
func sameView(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// SetRF makes the read (or join) at p read from w and recomputes its views.
// p must be the last event of its goroutine.
func (g *Graph) SetRF(p, w Pos, sync bool) {
	ev := g.Ev(p)
	ev.RF = w
	if ev.Kind == Read {
		l := &g.Locs[ev.Loc]
		l.rfs[readIndex(l.Reads, p)] = w
		l.indexed = false
	}
	g.computeViews(p, ev, sync)
	// The new views are at the end of the slab, after those of the
	// events added after p (none, for a forward revisit's read).
	for s := int(ev.Stamp); s < len(g.slabEnd); s++ {
		g.slabEnd[s] = int32(len(g.slab))
	}
}

// InsertCo places write w in the coherence order of its location right
// after pred (Init: first).
func (g *Graph) InsertCo(w, pred Pos) {
	g.insertCo(w, pred)
	if l := &g.Locs[g.Ev(w).Loc]; l.coIndexed {
		l.coByThread = insertSorted(l.coByThread, w)
	}
}

// insertCo is InsertCo without the index, which a moved write is in
// already.
func (g *Graph) insertCo(w, pred Pos) {
	l := g.Loc(g.Ev(w).Loc)
	i := 0
	if !pred.IsInit() {
		i = g.CoIndex(g.Ev(w).Loc, pred) + 1
	}
	l.Co = append(l.Co, Pos{})
	copy(l.Co[i+1:], l.Co[i:])
	l.Co[i] = w
}

// MoveCo moves write w right after pred in its location's coherence order.
func (g *Graph) MoveCo(w, pred Pos) {
	loc := g.Ev(w).Loc
	l := &g.Locs[loc]
	i := g.CoIndex(loc, w)
	l.Co = append(l.Co[:i], l.Co[i+1:]...)
	g.insertCo(w, pred)
}

// CoSucc returns the coherence successor of w (Init included) at l, and
// whether it has one.
func (g *Graph) CoSucc(l int32, w Pos) (Pos, bool) {
	i := g.CoIndex(l, w) + 1
	if co := g.Locs[l].Co; i < len(co) {
		return co[i], true
	}
	return Pos{}, false
}

// RemoveEvent removes the event at p, the last of its goroutine (but not
// necessarily the last added), renumbering the stamps after it.
func (g *Graph) RemoveEvent(p Pos) {
	ev := g.Ev(p)
	s := ev.Stamp
	g.dropFromLoc(p, ev)
	th := &g.Threads[p.T]
	th.Events = th.Events[:p.I]
	g.Order = append(g.Order[:s], g.Order[s+1:]...)
	// The slab keeps its views: the events added after it may have
	// their views after them.
	g.slabEnd = append(g.slabEnd[:s], g.slabEnd[s+1:]...)
	for i := int(s); i < len(g.Order); i++ {
		g.Ev(g.Order[i]).Stamp = int32(i)
	}
}

func (g *Graph) dropFromLoc(p Pos, ev *Event) {
	switch ev.Kind {
	case Read:
		l := &g.Locs[ev.Loc]
		i := readIndex(l.Reads, p)
		l.Reads = slices.Delete(l.Reads, i, i+1)
		l.rfs = slices.Delete(l.rfs, i, i+1)
		if l.indexed {
			l.byRF = remove(l.byRF, p)
			l.byThread = removeSorted(l.byThread, p)
		}
	case Write:
		l := &g.Locs[ev.Loc]
		l.Co = remove(l.Co, p)
		if l.coIndexed {
			l.coByThread = removeSorted(l.coByThread, p)
		}
	case Spawn:
		g.Threads[ev.Lab.Arg].Spawn = Init
	case Choice:
		g.Choices = remove(g.Choices, p)
	case Join:
		g.joins = remove(g.joins, p)
	}
}

// readIndex returns the index of the read r in reads, searched from the
// end: the reads whose writes change were mostly added last.
func readIndex(reads []Pos, r Pos) int {
	for i := len(reads) - 1; i >= 0; i-- {
		if reads[i] == r {
			return i
		}
	}
	panic(fmt.Sprintf("weft: internal error: %v is not among the reads of its location", r))
}

func remove(s []Pos, p Pos) []Pos {
	for i, q := range s {
		if q == p {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// CutToStamp removes every event added after stamp s.
func (g *Graph) CutToStamp(s int32) {
	if int(s) >= len(g.Order)-1 {
		return
	}
	// The events removed, Order's suffix, say what they take with them:
	// going through them rather than through every goroutine, location
	// and spawn was half the cost of a cut.
	removed := g.Order[s+1:]
	cut := g.cutLocs[:0]
	for _, p := range removed {
		ev := g.Ev(p)
		if ev.Kind == Spawn {
			g.Threads[ev.Lab.Arg].Spawn = Init
		}
		// A write added but not placed in coherence yet may have a
		// location the table does not have. Each location once: the
		// events removed are mostly on a few.
		if l := ev.Loc; l >= 0 && int(l) < len(g.Locs) && !slices.Contains(cut, l) {
			cut = append(cut, l)
		}
	}
	// Each goroutine loses the events from its first one removed on.
	for _, p := range removed {
		if th := &g.Threads[p.T]; int(p.I) < len(th.Events) {
			th.Events = th.Events[:p.I]
		}
	}
	g.Order = g.Order[:s+1]
	g.slab = g.slab[:g.slabEnd[s]]
	g.slabEnd = g.slabEnd[:s+1]
	g.Choices = g.keepAdded(g.Choices)
	g.joins = g.keepAdded(g.joins)
	// An access is in the lists of its own location: only those of the
	// events removed can lose some.
	for _, l := range cut {
		loc := &g.Locs[l]
		loc.Reads = g.keepAdded(loc.Reads)
		loc.rfs = loc.rfs[:len(loc.Reads)]
		if loc.indexed {
			loc.byRF = g.keep(loc.byRF)
			loc.byThread = g.keep(loc.byThread)
		}
		loc.Co = g.keep(loc.Co)
		if loc.coIndexed {
			loc.coByThread = g.keep(loc.coByThread)
		}
	}
	g.cutLocs = cut
}

// keep filters ps down to the events the graph still has.
func (g *Graph) keep(ps []Pos) []Pos {
	out := ps[:0]
	for _, p := range ps {
		if g.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// keepAdded is keep for ps in the order the events were added, whose
// events the graph no longer has are a suffix: it runs for every
// alternative the engine explores.
func (g *Graph) keepAdded(ps []Pos) []Pos {
	n := len(ps)
	for n > 0 && !g.Has(ps[n-1]) {
		n--
	}
	return ps[:n]
}

// Copy returns a copy of the graph restricted to the events in view v (one
// index per goroutine; goroutines beyond v keep nothing), with stamps
// renumbered in the original addition order.
func (g *Graph) Copy(v []int32) *Graph { return g.CopyInto(nil, v) }

// Size returns what Copy copies: the number of g's events and of the
// entries of their views. A view has an entry per goroutine, so that a
// graph of many goroutines is far larger than its events.
func (g *Graph) Size() int {
	n := 0
	for _, p := range g.Order {
		ev := g.Ev(p)
		n += 1 + len(ev.View)
		if !sameView(ev.View, ev.HB) {
			n += len(ev.HB)
		}
	}
	return n
}

// CopyInto is Copy into c, a graph no longer used, whose arrays it reuses;
// c may be nil. Engines recycle the graphs of finished frames this way, so
// that an execution does not allocate its events anew.
func (g *Graph) CopyInto(c *Graph, v []int32) *Graph {
	if c == nil {
		c = &Graph{}
	}
	c.Threads = resize(c.Threads, len(g.Threads))
	c.Locs = resize(c.Locs, len(g.Locs))
	in := func(p Pos) bool { return InView(v, p) }
	for t := range g.Threads {
		c.Threads[t].Spawn = Init
	}
	c.slab = c.slab[:0]
	c.slabEnd = c.slabEnd[:0]
	for t := range g.Threads {
		th := &g.Threads[t]
		n := 0
		if t < len(v) {
			n = min(int(v[t])+1, len(th.Events))
		}
		// The execution that continues from the copy usually grows the
		// goroutine back to the length it had: one allocation of that
		// capacity is cheaper than growing the slice event by event.
		evs := c.Threads[t].Events
		if cap(evs) < n {
			evs = make([]Event, 0, max(n+4, len(th.Events)))
		}
		c.Threads[t].Events = append(evs[:0], th.Events[:n]...)
		if sp := th.Spawn; sp != Init && in(sp) {
			c.Threads[t].Spawn = sp
		}
	}
	c.Order = resize(c.Order, 0)
	c.Choices = resize(c.Choices, 0)
	c.joins = resize(c.joins, 0)
	for _, p := range g.Order {
		if in(p) {
			ev := c.Ev(p)
			ev.Stamp = int32(len(c.Order))
			c.Order = append(c.Order, p)
			c.copyViews(ev)
			switch ev.Kind {
			case Choice:
				c.Choices = append(c.Choices, p)
			case Join:
				c.joins = append(c.joins, p)
			}
		}
	}
	for l := range g.Locs {
		dst := &c.Locs[l]
		dst.Kind = g.Locs[l].Kind
		src := &g.Locs[l]
		dst.Co = appendIn(dst.Co[:0], src.Co, v)
		dst.Reads, dst.rfs = dst.Reads[:0], dst.rfs[:0]
		for i, r := range src.Reads {
			if InView(v, r) {
				dst.Reads = append(dst.Reads, r)
				dst.rfs = append(dst.rfs, src.rfs[i])
			}
		}
		dst.indexed, dst.coIndexed = src.indexed, src.coIndexed
		if src.indexed {
			dst.byRF = appendIn(dst.byRF[:0], src.byRF, v)
			dst.byThread = appendIn(dst.byThread[:0], src.byThread, v)
		}
		if src.coIndexed {
			dst.coByThread = appendIn(dst.coByThread[:0], src.coByThread, v)
		}
	}
	return c
}

// copyViews gives ev, just copied from another graph, copies of its views
// in the graph's slab.
func (g *Graph) copyViews(ev *Event) {
	shared := sameView(ev.View, ev.HB)
	ev.View = g.newView(len(ev.View), ev.View)
	if shared {
		ev.HB = ev.View
	} else {
		ev.HB = g.newView(len(ev.HB), ev.HB)
	}
	g.slabEnd = append(g.slabEnd, int32(len(g.slab)))
}

// appendIn appends to dst the events of ps in view v, and returns it.
func appendIn(dst, ps []Pos, v []int32) []Pos {
	for _, p := range ps {
		if InView(v, p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// resize returns s with length n, reusing its array when it is large
// enough; the elements it keeps are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return append(s[:cap(s)], make([]T, n-cap(s))...)
}

// String renders the graph for debugging, in addition order.
func (g *Graph) String() string {
	var b strings.Builder
	for s, p := range g.Order {
		ev := g.Ev(p)
		fmt.Fprintf(&b, "%3d %v %v %v", s, p, ev.Kind, ev.Lab.Kind)
		switch {
		case ev.Loc >= 0 && ev.Kind == Read:
			fmt.Fprintf(&b, " loc%d val=%v", ev.Loc, g.ReadValue(p))
		case ev.Loc >= 0 && ev.Kind == Write:
			fmt.Fprintf(&b, " loc%d val=%v", ev.Loc, ev.Val)
		}
		if ev.Kind == Read || ev.Kind == Join {
			fmt.Fprintf(&b, " rf=%v", ev.RF)
		}
		if !ev.AddedMax {
			b.WriteString(" !max")
		}
		if !ev.Revisitable {
			b.WriteString(" !rev")
		}
		b.WriteByte('\n')
	}
	for l, loc := range g.Locs {
		if len(loc.Co) > 0 {
			fmt.Fprintf(&b, "co loc%d: %v\n", l, loc.Co)
		}
	}
	return b.String()
}
