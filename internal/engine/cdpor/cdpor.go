// Package cdpor is constrained dynamic partial order reduction (Albert,
// Gómez-Zamalloa, Isabel, Rubio, CAV 2018; the tool SYCO): source-DPOR with
// sleep sets (package sdpor) that explores by conditional independence,
// where two operations, or two critical sections, commute under a
// constraint that the independence relation of package indep, which must
// hold in every state, cannot express.
//
// # What commutes
//
// The engine refines indep's relation (indep.Refinement) with two
// independence constraints (ICs):
//
//   - Two stores of the same value to one object (built in). From any
//     state, either order leaves the object holding that value, and
//     neither returns anything: the paper's related-work example (two
//     writes of 5 and a read, which it explores in two executions).
//   - Two critical sections that the program declares commuting
//     (user-declared): sync.Mutex.LockCommuting(class) starts a section
//     that lasts until the goroutine's Unlock of that mutex, and declares
//     that it commutes with every other section of the mutex declared with
//     the same class. Every event of one such section (its Lock and
//     Unlock, and what it does on memory and sync objects in between)
//     commutes with every event of the other; spawns, joins and channel
//     operations inside keep indep's relation.
//
// The ICs are recorded in happens-before as the paper prescribes: a pair
// they let commute is no race (the paper's back-set reduction, line 9 of
// its Algorithm 1), a sleeping goroutine stays asleep across it (the
// sleep-set extension, line 17), and neither event of the pair happens
// before the other through it, so that the races of third events with
// either are still found.
//
// # Why it is sound
//
// The paper's condition for using an IC in race detection is transitive
// uniformity: the constraint must hold in every state that other
// goroutines can reach while the pair waits, which it checks with a static
// over-approximation W of what every block may write. weft has no such
// analysis of Go code, so the engine uses only ICs whose constraint reads
// no state: it holds wherever the two events are enabled, transitive
// uniformity holds trivially (the constraint's variables, G(C) of the
// paper's Def. 4, are none), and the refinement is again an unconditional
// independence relation, for which source-DPOR's proof applies unchanged.
// Constraints on the state (a load and a store of the value already there,
// a failing CompareAndSwap and a store that keeps it failing) are not
// used: without W, a third goroutine may change the state under them, and
// that is the paper's Example 4, where a trace is lost.
//
// Same-value stores commute as single events: neither enables or disables
// the other, and the states and results agree. Commuting sections are a
// different matter, since a section's Unlock enables the other's Lock: the
// events of two sections do not commute one by one, the sections do as a
// whole. The argument is the paper's model, where a block made atomic by a
// lock is one event: the user's declaration says that two sections of a
// class reach the same state, and that nothing observes the order (the
// goroutines do the same afterwards, and other goroutines touch what they
// touch only in sections of that mutex, where the mutex orders it, or
// before or after all of them, where happens-before does).
// Then every execution is equivalent, by indep's relation, to one where
// each declared section runs without interruption (the events of other
// goroutines inside it touch nothing it touches), and in those, a section
// is one event that commutes with the other sections of its class from
// every state: neither enables nor disables the other, since each leaves
// the mutex as it found it. sdpor over the events, with all events of the
// two sections mutually independent, explores the races of that
// block-level relation: a race between two sections is between their
// Locks, which are now independent, and a third event dependent with an
// event of either races with each, since neither happens before the other.
// A declaration that is false (the order shows in a value read afterwards)
// makes the engine miss the executions that show it: it is the user's
// claim, as the paper's declared ICs are.
//
// The guarantee is the paper's Theorem 2: for every Mazurkiewicz trace of
// indep's relation, the engine explores an execution that reaches the same
// state (up to what the declarations say nothing observes: the values
// read inside declared sections), with the same bugs. The paper infers
// that it never explores more executions than SDPOR; the tests check that
// it explored no more than sdpor on every program they run, and fewer
// where an IC held. The oracle tests check the guarantee against dfs on
// random programs (the same bug kinds and the same final states: every
// goroutine's operations and results, every object's last value) and
// count executions on known programs.
//
// # What it does not do
//
// The paper's ICs are synthesized with an SMT solver from the code of the
// blocks; weft runs Go code it cannot read, and the symbolic values it
// tracks are inputs, not the state of a critical section, so ICs are not
// synthesized here. Nor are context-sensitive sleep sets (CSDPOR's
// sequences, lines 14 and 16 of the paper's algorithm): sdpor's sleep sets
// hold single goroutines.
//
// Two sections of one mutex whose accesses (what they read and write,
// with the values read) do not conflict commute too, and that needs no
// declaration: neither can change what the other reads, so neither
// enables nor disables the other. But a section's accesses are known at
// its Unlock, while sdpor decides the races and the happens-before of an
// event when it is performed, at the section's Lock; using them needs
// race detection deferred to the end of the section, which the engine
// does not have. Nor does it check a declaration: a section touching
// what a goroutine outside the mutex touched between two sections is the
// program's semantics, which every engine would have to report alike.
package cdpor

import (
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
)

// New returns a cdpor engine.
func New(c engine.Config) engine.Engine { return sdpor.NewRefined(c, &Relation{}) }

// Relation is the conditional independence relation of the engine: the
// ICs of the package comment, as an indep.Refinement.
type Relation struct {
	// sect holds, by goroutine, the key of the declared section it is in,
	// or 0.
	sect []uint64
}

// valued marks in a Note's A that B holds the value a store writes.
const valued = 1 << 63

// sectionKey names the sections of class class of mutex obj: never 0, and
// clear of valued.
func sectionKey(obj int32, class uint64) uint64 {
	return uint64(uint32(obj))<<32 | class&0x7fffffff | 1<<31
}

// Reset implements indep.Refinement.
func (r *Relation) Reset() { clear(r.sect) }

// Note implements indep.Refinement: A is the key of the declared section
// the event is part of (a declared Lock starts one), with valued set when
// B is the value a store writes.
func (r *Relation) Note(ev *indep.Event, l *event.Label, _ event.Value) indep.Note {
	var n indep.Note
	if int(ev.G) < len(r.sect) {
		n.A = r.sect[ev.G]
	}
	if n.A == 0 && l.Kind == event.Lock && l.A.N != 0 {
		n.A = sectionKey(l.Obj, l.A.N)
	}
	if l.Kind == event.Store && l.A.P == nil {
		n.A |= valued
		n.B = l.Mask(l.A.N)
	}
	return n
}

// Performed implements indep.Refinement: a declared Lock enters a section
// (a goroutine already in one stays in it: the inner section is part of
// the outer), the Unlock of its mutex leaves it.
func (r *Relation) Performed(ev *indep.Event, l *event.Label) {
	for int(ev.G) >= len(r.sect) {
		r.sect = append(r.sect, 0)
	}
	s := &r.sect[ev.G]
	switch {
	case l.Kind == event.Lock && l.A.N != 0 && *s == 0:
		*s = sectionKey(l.Obj, l.A.N)
	case l.Kind == event.Unlock && *s != 0 && int32(*s>>32) == l.Obj:
		*s = 0
	}
}

// Commute implements indep.Refinement.
func (r *Relation) Commute(a, b *indep.Event, na, nb indep.Note) bool {
	if a.Kind == event.Store && b.Kind == event.Store && na.A&valued != 0 && nb.A&valued != 0 && na.B == nb.B {
		return true
	}
	// Both in sections of one class of one mutex, on objects (not spawns,
	// joins, channels or the ends of goroutines, whose rules hold as
	// they are).
	sa, sb := na.A&^valued, nb.A&^valued
	return sa != 0 && sa == sb && a.Obj >= 0 && b.Obj >= 0
}
