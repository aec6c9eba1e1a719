// Package dfs is the reference engine: it explores every interleaving of the
// visible operations, depth first, each exactly once.
//
// It is exponential and meant for small programs and for checking the other
// engines: two executions it explores may be equivalent; OnComplete sees
// the equivalence class of each (package class), OnTrace its
// Mazurkiewicz trace under package indep's relation, and OnBug, for an
// execution that ends in a bug, the class of its ending under that
// relation (indep.Trace.Ending): the number of distinct classes of each
// kind is what the other engines must reach. The one reduction it makes is to take
// the silent steps of channel operations (offers, handed waits) at once:
// where they fall among the other operations is not part of any execution.
package dfs

import (
	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/interleave"
)

// Engine explores all interleavings.
type Engine struct {
	m       interleave.Machine
	stack   interleave.Stack
	depth   int
	started bool
	// OnComplete, when set, is called with the class of every execution
	// that ends with every goroutine returned.
	OnComplete func(class uint64)
	// OnTrace, when set, is called with the hash of the Mazurkiewicz trace
	// (indep.Trace) of every execution that ends with every goroutine
	// returned: the number of distinct hashes is the number of traces.
	OnTrace func(trace uint64)
	// OnBug, when set, is called with the kind of the bug of every
	// execution that ends in one and the class of that ending
	// (indep.Trace.Ending): the number of distinct classes of a kind is
	// the number of its bug endings up to equivalence.
	OnBug func(kind engine.BugKind, class uint64)
	// Refine, when set before the exploration, refines the relation of
	// OnTrace's and OnBug's classes (indep.Trace.Refine): they are then
	// those of an engine that explores by Refine, such as package cdpor.
	Refine indep.Refinement
	trace  indep.Trace
}

// New returns a dfs engine.
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
	e.trace.Reset()
	e.trace.Refine(e.Refine)
	if e.Refine != nil {
		e.Refine.Reset()
	}
	x.Model = &e.m.Sym.Model
	e.depth = 0
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
		opts := e.options(x)
		if len(opts) == 0 {
			return engine.Decision{Verdict: engine.Stop}
		}
		ch = opts[0]
		e.stack = append(e.stack, interleave.Point{Opts: opts, Lab: x.G[ch.G].Pending})
	}
	e.depth++
	if e.OnTrace != nil || e.OnBug != nil {
		g := x.G[ch.G]
		ev := e.m.Event(g, ch)
		var n indep.Note
		if e.Refine != nil {
			n = e.Refine.Note(&ev, &g.Pending, e.m.Value(&g.Pending))
			e.Refine.Performed(&ev, &g.Pending)
		}
		e.trace.AddNoted(ev, n)
	}
	if b := e.m.Perform(x, x.G[ch.G], ch); b != nil {
		return engine.Failed(ch, b)
	}
	return engine.Ran(ch)
}

// options lists the enabled choices, the goroutine that moved last first so
// that the first interleaving switches as little as possible. A silent
// channel step (an offer, a handed wait: see interleave.Machine.Silent) is
// the only choice when there is one: its place among the others makes no
// difference any operation can observe, so dfs does not enumerate it.
func (e *Engine) options(x *engine.Exec) []engine.Choice {
	for _, g := range x.G {
		if g != nil && g.Status == engine.Ready && e.m.Silent(g) {
			return e.m.Options(g, nil)
		}
	}
	return e.m.Choices(x, nil)
}

// End implements engine.Engine.
func (e *Engine) End(_ *engine.Exec, end engine.Ending) {
	if e.OnComplete != nil && end.Kind == engine.Completed {
		e.OnComplete(e.m.Class())
	}
	if e.OnTrace != nil && end.Kind == engine.Completed {
		e.OnTrace(e.trace.Hash())
	}
	if e.OnBug != nil && end.Kind == engine.Buggy {
		e.OnBug(end.Bug.Kind, e.trace.Ending(end.Bug.Kind, end.Bug.G))
	}
}

// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }

// Exhaustive implements engine.Engine: dfs explores everything.
func (e *Engine) Exhaustive() bool { return true }

// Split implements engine.Splitter: it hands over the later half of the
// choices left at the shallowest scheduling point that has any, which are
// the last interleavings dfs would explore, with the choices that lead
// there (interleave.Stack.Split).
func (e *Engine) Split(c engine.Config) engine.Engine {
	s := e.stack.Split()
	if s == nil {
		return nil
	}
	n := New(c).(*Engine)
	n.stack = s
	return n
}
