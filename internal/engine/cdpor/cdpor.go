// Package cdpor is constrained dynamic partial order reduction (Albert,
// Gómez-Zamalloa, Isabel, Rubio, CAV 2018; the tool SYCO): source-DPOR with
// sleep sets (package sdpor) that explores by conditional independence,
// where two operations, or two critical sections, commute under a
// constraint that the independence relation of package indep, which must
// hold in every state, cannot express.
//
// # What commutes
//
// The engine refines indep's relation (indep.Refinement) with
// independence constraints (ICs) from three sources:
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
//   - Two sections of the declared effects of a monitor (synthesized):
//     weft/sync's Monitor holds a small integer state that only its
//     declared effects change, each a Go function over sym.Int values
//     that a section (Effect.Do) runs on the state. Package ic runs each
//     effect on symbolic inputs, explores its branches, composes every
//     pair in both orders and asks the SMT solver when they agree (the
//     paper's Def. 5, with the sections' results): always, never, or in
//     the states where a condition on the pre-state and the arguments
//     holds; once per pair in a check, when the exploration first meets
//     it. The Lock and Unlock of two such sections commute when their
//     condition is always true, or when it holds in the pre-state of each
//     section and is uniform (below).
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
// analysis of Go code. The built-in and user-declared ICs read no state:
// they hold wherever the two events are enabled, transitive uniformity
// holds trivially (the constraint's variables, G(C) of the paper's Def. 4,
// are none), and they are an unconditional independence relation, for
// which source-DPOR's proof applies unchanged. Constraints on the state of
// memory (a load and a store of the value already there, a failing
// CompareAndSwap and a store that keeps it failing) are not used: without
// W, a third goroutine may change the state under them, and that is the
// paper's Example 4, where a trace is lost. Nor do two atomic adds commute
// as built in: each returns the new value, and whether the program reads
// it is not something weft sees. A program says it by making the counter
// a monitor whose increment returns nothing: the solver finds two such
// sections always commute.
//
// The synthesized ICs are conditions on a monitor's state, used only
// under transitive uniformity (the paper's Def. 3). The paper's sufficient
// condition, that no enabled block may write the constraint's variables,
// needs its W; a monitor gives another one. Its state is changed by its
// declared effects only (it is the monitor's, which only Effect.Do
// touches, with its mutex held), so package ic proves with the solver
// that every declared effect, with any arguments, keeps the condition
// true (it is inductive), or else keeps the largest part of it made of
// its disjuncts, which is then the condition, and does not use one it
// cannot prove so (the pair stays dependent: Example 4's q and r, whose
// condition p's x++ breaks). An inductive condition that
// holds in a state holds in every state reachable from it, whatever runs:
// that is Def. 3. The engine evaluates it in the pre-states of both
// sections, as noted when their Locks were performed (Note reads the
// monitor's state: a Lock is performed with the mutex free, so no section
// is halfway), which is where the paper evaluates it or before: the later
// section's pre-state is reachable from the earlier's, and so is the
// paper's state s[E'.u] of a race (the earlier event's prefix and the
// events that do not happen after it), and a sleeping letter's from the
// point where it was explored, before the event it is checked against.
// The condition holding in the earlier pre-state thus implies the paper's
// U⇒ at the paper's state, and Theorem 2 holds as the paper proves it: its
// proof uses U⇒ only through transitive uniformity (Theorem 1). Checking
// both pre-states, which the notes have, rather than the earlier one,
// which they do not name, loses nothing: within one execution, the
// condition in the earlier implies it in the later.
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
// before or after all of them, where happens-before does). For a
// monitor's sections the solver says it where their condition holds: the
// state is the monitor's alone, and the sections' results, all that the
// goroutines get from them, are compared with the state.
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
// The paper synthesizes ICs from the code of every block; weft runs Go
// code it cannot read, so it synthesizes them only for the effects that a
// program declares on a Monitor, written over symbolic values, which it
// can run symbolically. Blocks that spawn goroutines are not covered (the
// paper's Def. 6 compares the spawned processes as a multiset; in weft a
// goroutine is named by its parent, so the order shows in who spawns).
// Conditions that are not inductive are not used, where the paper's
// dynamic U⇒ may still use them when no other enabled goroutine writes
// their variables (Fig. 1's q and r after p): weft knows what a goroutine
// may still do only by running it. Nor are context-sensitive sleep sets
// (CSDPOR's sequences, lines 14 and 16 of the paper's algorithm), nor the
// sleep sequences its ICs add without uniformity (lines 11 and 12):
// sdpor's sleep sets hold single goroutines.
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
	"encoding/binary"
	"maps"
	"slices"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/ic"
	"weft.dev/weft/internal/indep"
)

// New returns a cdpor engine.
func New(c engine.Config) engine.Engine { return sdpor.NewRefined(c, &Relation{}) }

// Relation is the conditional independence relation of the engine: the
// ICs of the package comment, as an indep.Refinement.
type Relation struct {
	// sect holds, by goroutine, the key of the declared section it is in,
	// or 0; inst, for a section of a declared effect, its instance plus
	// one.
	sect []uint64
	inst []uint32
	// instances holds the sections of declared effects met so far, named
	// by their index in the notes, which outlive an execution (sleep sets,
	// replayed events): they are kept across executions. index finds
	// them; commute holds Commute's answers by pair of instances.
	instances []instance
	index     map[string]uint32
	commute   map[[2]uint32]bool
	// analyses numbers the analyses met, for the keys of index; key is
	// scratch space for one.
	analyses map[*ic.Analysis]uint64
	key      []byte
}

// instance is a section of a declared effect: its effect and arguments,
// and the monitor's state before it.
type instance struct {
	a     *ic.Analysis
	e     int
	state []int64
	args  []int64
}

// valued marks in a Note's A that B holds the value a store writes.
const valued = 1 << 63

// sectionKey names the sections of class class of mutex obj: never 0, and
// clear of valued. The sections of the declared effects of a monitor are
// those of class 0, which LockCommuting does not take.
func sectionKey(obj int32, class uint64) uint64 {
	return uint64(uint32(obj))<<32 | class&0x7fffffff | 1<<31
}

// effectKey reports whether the section key k is that of a monitor's
// effects.
func effectKey(k uint64) bool { return k != 0 && k&0x7fffffff == 0 }

// Clone implements indep.Cloner: the copy has the sections met so far,
// under the same indexes (the notes of the events that a part of the
// exploration hands over refer to them), and shares their analyses, which
// are the check's (package ic serializes them).
func (r *Relation) Clone() indep.Refinement {
	return &Relation{
		sect:      slices.Clone(r.sect),
		inst:      slices.Clone(r.inst),
		instances: slices.Clone(r.instances),
		index:     maps.Clone(r.index),
		commute:   maps.Clone(r.commute),
		analyses:  maps.Clone(r.analyses),
	}
}

// Reset implements indep.Refinement.
func (r *Relation) Reset() {
	clear(r.sect)
	clear(r.inst)
}

// Note implements indep.Refinement: A is the key of the declared section
// the event is part of (a declared Lock starts one), with valued set when
// B is the value a store writes; in the section of a declared effect, B is
// its instance plus one.
func (r *Relation) Note(ev *indep.Event, l *event.Label, _ event.Value) indep.Note {
	var n indep.Note
	if int(ev.G) < len(r.sect) {
		n.A, n.B = r.sect[ev.G], uint64(r.inst[ev.G])
	}
	if n.A == 0 && l.Kind == event.Lock {
		if sec, ok := l.A.P.(*ic.Section); ok {
			n.A, n.B = sectionKey(l.Obj, 0), uint64(r.intern(sec))
		} else if l.A.N != 0 {
			n.A = sectionKey(l.Obj, l.A.N)
		}
	}
	if l.Kind == event.Store && l.A.P == nil {
		n.A |= valued
		n.B = l.Mask(l.A.N)
	}
	return n
}

// intern returns the instance of the section sec, whose Lock is about to
// be performed (the monitor's state is its pre-state), plus one; 0 when
// the effects were not analysed (outside a check).
func (r *Relation) intern(sec *ic.Section) uint32 {
	if sec.Effects == nil {
		return 0
	}
	an := sec.Effects.Analysis()
	if r.index == nil {
		r.index, r.commute, r.analyses = map[string]uint32{}, map[[2]uint32]bool{}, map[*ic.Analysis]uint64{}
	}
	a, ok := r.analyses[an]
	if !ok {
		a = uint64(len(r.analyses))
		r.analyses[an] = a
	}
	k := binary.AppendUvarint(r.key[:0], a)
	k = binary.AppendUvarint(k, uint64(sec.Effect))
	for _, v := range sec.State {
		k = binary.AppendVarint(k, v)
	}
	for _, v := range sec.Args {
		k = binary.AppendVarint(k, v)
	}
	r.key = k
	if i, ok := r.index[string(k)]; ok {
		return i + 1
	}
	i := uint32(len(r.instances))
	r.instances = append(r.instances, instance{a: an, e: sec.Effect, state: slices.Clone(sec.State), args: slices.Clone(sec.Args)})
	r.index[string(k)] = i
	return i + 1
}

// Performed implements indep.Refinement: a declared Lock enters a section
// (a goroutine already in one stays in it: the inner section is part of
// the outer), the Unlock of its mutex leaves it.
func (r *Relation) Performed(ev *indep.Event, l *event.Label) {
	for int(ev.G) >= len(r.sect) {
		r.sect, r.inst = append(r.sect, 0), append(r.inst, 0)
	}
	s := &r.sect[ev.G]
	if l.Kind == event.Lock && *s == 0 {
		if sec, ok := l.A.P.(*ic.Section); ok {
			*s, r.inst[ev.G] = sectionKey(l.Obj, 0), r.intern(sec)
			return
		}
	}
	switch {
	case l.Kind == event.Lock && l.A.N != 0 && *s == 0:
		*s = sectionKey(l.Obj, l.A.N)
	case l.Kind == event.Unlock && *s != 0 && int32(*s>>32) == l.Obj:
		*s, r.inst[ev.G] = 0, 0
	}
}

// Commute implements indep.Refinement.
func (r *Relation) Commute(a, b *indep.Event, na, nb indep.Note) bool {
	if a.Kind == event.Store && b.Kind == event.Store && na.A&valued != 0 && nb.A&valued != 0 && na.B == nb.B {
		return true
	}
	sa, sb := na.A&^valued, nb.A&^valued
	if effectKey(sa) {
		// The Lock and Unlock of two sections of one monitor's effects,
		// by their IC (other events inside keep indep's relation).
		return sa == sb && na.A&valued == 0 && nb.A&valued == 0 && na.B != 0 && nb.B != 0 &&
			(a.Kind == event.Lock || a.Kind == event.Unlock) && (b.Kind == event.Lock || b.Kind == event.Unlock) &&
			r.commutes(uint32(na.B-1), uint32(nb.B-1))
	}
	// Both in sections of one class of one mutex, on objects (not spawns,
	// joins, channels or the ends of goroutines, whose rules hold as
	// they are).
	return sa != 0 && sa == sb && a.Obj >= 0 && b.Obj >= 0
}

// commutes reports whether the sections i and j commute uniformly: their
// IC holds in the pre-state of each (see the package comment).
func (r *Relation) commutes(i, j uint32) bool {
	if c, ok := r.commute[[2]uint32{i, j}]; ok {
		return c
	}
	x, y := &r.instances[i], &r.instances[j]
	c := x.a == y.a && x.a.Commute(x.e, y.e, x.state, x.args, y.args) && x.a.Commute(x.e, y.e, y.state, x.args, y.args)
	r.commute[[2]uint32{i, j}] = c
	return c
}
