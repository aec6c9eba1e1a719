// Package indep is the independence relation over the operations weft
// models, which the interleaving-based explorers (sdpor, mpor) reduce by,
// and the Mazurkiewicz traces it defines, which the reference engine (dfs)
// counts to check them.
//
// Two operations of different goroutines are independent when performing
// them in either order, from any state where both can be performed, leaves
// both performable with the same outcomes and reaches the same state. The
// relation is over performed operations, that is over an operation with its
// outcome and its effect in the state where it happens (an Event): a
// CompareAndSwap that fails only reads, so two failing ones commute, while
// one that succeeds writes. Everything not shown independent is dependent.
//
// The rules, each with the reason it is precise:
//
//   - Same goroutine: always dependent (program order).
//   - Spawn of g and any operation of g: dependent; g's operations cannot
//     come before g exists.
//   - Join of g and the End of g: dependent; the join waits for it.
//   - Memory (Var, atomic) and the words inside weft/sync (mutexes,
//     semaphores, notify lists): operations on one object are dependent
//     unless both only read. Loads, failed CompareAndSwaps and TryLocks,
//     and the waits of Cond.Wait only read; stores, successful
//     read-modify-writes, Lock, Unlock, the semaphores of RWMutex and
//     WaitGroup (Once is a Mutex and an atomic), Cond.Signal and
//     Broadcast write. Two atomic Adds commute on the value but not on
//     what each returns, so they are dependent.
//   - Channels: operations that touch a common channel (for a select, any
//     of its cases' channels) are dependent unless both are Len, which
//     only reads. Operations on different channels, and MakeChan (its
//     channel is new), are independent of each other. The silent steps of
//     package chans (interleave.Machine.Silent) are the exception: the
//     offer of a goroutine that starts to wait on an unbuffered channel,
//     and its wait once another goroutine took the offer, change nothing
//     any other operation observes, so they are dependent only with the
//     operation that takes the offer (whose outcome names their goroutine
//     as its partner).
//   - Symbolic operations (sym.NewInt, branches, sym.Assume, sym.Choose)
//     are independent of every other goroutine's operations: they only
//     add a conjunct to the path condition, conjunction commutes, and the
//     explorers enumerate each branch's feasible outcomes where it
//     happens, so the outcomes of two branches are jointly feasible in
//     either order or in neither.
//   - The wait of weft.Yield (a Block with Arg event.Await) is dependent
//     with every write to memory or to a sync object: whether it spins
//     forever depends on whether a write comes after the reads of its
//     iteration, which its label does not name. Assume's Block, End and Fail
//     (the step in which a goroutine fails) touch nothing else.
//
// Mazurkiewicz traces: two interleavings are equivalent when one can be
// turned into the other by swapping adjacent independent events. A trace is
// determined by its events, named canonically by goroutine and rank, with
// their kinds and outcomes, and by the order of every pair of dependent
// events; Trace hashes exactly that.
//
// An execution that ends in a bug has a class of its own (Trace.Ending):
// a failure (an assertion, a panic, a race, a misuse) is an event, and two
// executions that reach it after the same local configuration (the event
// and everything it depends on, with their order) are the same bug,
// whatever the goroutines it does not depend on did meanwhile; a deadlock
// or a leak is the state where every goroutine left waits forever, whose
// class is the whole trace.
package indep

import (
	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/event"
)

// Effect is what an operation does to the shared object it touches.
type Effect uint8

// The effects of an operation.
const (
	None  Effect = iota // touches no shared object
	Read                // only reads
	Write               // writes (and possibly reads)
)

// Event is a performed operation as the relation sees it.
type Event struct {
	G    int32      // the goroutine
	Kind event.Kind //
	Arg  int32      // Spawn and Join: the other goroutine; Block: event.Await or 0
	Obj  int32      // the memory or sync object touched, or -1
	// Chans are the channels a channel operation touches.
	Chans  []chans.ID
	Effect Effect // on Obj or on Chans
	// Alt and With are the outcome (engine.Choice's fields): With is the
	// partner goroutine of a channel operation plus one, or 0.
	Alt, With int32
	// Silent marks a silent channel step (set by who knows the state:
	// interleave.Machine.Event).
	Silent bool
}

// Of returns the event of goroutine g performing the operation l with
// outcome alt and partner with, where old is the value of l's object just
// before (event.Value{} for operations without one).
func Of(g int32, l *event.Label, alt, with int32, old event.Value) Event {
	e := Event{G: g, Kind: l.Kind, Arg: l.Arg, Obj: -1, Alt: alt, With: with}
	switch l.Kind {
	case event.Load, event.NotifyWait:
		e.Obj, e.Effect = l.Obj, Read
	case event.Store, event.Lock, event.SemAcquire, event.SemRelease, event.NotifyAdd, event.NotifyOne, event.NotifyAll:
		e.Obj, e.Effect = l.Obj, Write
	case event.Unlock:
		// An unlock of an unlocked mutex is a misuse that changes nothing.
		e.Obj, e.Effect = l.Obj, Read
		if old.N != 0 {
			e.Effect = Write
		}
	case event.RMW, event.TryLock:
		e.Obj, e.Effect = l.Obj, Read
		if _, writes, _ := l.UpdateAlt(old, int(alt)); writes {
			e.Effect = Write
		}
	case event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		op := chans.OpOf(l, g, chans.NoToken)
		e.Effect = Write
		if l.Kind == event.ChanLen {
			e.Effect = Read
		}
		if l.Kind == event.ChanClose || l.Kind == event.ChanLen {
			e.Chans = appendChan(e.Chans, op.Chan)
		}
		for _, c := range op.Cases {
			e.Chans = appendChan(e.Chans, c.Chan)
		}
	}
	return e
}

// appendChan adds c to cs once; the nil channel is no channel.
func appendChan(cs []chans.ID, c chans.ID) []chans.ID {
	if c == chans.Nil {
		return cs
	}
	for _, d := range cs {
		if d == c {
			return cs
		}
	}
	return append(cs, c)
}

// Dependent reports whether a and b are dependent (see the package
// comment for the rules).
func Dependent(a, b *Event) bool {
	switch {
	case a.G == b.G || oneWay(a, b) || oneWay(b, a):
		return true
	case a.Silent || b.Silent:
		// The taker of an offer names the offering goroutine as its
		// partner; a handed wait names its taker's goroutine, but depends
		// on the taking event only.
		// Two silent steps never take each other's offers.
		return a.Silent && !b.Silent && b.With == a.G+1 || b.Silent && !a.Silent && a.With == b.G+1
	}
	return conflict(a, b)
}

// oneWay holds the asymmetric rules with a in the first role.
func oneWay(a, b *Event) bool {
	switch {
	case a.Kind == event.Spawn && a.Arg == b.G:
		return true
	case a.Kind == event.Join && b.Kind == event.End && a.Arg == b.G:
		return true
	case a.Kind == event.Block && a.Arg == event.Await && b.Effect == Write && b.Obj >= 0:
		return true
	}
	return false
}

// conflict reports whether two events touch a common object (or channel)
// and at least one writes it.
func conflict(a, b *Event) bool {
	if a.Effect != Write && b.Effect != Write || a.Effect == None || b.Effect == None {
		return false
	}
	if a.Obj >= 0 {
		return a.Obj == b.Obj
	}
	for _, c := range a.Chans {
		for _, d := range b.Chans {
			if c == d {
				return true
			}
		}
	}
	return false
}

// A Refinement is a relation finer than this package's: it finds that
// some pairs of events that Dependent finds dependent commute all the
// same. Package sdpor explores by it (such pairs are no races, a letter
// sleeps on across them, and they do not order events), and a Trace hashes
// the traces of it (Trace.Refine). Package cdpor's conditional
// independence is one.
//
// For an exploration by it to stay sound the refinement must be a valid
// independence relation over the events as performed (with their outcomes
// and what it noted of them): two events it lets commute must commute from
// every state where both are enabled, neither enabling nor disabling the
// other, both orders reaching the same state with the same results.
type Refinement interface {
	// Reset starts a new execution.
	Reset()
	// Note returns what the refinement keeps of the event ev of
	// goroutine ev.G's pending operation l, in the state the execution has
	// reached; its object holds pre. It keeps no pointer to ev, which the
	// engine reuses.
	Note(ev *Event, l *event.Label, pre event.Value) Note
	// Performed reports that ev.G performed the event ev of operation l.
	Performed(ev *Event, l *event.Label)
	// Commute reports whether the events a and b of two goroutines, which
	// Dependent finds dependent, commute, given their notes.
	Commute(a, b *Event, na, nb Note) bool
}

// Cloner is implemented by refinements that keep what they learn across
// executions, which another part of the exploration continues from (see
// sdpor's Engine.Split): Clone returns a copy that shares nothing mutable
// with the refinement.
type Cloner interface {
	Clone() Refinement
}

// Note is what a Refinement keeps of an event; its users only store it.
type Note struct{ A, B uint64 }
