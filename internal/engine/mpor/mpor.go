// Package mpor is monotonic partial order reduction (Kahlon, Wang, Gupta,
// CAV 2009) as Vrooman's thesis implements it in the OOX verifier
// (Algorithm 6): an interleaving explorer that explores each Mazurkiewicz
// trace of package indep's relation exactly once, as its quasi-monotonic
// interleaving.
//
// Goroutines are ordered by id (stable across executions: the body's
// goroutine first, then in the order they were first spawned). An
// interleaving is quasi-monotonic when every event that comes after an
// event of a higher goroutine is linked to it by a dependency chain, or
// comes after an event of a lower goroutine that is. Each trace has exactly
// one such interleaving. The engine explores interleavings depth first, as
// dfs does, and keeps, per goroutine, the event of its last step (χ in the
// thesis) until a later event depends on it, which then covers it: a step
// of goroutine a is out of order, and not explored, when a goroutine higher
// than a still has an uncovered last event that a's event does not depend
// on.
//
// A prefix whose every extension is out of order is a dead end (the thesis
// prunes such states in its next iteration): the execution is dropped and
// counted in Result.Redundant.
//
// The thesis's Table 4.1 decides dependency between accesses, with
// symbolic array indices and references that may alias; in weft objects
// are concrete (a symbolic index goes through sym.Choose, which branches
// per value, as OOX splits its state per alias), so dependency is
// package indep's relation on the events of the current execution, with
// effects as they happen in it. Symbolic branches are explored like the
// other multi-outcome operations: every feasible outcome, under the
// solver, at the place the goroutine reaches the branch.
//
// Channel offers and handed waits (interleave.Machine.Silent), which dfs
// takes at once, are steps like the others here: independent of all but
// the operation that takes the offer, they may come later in a trace's
// quasi-monotonic interleaving.
package mpor

import (
	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/interleave"
)

// Engine explores each trace once.
type Engine struct {
	m       interleave.Machine
	stack   interleave.Stack
	depth   int
	started bool
	// last holds, by goroutine, the event of its last step while no later
	// event depends on it (χ); covered marks the others.
	last    []indep.Event
	covered []bool
	evs     []indep.Event // the events of the running execution
	// OnComplete, when set, is called with the equivalence class (package
	// class) of every execution that ends with every goroutine returned;
	// OnTrace with its Mazurkiewicz trace (indep.Trace); OnBug with the
	// kind and the class (indep.Trace.Ending) of every execution that ends
	// in a bug.
	OnComplete func(class uint64)
	OnTrace    func(trace uint64)
	OnBug      func(kind engine.BugKind, class uint64)
}

// New returns an mpor engine.
func New(c engine.Config) engine.Engine {
	e := &Engine{}
	e.m.Sym.Config = c.Concolic
	return e
}

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	if e.started && !e.stack.Advance() {
		return false
	}
	e.started = true
	e.m.Classes = e.OnComplete != nil
	e.m.Reset()
	x.Model = &e.m.Sym.Model
	e.depth = 0
	e.last = e.last[:0]
	e.covered = e.covered[:0]
	e.evs = e.evs[:0]
	return true
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	var ch engine.Choice
	if e.depth < len(e.stack) {
		p := &e.stack[e.depth]
		ch = p.Opts[p.I]
		g := x.G[ch.G]
		if g == nil || !e.m.Enabled(x, g) || p.Lab.Kind != event.Invalid && !chans.SameOp(&p.Lab, &g.Pending) {
			return interleave.Diverged(ch.G)
		}
		p.Lab = g.Pending
	} else {
		// Unlike dfs, silent channel steps are not taken at once: the
		// quasi-monotonic interleaving of a trace may have them later,
		// and they are independent of all but their partner (package
		// indep).
		all := e.m.Choices(x, nil)
		if len(all) == 0 {
			return engine.Decision{Verdict: engine.Stop}
		}
		var opts []engine.Choice
		for _, c := range all {
			ev := e.m.Event(x.G[c.G], c)
			if e.inOrder(&ev) {
				opts = append(opts, c)
			}
		}
		if len(opts) == 0 {
			return engine.Decision{Verdict: engine.Drop} // a dead end
		}
		ch = opts[0]
		e.stack = append(e.stack, interleave.Point{Opts: opts, Lab: x.G[ch.G].Pending})
	}
	g := x.G[ch.G]
	ev := e.m.Event(g, ch)
	e.advance(&ev)
	e.evs = append(e.evs, ev)
	e.depth++
	if b := e.m.Perform(x, g, ch); b != nil {
		return engine.Failed(ch, b)
	}
	return engine.Ran(ch)
}

// inOrder reports whether event ev may come next in a quasi-monotonic
// interleaving: every higher goroutine's uncovered last event is one ev
// depends on (Algorithm 6, lines 5-14).
func (e *Engine) inOrder(ev *indep.Event) bool {
	for t := int32(len(e.last)) - 1; t > ev.G; t-- {
		if !e.covered[t] && !indep.Dependent(ev, &e.last[t]) {
			return false
		}
	}
	return true
}

// advance records ev as the last event of its goroutine, covering the last
// events it depends on.
func (e *Engine) advance(ev *indep.Event) {
	for int(ev.G) >= len(e.last) {
		e.last = append(e.last, indep.Event{})
		e.covered = append(e.covered, true)
	}
	for t := range e.last {
		if !e.covered[t] && indep.Dependent(ev, &e.last[t]) {
			e.covered[t] = true
		}
	}
	e.last[ev.G] = *ev
	e.covered[ev.G] = false
}

// End implements engine.Engine.
func (e *Engine) End(_ *engine.Exec, end engine.Ending) {
	if end.Kind == engine.Buggy && e.OnBug != nil {
		var t indep.Trace
		for _, ev := range e.evs {
			t.Add(ev)
		}
		e.OnBug(end.Bug.Kind, t.Ending(end.Bug.Kind, end.Bug.G))
	}
	if end.Kind != engine.Completed {
		return
	}
	if e.OnComplete != nil {
		e.OnComplete(e.m.Class())
	}
	if e.OnTrace != nil {
		var t indep.Trace
		for _, ev := range e.evs {
			t.Add(ev)
		}
		e.OnTrace(t.Hash())
	}
}

// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }

// Exhaustive implements engine.Engine: every trace was explored.
func (e *Engine) Exhaustive() bool { return true }

// Split implements engine.Splitter as dfs does (interleave.Stack.Split):
// the choices of a point are those in order when it was first reached,
// and what the engine keeps of an execution (the last events, χ) is
// rebuilt by the replay of the choices that lead to the point.
func (e *Engine) Split(c engine.Config) engine.Engine {
	s := e.stack.Split()
	if s == nil {
		return nil
	}
	n := New(c).(*Engine)
	n.stack = s
	return n
}
