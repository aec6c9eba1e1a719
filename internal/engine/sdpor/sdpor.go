// Package sdpor is source-DPOR with sleep sets (Abdulla, Aronis, Jonsson,
// Sagonas, POPL 2014, Algorithm 1; the algorithm Nidhugg implements): an
// interleaving explorer that explores every Mazurkiewicz trace of package
// indep's relation at least once.
//
// Each execution replays a prefix of the previous one and then runs on,
// depth first as dfs does, with a stack of scheduling points. Every point
// keeps a backtrack set (the goroutines to explore there), the letters
// (goroutine and outcome) already explored there, and its sleep set: the
// letters whose traces are explored from an earlier sibling, which stay
// asleep while the events after them are independent of them. When every
// enabled letter of a point is asleep, the execution is sleep-set blocked:
// the engine drops it (Result.Redundant counts them).
//
// A point explores its backtrack set in the order the set grew, and the
// races found below one of its choices join the set only when the next
// choice is picked, in an order of their own. The algorithm leaves both
// free; this choice makes what the engine explores independent of the
// order in which the executions below a point found its races, and the
// next choice of a point, once known, the next whatever they find: what
// lets several workers share an exploration (see Engine.Split).
//
// Races are found online: when an event n of goroutine p is performed, each
// earlier event e of another goroutine that is dependent with n, does not
// happen before p's previous event, and is not ordered before n through an
// event between them is in a race with it. The reversal is v = the events
// after e that do not happen after e, then n; unless a goroutine that can
// start v (an initial of v) is already in the backtrack set of the point
// before e, one is added (p when it is one). The operations still pending
// when an execution ends (blocked, or cut short by a bug) are analysed the
// same way, as if performed last.
//
// Blocking operations need one refinement: a Lock cannot be reversed with
// the Unlock it waited for (nor an acquire with the release it waited for,
// a Cond wait with its signal, a send on a full channel with the receive
// that made room, a Join with the End it waited for). Such a pair, where
// the waiting operation blocks on the value its partner found, or its
// goroutine already waited there and could not move, is not a race and
// does not hide one: the Lock races with the Lock before the Unlock, which
// is reversible. And one more pair races without being dependent: the
// offer of a goroutine starting to wait on an unbuffered channel and
// another operation on that channel, which the offer gives one more
// outcome (taking it) while the outcomes it had stay (see package chans).
//
// Waiting channel operations need four more. A race of n with an event k
// hides the races of n with the events ordered before n through k only
// when n is known to be performable in k's place: a send on a full buffer
// races with the receive that made room, but it is the earlier send that
// filled the buffer that it can be reversed with. An operation that could
// make a case of a taken offer ready (a close, a buffered value or room,
// an offer on an unbuffered channel) races with the operation that took
// the offer: before it, the offering goroutine could have completed on
// its own. The operation that takes an offer is explored with each other
// goroutine that could take it there in its place: the rival's next event
// may take another offer that only this taker made possible, after it,
// and the offering goroutine's next, its handed wait, depends on the
// taker only, so that no race shows the rival. And a sleep-set blocked
// execution analyses its waiting operations as one that ends does: the
// sleep set may be what kept them waiting.
//
// Unlike dfs, the engine does not take silent channel steps at once: a race
// may need another goroutine to move before one.
//
// NewRefined explores by a relation finer than indep's (an indep.Refinement):
// package cdpor's conditional independence. Happens-before then comes
// from the events of each object that an event depends on, back to the
// latest write that every earlier access of the object happens before,
// rather than from the summaries of all accesses.
package sdpor

import (
	"cmp"
	"slices"
	"sync"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/interleave"
	"weft.dev/weft/internal/vclock"
)

// Engine explores every trace at least once.
type Engine struct {
	m       interleave.Machine
	stack   []point
	depth   int
	fresh   int // stack[fresh:] holds the events new in this execution
	started bool
	stopped bool // Step returned Stop in this execution
	// floor is the index in stack of the deepest point that later parts
	// explore on from (see Split), -1 if none: the engine's executions
	// take the choices of stack[:floor+1] and end when it would change
	// one. waitOn is what Begin returned false to wait for (see Waits).
	floor  int
	waitOn *inbox
	// clocks holds, by goroutine, the clock of its last event in the
	// running execution.
	clocks []vclock.Clock
	// last holds, by goroutine, the index in stack of its last event in
	// the running execution, or -1.
	last []int
	// born holds, by goroutine, the index in stack of its spawn in the
	// running execution, or -1 (the body, or not spawned yet).
	born []int
	// hb summarizes the events of the running execution by what later
	// events depend on, so that an event's clock costs a few joins.
	hb summary
	// spare holds the event of a pending operation (see pending).
	spare ev
	// rel refines indep's relation, or is nil.
	rel indep.Refinement
	// OnComplete, when set, is called with the equivalence class (package
	// class) of every execution that ends with every goroutine returned;
	// OnTrace with its Mazurkiewicz trace (indep.Trace); OnBug with the
	// kind and the class (indep.Trace.Ending) of every execution that ends
	// in a bug. Both are of the relation the engine explores by: a
	// refined engine's are coarser than indep's.
	OnComplete func(class uint64)
	OnTrace    func(trace uint64)
	OnBug      func(kind engine.BugKind, class uint64)
}

// letter is a choice with its event: what sleeps in a sleep set.
type letter struct {
	c  engine.Choice
	ev ev
}

// ev is an event with what the refinement noted of it.
type ev struct {
	indep.Event
	note indep.Note
}

// pending is goroutine g's pending operation.
type pending struct {
	g   int32
	lab event.Label
}

// point is a scheduling point and the event taken there.
type point struct {
	opts  []engine.Choice // the enabled choices
	taken int             // index in opts of the choice taken
	lab   event.Label     // the operation taken (Invalid: not yet), to detect nondeterminism
	// pend holds the pending operation of every enabled goroutine on
	// arrival: a replay that arrives with others diverged (the program is
	// nondeterministic), which the sleep set, made of them, relies on.
	pend      []pending
	backtrack []int32  // goroutines to explore here
	done      []letter // letters explored here before the one taken
	sleep     []letter // the sleep set on arrival
	// reqs holds the races to reverse here found below since the choice
	// taken was taken, which the backtrack set takes in when the next
	// choice is picked (see apply); in, when other parts of the
	// exploration hold the point, the races they find (see Split).
	reqs []req
	in   *inbox
	// The event taken, for the races.
	ev    ev
	pre   event.Value  // the value of its object before it
	rank  int32        // its rank in its goroutine
	clock vclock.Clock // the events it happens after (itself included), by goroutine
	// barrier marks a write that every earlier access of its object
	// happens before: with indep's relation, every write.
	barrier bool
	// lent says that another part of the exploration holds the point
	// too (Split), with its arrays. A point pushed where one was popped
	// takes over the popped one's arrays unless it was lent: the parts
	// share nothing mutable (engine.Splitter), even where, as here, the
	// other parts holding the point have ended before this one pops it
	// (it waits for their races first).
	lent bool
}

// req is a race to reverse at a point: unless one of initials is in its
// backtrack set, it adds pref when pref is one of them and enabled there,
// else the first of them enabled there. all adds every enabled goroutine
// (a bug cut the execution short after the point).
type req struct {
	initials []int32
	pref     int32
	all      bool
}

// compareReqs orders races by their fields, the order apply settles them
// in.
func compareReqs(a, b req) int {
	switch {
	case a.all != b.all:
		if a.all {
			return -1
		}
		return 1
	case a.pref != b.pref:
		return cmp.Compare(a.pref, b.pref)
	}
	return slices.Compare(a.initials, b.initials)
}

// inbox gathers the races that the parts of the exploration before a
// point's owner find at the point (see Split), by the choice they were
// found below: the races found below each choice are settled before the
// next choice is picked, those of the next after them.
type inbox struct {
	mu      sync.Mutex
	senders int // the parts that hold the point and have not ended
	batches []batch
}

// batch is the races found below the choice c of a point.
type batch struct {
	c    engine.Choice
	reqs []req
}

func (in *inbox) join() {
	in.mu.Lock()
	in.senders++
	in.mu.Unlock()
}

// give adds the races rs found below choice c by a part that ends.
func (in *inbox) give(c engine.Choice, rs []req) {
	in.mu.Lock()
	defer in.mu.Unlock()
	i := slices.IndexFunc(in.batches, func(b batch) bool { return b.c == c })
	if i < 0 {
		i = len(in.batches)
		in.batches = append(in.batches, batch{c: c})
	}
	for _, r := range rs {
		in.batches[i].reqs = withReq(in.batches[i].reqs, r)
	}
	in.senders--
}

// batch returns the races found below choice c.
func (in *inbox) batch(c engine.Choice) []req {
	for _, b := range in.batches {
		if b.c == c {
			return b.reqs
		}
	}
	return nil
}

func (in *inbox) ready() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.senders == 0
}

// withReq returns rs with r, which it holds once.
func withReq(rs []req, r req) []req {
	if slices.ContainsFunc(rs, func(o req) bool { return compareReqs(o, r) == 0 }) {
		return rs
	}
	return append(rs, r)
}

// New returns an sdpor engine.
func New(c engine.Config) engine.Engine { return NewRefined(c, nil) }

// NewRefined returns an sdpor engine that explores by the refinement rel of
// indep's relation (nil: indep's own).
func NewRefined(c engine.Config, rel indep.Refinement) *Engine {
	e := &Engine{rel: rel, floor: -1}
	e.m.Sym.Config = c.Concolic
	return e
}

// event sets *dst to the event of g performing its pending operation with
// the outcome of choice c, with the refinement's note; its object holds
// pre. It fills an event in place: one it returned escaped to the heap
// through the refinement's Note, 60% of sdpor's allocations on fib_bench.
func (e *Engine) event(dst *ev, g *engine.Goroutine, c engine.Choice, pre event.Value) {
	*dst = ev{Event: e.m.Event(g, c)}
	if e.rel != nil {
		dst.note = e.rel.Note(&dst.Event, &g.Pending, pre)
	}
}

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	e.waitOn = nil
	if e.started {
		for {
			k := len(e.stack) - 1
			if k <= e.floor {
				e.release()
				return false
			}
			top := &e.stack[k]
			if in := top.in; in != nil {
				if !in.ready() {
					e.waitOn = in
					return false
				}
				// The races below the choices before this one
				// first, each choice's in turn.
				for _, l := range top.done {
					top.apply(in.batch(l.c))
				}
				for _, r := range in.batch(top.opts[top.taken]) {
					top.reqs = withReq(top.reqs, r)
				}
				top.in = nil
			}
			top.apply(top.reqs)
			top.reqs = top.reqs[:0]
			if i := top.next(); i >= 0 {
				top.move(i)
				break
			}
			e.stack = e.stack[:k]
		}
		e.fresh = len(e.stack) - 1
	}
	e.started = true
	e.stopped = false
	e.m.Classes = e.OnComplete != nil
	e.m.Reset()
	x.Model = &e.m.Sym.Model
	e.depth = 0
	for i := range e.clocks {
		e.clocks[i] = e.clocks[i][:0]
	}
	for i := range e.last {
		e.last[i] = -1
	}
	for i := range e.born {
		e.born[i] = -1
	}
	e.hb.reset()
	if e.rel != nil {
		e.rel.Reset()
	}
	return true
}

// next returns the index of the next choice to explore at p, or -1: the
// goroutines of the backtrack set in the order they were added, each with
// its choices in order. A goroutine added later comes after every choice
// known before it, so that the next choice, once known, stays next
// whatever the executions below find (see Split).
func (p *point) next() int {
	for _, g := range p.backtrack {
		for i, c := range p.opts {
			if c.G == g && i != p.taken && !holds(p.done, c) && !holds(p.sleep, c) {
				return i
			}
		}
	}
	return -1
}

// move makes choice i, which next returned, the one taken at p: the one
// taken so far is done.
func (p *point) move(i int) {
	p.done = append(p.done, letter{p.opts[p.taken], p.ev})
	p.taken = i
	p.lab = event.Label{}
}

// apply adds to p's backtrack set what reverses the races rs, found below
// one of its choices, in an order of their own: the set does not depend on
// the order in which the executions below, which several parts may explore
// at once (see Split), found them.
func (p *point) apply(rs []req) {
	slices.SortFunc(rs, compareReqs)
	enabled := func(g int32) bool {
		return slices.ContainsFunc(p.opts, func(c engine.Choice) bool { return c.G == g })
	}
	for _, r := range rs {
		switch {
		case r.all:
			for _, c := range p.opts {
				if !slices.Contains(p.backtrack, c.G) {
					p.backtrack = append(p.backtrack, c.G)
				}
			}
		case slices.ContainsFunc(r.initials, func(g int32) bool { return slices.Contains(p.backtrack, g) }):
		case enabled(r.pref) && slices.Contains(r.initials, r.pref):
			p.backtrack = append(p.backtrack, r.pref)
		default:
			// An initial that cannot move there starts no reversal:
			// the race is not reversible from that point.
			if i := slices.IndexFunc(r.initials, enabled); i >= 0 {
				p.backtrack = append(p.backtrack, r.initials[i])
			}
		}
	}
}

// addReq adds the race r to reverse at stack[i], unless the backtrack set
// there settles it already.
func (e *Engine) addReq(i int, r req) {
	q := &e.stack[i]
	if !r.all && slices.ContainsFunc(r.initials, func(g int32) bool { return slices.Contains(q.backtrack, g) }) {
		return
	}
	q.reqs = withReq(q.reqs, r)
}

// release gives the races found at the points that later parts explore on
// from to those parts: the engine's executions are over.
func (e *Engine) release() {
	for k := 0; k <= e.floor; k++ {
		p := &e.stack[k]
		p.in.give(p.opts[p.taken], p.reqs)
		p.reqs = nil
	}
	e.stack, e.floor = nil, -1
}

func holds(ls []letter, c engine.Choice) bool {
	for _, l := range ls {
		if l.c == c {
			return true
		}
	}
	return false
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	var ch engine.Choice
	if e.depth < len(e.stack) {
		p := &e.stack[e.depth]
		ch = p.opts[p.taken]
		g := x.G[ch.G]
		if g == nil || !e.m.Enabled(x, g) || p.lab.Kind != event.Invalid && !chans.SameOp(&p.lab, &g.Pending) {
			return interleave.Diverged(ch.G)
		}
		for _, q := range p.pend {
			if h := x.G[q.g]; h == nil || !chans.SameOp(&q.lab, &h.Pending) {
				return interleave.Diverged(q.g)
			}
		}
		p.lab = g.Pending
	} else {
		// Unlike dfs, silent channel steps are not taken at once: they
		// are independent of all but their partner (package indep), and
		// a race may need another goroutine to move before one.
		// The point popped last from this depth lends its arrays: they
		// were a third of sdpor's allocations on fib_bench.
		var old point
		if k := len(e.stack); k < cap(e.stack) && !e.stack[:k+1][k].lent {
			old = e.stack[:k+1][k]
		}
		opts := e.m.Choices(x, old.opts[:0])
		if len(opts) == 0 {
			e.stopped = true
			e.pending(x, -1)
			return engine.Decision{Verdict: engine.Stop}
		}
		sleep := e.childSleep(old.sleep[:0])
		i := slices.IndexFunc(opts, func(c engine.Choice) bool { return !holds(sleep, c) })
		if i < 0 {
			// Sleep-set blocked. The goroutines that wait still race
			// with the events before, as at the end of any execution:
			// one that only the sleeping letters' order kept waiting
			// (a send on a buffer another goroutine filled) may have
			// no other execution to reveal the race.
			e.pending(x, -1)
			return engine.Decision{Verdict: engine.Drop}
		}
		ch = opts[i]
		pend := old.pend[:0]
		for _, c := range opts {
			if len(pend) == 0 || pend[len(pend)-1].g != c.G {
				pend = append(pend, pending{c.G, x.G[c.G].Pending})
			}
		}
		e.stack = append(e.stack, point{opts: opts, taken: i, lab: x.G[ch.G].Pending, backtrack: append(old.backtrack[:0], ch.G), sleep: sleep, pend: pend,
			done: old.done[:0], reqs: old.reqs[:0], clock: old.clock[:0]})
	}
	g := x.G[ch.G]
	p := &e.stack[e.depth]
	if e.depth >= e.fresh {
		p.pre = e.m.Value(&g.Pending)
		e.event(&p.ev, g, ch, p.pre)
		p.rank = g.Steps
		p.clock, p.barrier = e.clockOf(&p.ev, p.clock[:0])
		e.races(&p.ev, &g.Pending, e.depth, p.clock)
		e.rivalTakers(p)
	}
	e.hb.add(e.depth, &p.ev.Event, p.clock)
	if e.rel != nil {
		e.rel.Performed(&p.ev.Event, &g.Pending)
	}
	e.setClock(ch.G, p.clock)
	if g.Pending.Kind == event.Spawn {
		e.setClock(g.Pending.Arg, p.clock) // the child starts after it
		e.born = setIndex(e.born, g.Pending.Arg, e.depth)
	}
	e.setLast(ch.G, e.depth)
	e.depth++
	if b := e.m.Perform(x, g, ch); b != nil {
		return engine.Failed(ch, b)
	}
	return engine.Ran(ch)
}

// childSleep returns the sleep set of a new point below the deepest one:
// the letters asleep or explored there that are independent of the event
// taken there.
func (e *Engine) childSleep(s []letter) []letter {
	if e.depth == 0 {
		return s
	}
	p := &e.stack[e.depth-1]
	for _, ls := range [2][]letter{p.sleep, p.done} {
		for _, l := range ls {
			if !e.dependent(&l.ev, &p.ev) {
				s = append(s, l)
			}
		}
	}
	return s
}

// reversible reports whether an operation l could be performed before an
// event e that found the value pre in its object: not when l blocks on
// that value (a Lock before the Unlock it waited for).
func reversible(e *indep.Event, pre event.Value, l *event.Label, n *indep.Event) bool {
	switch l.Kind {
	case event.Lock, event.SemAcquire, event.NotifyWait:
		return e.Obj != n.Obj || !l.Blocks(pre)
	case event.Join:
		return e.Kind != event.End || e.G != l.Arg
	}
	return true
}

// raceDep reports whether the event of stack[i] and the event n of
// operation l are a pair that a race can reverse: they are dependent, and
// n could have come before it, as far as what blocks n tells; n is at
// stack[j]. n could not when it waits on the value that event
// found, or when n's goroutine already waited at n there and could not
// move (a send on a full channel, a join of a running goroutine). A
// goroutine spawned after i did not wait there: its spawn, which does not
// happen after the event of stack[i] when n does not, goes first in the
// reversal.
func (e *Engine) raceDep(i, j int, later []int, n *ev, l *event.Label) bool {
	q := &e.stack[i]
	if !e.racing(&q.ev, n) {
		return false
	}
	if q.ev.G == n.G {
		return true
	}
	if !reversible(&q.ev.Event, q.pre, l, &n.Event) {
		return false
	}
	if e.lastOf(n.G) >= i || e.bornAt(n.G) > i || slices.ContainsFunc(q.opts, func(c engine.Choice) bool { return c.G == n.G }) {
		return true
	}
	// n already waited at point i: it could come first only if an event
	// that can go before q (one that does not happen after it) enables it,
	// one of the later candidates.
	for _, k := range later {
		r := &e.stack[k]
		if r.ev.G != n.G && r.clock.At(q.ev.G) <= q.rank && e.dependent(&r.ev, n) {
			return true
		}
	}
	return false
}

// candidates returns, latest first, the indexes of the events of
// stack[:j] that may race with n, which happens after past: those on its
// object (writes only, for a read) down to the first that happens before
// n and writes, which every earlier access of the object happens before;
// those on its channels; Yield's waits, for a write; all, for Yield's
// wait.
func (e *Engine) candidates(n *ev, j int, past vclock.Clock) []int {
	h := &e.hb
	var cs []int
	switch {
	case n.Kind == event.Block && n.Arg == event.Await:
		for i := j - 1; i >= 0; i-- {
			cs = append(cs, i)
		}
		return cs
	case n.Obj >= 0:
		if a := h.obj[n.Obj]; a != nil {
			list := a.events
			if n.Effect == indep.Read {
				list = a.writeEvents
			}
			for k := len(list) - 1; k >= 0; k-- {
				i := list[k]
				if i >= j {
					continue
				}
				q := &e.stack[i]
				if q.barrier && (q.ev.G == n.G || past.At(q.ev.G) > q.rank) {
					break
				}
				cs = append(cs, i)
			}
		}
	}
	merged := len(n.Chans) > 0
	for _, c := range n.Chans {
		if a := h.chans[c]; a != nil {
			for _, i := range a.events {
				if i < j {
					cs = append(cs, i)
				}
			}
		}
	}
	if n.Obj >= 0 && n.Effect == indep.Write {
		// A wait of Yield before a write depends on it: had the write
		// come first, the loop might have ended.
		for _, i := range h.waits {
			if i < j {
				cs = append(cs, i)
				merged = true
			}
		}
	}
	if merged {
		slices.Sort(cs)
		cs = slices.Compact(cs)
		slices.Reverse(cs)
	}
	return cs
}

// racing reports whether the order of a and b can matter: they are
// dependent, or one is an offer on a channel the other operates on, whose
// outcomes the offer adds to (a select with a default may take it).
func (e *Engine) racing(a, b *ev) bool {
	return e.dependent(a, b) || offers(&a.Event, &b.Event) || offers(&b.Event, &a.Event)
}

// dependent reports whether a and b are dependent: for indep, and for the
// refinement when there is one.
func (e *Engine) dependent(a, b *ev) bool {
	if !indep.Dependent(&a.Event, &b.Event) {
		return false
	}
	return e.rel == nil || a.G == b.G || !e.rel.Commute(&a.Event, &b.Event, a.note, b.note)
}

func offers(a, b *indep.Event) bool {
	if !a.Silent || a.With != 0 || b.Silent {
		return false
	}
	for _, c := range a.Chans {
		if slices.Contains(b.Chans, c) {
			return true
		}
	}
	return false
}

// clockOf computes into dst the clock of event n: its goroutine's previous
// events and the events it depends on (happens-before). It also reports
// whether n is a barrier (see point).
func (e *Engine) clockOf(n *ev, dst vclock.Clock) (vclock.Clock, bool) {
	dst = append(dst, e.clock(n.G)...)
	dst.Tick(n.G)
	h := &e.hb
	barrier := n.Obj >= 0 && n.Effect == indep.Write
	switch {
	case n.Silent:
		dst.Join(h.takers[n.G])
		return dst, false
	case n.Obj >= 0 && e.rel != nil:
		// The summaries join every access: under a refinement, n
		// happens after those it depends on only, and the earlier
		// accesses of a barrier it depends on.
		if a := h.obj[n.Obj]; a != nil {
			list := a.events
			if n.Effect == indep.Read {
				list = a.writeEvents
			}
			for k := len(list) - 1; k >= 0; k-- {
				q := &e.stack[list[k]]
				if !e.dependent(&q.ev, n) {
					barrier = false
					continue
				}
				dst.Join(q.clock)
				if q.barrier {
					break
				}
			}
		}
		if n.Effect == indep.Write {
			dst.Join(h.awaits)
		}
	case n.Obj >= 0 && n.Effect == indep.Write:
		dst.Join(h.objAccess(n.Obj).all)
		dst.Join(h.awaits)
	case n.Obj >= 0 && n.Effect == indep.Read:
		dst.Join(h.objAccess(n.Obj).writes)
	}
	for _, c := range n.Chans {
		if n.Effect == indep.Write {
			dst.Join(h.chanAccess(c).all)
		} else {
			dst.Join(h.chanAccess(c).writes)
		}
	}
	if n.With > 0 {
		dst.Join(h.silent[n.With-1])
	}
	switch {
	case n.Kind == event.Join:
		dst.Join(e.clock(n.Arg))
	case n.Kind == event.Block && n.Arg == event.Await:
		dst.Join(h.writes)
	}
	return dst, barrier
}

func (e *Engine) clock(g int32) vclock.Clock {
	if int(g) < len(e.clocks) {
		return e.clocks[g]
	}
	return nil
}

func (e *Engine) lastOf(g int32) int {
	if int(g) < len(e.last) {
		return e.last[g]
	}
	return -1
}

func (e *Engine) setLast(g int32, i int) { e.last = setIndex(e.last, g, i) }

func (e *Engine) bornAt(g int32) int {
	if int(g) < len(e.born) {
		return e.born[g]
	}
	return -1
}

// setIndex sets s[g] to i, growing s with -1s as needed.
func setIndex(s []int, g int32, i int) []int {
	for int(g) >= len(s) {
		s = append(s, -1)
	}
	s[g] = i
	return s
}

func (e *Engine) setClock(g int32, c vclock.Clock) {
	for int(g) >= len(e.clocks) {
		e.clocks = append(e.clocks, nil)
	}
	e.clocks[g] = append(e.clocks[g][:0], c...)
}

// races finds the races of event n (operation l, clock nc) with the events
// of stack[:j], and adds to the backtrack sets what reverses them.
func (e *Engine) races(n *ev, l *event.Label, j int, nc vclock.Clock) {
	past := e.clock(n.G) // before n
	cands := e.candidates(n, j, past)
	for ci, i := range cands {
		q := &e.stack[i]
		if q.ev.G == n.G || past.At(q.ev.G) > q.rank {
			continue
		}
		if !e.raceDep(i, j, cands[:ci], n, l) {
			continue
		}
		direct := true
		for ki, k := range cands[:ci] { // the later candidates
			r := &e.stack[k]
			if r.clock.At(q.ev.G) > q.rank && e.raceDep(k, j, cands[:ki], n, l) && e.surelyBefore(k, n, l) {
				direct = false
				break
			}
		}
		if direct {
			e.reverse(i, j, n, nc)
		}
	}
	e.takenOffers(n, j, past, nc)
}

// surelyBefore reports whether n (operation l) is known to be performable
// in place of stack[k] once the events after k that do not happen after it
// are: only then does the race of n with stack[k] hide the races of n with
// the events before k ordered before n through it. A channel operation
// that can wait may not be: a send on a buffered channel that was full
// before the receive at k made room, which it races with nonetheless (they
// are dependent), cannot come first, while the earlier send that filled
// the buffer can be reversed with it. Without the state of the channels
// before k, n is known performable there only when its goroutine was
// enabled at k already at n.
func (e *Engine) surelyBefore(k int, n *ev, l *event.Label) bool {
	if op := chans.OpOf(l, n.G, chans.NoToken); !op.Blocking() {
		return true
	}
	return e.lastOf(n.G) < k && slices.ContainsFunc(e.stack[k].opts, func(c engine.Choice) bool { return c.G == n.G })
}

// takenOffers reverses the races that n has with the takers of offers it
// would have let complete on their own: an operation on a channel of a
// waiting goroutine's offer (a close, a buffered value or room, or an
// offer of its own on an unbuffered channel, which the waiting goroutine
// may take) may make one of its cases ready, so that, had n come before
// the operation that took the offer, the goroutine could have completed
// without its taker, an event the execution does not have to race with.
// The taker and n are independent: the race is through the wait they
// both decide.
func (e *Engine) takenOffers(n *ev, j int, past, nc vclock.Clock) {
	if n.Silent && n.With != 0 || n.Effect != indep.Write || len(n.Chans) == 0 {
		return
	}
	for _, o := range e.hb.offers {
		if o >= j {
			break
		}
		of := &e.stack[o].ev
		if of.G == n.G || !slices.ContainsFunc(of.Chans, func(c chans.ID) bool { return slices.Contains(n.Chans, c) }) {
			continue
		}
		for a := o + 1; a < j; a++ {
			t := &e.stack[a]
			if t.ev.Silent || t.ev.With != of.G+1 {
				continue
			}
			if t.ev.G != n.G && past.At(t.ev.G) <= t.rank {
				e.reverse(a, j, n, nc)
			}
			break
		}
	}
}

// rivalTakers explores, at p, the other goroutines that could take the
// offer that the event of p takes. Each is dependent with the event, but
// its next event may take another offer that only this one made possible
// (the offering goroutine's next), which happens after the event, and the
// offering goroutine's next event, its handed wait, depends on the taker
// only: no race would show that the rival could have taken it.
func (e *Engine) rivalTakers(p *point) {
	if p.ev.Silent || p.ev.With == 0 {
		return
	}
	for _, c := range p.opts {
		if c.G != p.ev.G && c.With == p.ev.With && !slices.Contains(p.backtrack, c.G) {
			p.backtrack = append(p.backtrack, c.G)
		}
	}
}

// reverse adds to the races to reverse at stack[i] that of n: an initial
// of the events after stack[i] (up to j, then n) that do not happen after
// it is to be explored there.
func (e *Engine) reverse(i, j int, n *ev, nc vclock.Clock) {
	q := &e.stack[i]
	var initials []int32
	var seen []int32 // goroutines met in v
	consider := func(g int32, c vclock.Clock, self int) {
		if slices.Contains(seen, g) {
			return
		}
		seen = append(seen, g)
		for k := i + 1; k < self; k++ {
			r := &e.stack[k]
			if r.clock.At(q.ev.G) <= q.rank && c.At(r.ev.G) > r.rank {
				return
			}
		}
		initials = append(initials, g)
	}
	for k := i + 1; k < j; k++ {
		r := &e.stack[k]
		if r.clock.At(q.ev.G) > q.rank {
			continue // happens after q: not in v
		}
		consider(r.ev.G, r.clock, k)
	}
	consider(n.G, nc, j)
	e.addReq(i, req{initials: initials, pref: n.G})
}

// pending analyses the races of the operations that goroutines still wait
// to perform at the end of the execution, as if each were performed last;
// skip is a goroutine whose pending operation is not known.
func (e *Engine) pending(x *engine.Exec, skip int32) {
	var c vclock.Clock
	for _, g := range x.G {
		if g == nil || g.Status != engine.Ready || g.ID == skip || g.Pending.Kind == event.Invalid {
			continue
		}
		n := &e.spare
		e.event(n, g, engine.Choice{G: g.ID}, e.m.Value(&g.Pending))
		c, _ = e.clockOf(n, c[:0])
		e.races(n, &g.Pending, e.depth, c)
	}
}

// End implements engine.Engine.
func (e *Engine) End(x *engine.Exec, end engine.Ending) {
	if end.Kind == engine.Buggy && !e.stopped {
		// A bug cut the execution short, as if its last event were
		// dependent with everything: every goroutine that could move
		// instead of that event is a race to reverse, and the operations
		// still pending race with the events before. The goroutine at
		// fault may not be at its pending operation.
		if e.depth > 0 {
			e.addReq(e.depth-1, req{all: true})
		}
		skip := int32(-1)
		if end.Bug != nil {
			skip = end.Bug.G
		}
		e.pending(x, skip)
	}
	if end.Kind == engine.Buggy && e.OnBug != nil {
		e.OnBug(end.Bug.Kind, e.trace().Ending(end.Bug.Kind, end.Bug.G))
	}
	if end.Kind != engine.Completed {
		return
	}
	if e.OnComplete != nil {
		e.OnComplete(e.m.Class())
	}
	if e.OnTrace != nil {
		e.OnTrace(e.trace().Hash())
	}
}

// trace returns the trace of the running execution's events, under the
// relation the engine explores by.
func (e *Engine) trace() *indep.Trace {
	var t indep.Trace
	if e.rel != nil {
		t.Refine(e.rel)
	}
	for i := range e.depth {
		t.AddNoted(e.stack[i].ev.Event, e.stack[i].ev.note)
	}
	return &t
}

// Split implements engine.Splitter. The parts of an sdpor exploration are
// not independent: the races that the executions below a scheduling point
// find add to what is explored there, and all of them come from the
// subtree of the choice taken there. So a part hands over the last
// executions it has left whole: everything after the subtree of the choice
// it takes at its shallowest point that has a next choice known (the
// backtrack set is explored in the order it grows, so that choice is the
// next whatever the subtree adds), at that point and at every point above
// it. The new part explores on from the points it takes; the races that
// this part finds there from then on are handed to it when this part ends
// (release), and the new part waits for them before it picks a choice
// that they could change (Waits). A point's races are settled in an order
// of their own, so the result is the same whoever found them and when.
// A refined engine's new part has a copy of the refinement, which may keep
// what it learned across executions (cdpor's relation); one that cannot be
// copied (not an indep.Cloner) does not split.
func (e *Engine) Split(c engine.Config) engine.Engine {
	if !e.started {
		return nil
	}
	var cloner indep.Cloner
	if e.rel != nil {
		var ok bool
		if cloner, ok = e.rel.(indep.Cloner); !ok {
			return nil
		}
	}
	for k := e.floor + 1; k < len(e.stack) && k < e.depth; k++ {
		i := e.stack[k].next()
		if i < 0 {
			continue
		}
		var rel indep.Refinement
		if cloner != nil {
			rel = cloner.Clone()
		}
		n := NewRefined(c, rel)
		n.floor = e.floor
		n.stack = make([]point, k+1)
		for j := range n.stack {
			q := &e.stack[j]
			if q.in == nil {
				q.in = &inbox{}
			}
			// Above the floor, this part joins those that give the
			// point's races to n; below, n joins them.
			q.in.join()
			q.lent = true
			np := *q
			np.backtrack = slices.Clone(q.backtrack)
			np.done = slices.Clone(q.done)
			np.clock = slices.Clone(q.clock)
			np.reqs = nil
			n.stack[j] = np
		}
		n.stack[k].move(i)
		n.fresh = k
		e.floor = k
		return n
	}
	return nil
}

// Waits implements engine.Waiter.
func (e *Engine) Waits() bool { return e.waitOn != nil }

// Ready implements engine.Waiter.
func (e *Engine) Ready() bool { return e.waitOn == nil || e.waitOn.ready() }

// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }

// Exhaustive implements engine.Engine: every trace was explored.
func (e *Engine) Exhaustive() bool { return true }

// summary is what the events of an execution so far are to the next one:
// per object and channel, the joined clocks of its accesses and of its
// writes and the indexes of its events; the joined clocks of the writes to
// memory, of Yield's waits, and by goroutine of its silent channel steps
// and of the operations that took its offers.
type summary struct {
	obj            map[int32]*access
	chans          map[chans.ID]*access
	writes, awaits vclock.Clock
	silent, takers map[int32]vclock.Clock
	offers         []int // the indexes of the offers
	waits          []int // the indexes of Yield's waits
}

type access struct {
	all, writes vclock.Clock
	events      []int
	writeEvents []int // objects only
}

// reset empties the summary for the next execution, keeping its maps
// and arrays (they were a quarter of sdpor's allocations on fib_bench): an
// object, channel or goroutine with empty clocks and lists is as one the
// execution has not met.
func (h *summary) reset() {
	if h.obj == nil {
		h.obj, h.chans = map[int32]*access{}, map[chans.ID]*access{}
		h.silent, h.takers = map[int32]vclock.Clock{}, map[int32]vclock.Clock{}
	}
	for _, a := range h.obj {
		a.reset()
	}
	for _, a := range h.chans {
		a.reset()
	}
	for g, c := range h.silent {
		h.silent[g] = c[:0]
	}
	for g, c := range h.takers {
		h.takers[g] = c[:0]
	}
	h.writes, h.awaits = h.writes[:0], h.awaits[:0]
	h.offers = h.offers[:0]
	h.waits = h.waits[:0]
}

func (a *access) reset() {
	a.all, a.writes = a.all[:0], a.writes[:0]
	a.events, a.writeEvents = a.events[:0], a.writeEvents[:0]
}

func (h *summary) objAccess(o int32) *access {
	a := h.obj[o]
	if a == nil {
		a = &access{}
		h.obj[o] = a
	}
	return a
}

func (h *summary) chanAccess(c chans.ID) *access {
	a := h.chans[c]
	if a == nil {
		a = &access{}
		h.chans[c] = a
	}
	return a
}

// add records event n of clock c, at index i.
func (h *summary) add(i int, n *indep.Event, c vclock.Clock) {
	if n.Obj >= 0 {
		a := h.objAccess(n.Obj)
		a.all.Join(c)
		if n.Effect == indep.Write {
			a.writes.Join(c)
			h.writes.Join(c)
			a.writeEvents = append(a.writeEvents, i)
		}
		a.events = append(a.events, i)
	}
	for _, ch := range n.Chans {
		a := h.chanAccess(ch)
		if !n.Silent {
			a.all.Join(c)
			if n.Effect == indep.Write {
				a.writes.Join(c)
			}
		}
		a.events = append(a.events, i)
	}
	switch {
	case n.Silent:
		v := h.silent[n.G]
		v.Join(c)
		h.silent[n.G] = v
		if n.With == 0 {
			h.offers = append(h.offers, i)
		}
	case n.With > 0:
		v := h.takers[n.With-1]
		v.Join(c)
		h.takers[n.With-1] = v
	}
	if n.Kind == event.Block && n.Arg == event.Await {
		h.awaits.Join(c)
		h.waits = append(h.waits, i)
	}
}
