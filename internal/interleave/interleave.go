// Package interleave executes visible operations one at a time on an
// explicit, sequentially consistent state: the values of the locations, the
// holders of the mutexes, the counts of the semaphores, the notify lists of
// the condition variables and the goroutines' vector clocks.
//
// It is the semantics of the reference engines (dfs, random) and of replay.
// It is written for clarity, independently of the execution graphs of the
// optimal engine, so that the two can check each other.
package interleave

import (
	"fmt"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/class"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/vclock"
)

// Machine is the state of one execution.
type Machine struct {
	// Sym is the concolic state of the execution; its Config must be set
	// for programs with symbolic values.
	Sym concolic.Path
	// Classes says to hash each execution's equivalence class, for Class:
	// a cost on every operation (8% of random's time on fib_bench) that
	// only the engines' tests, which count the classes, need.
	Classes bool

	objs  []object
	gs    []gstate
	step  int32 // operations performed
	class class.Hash
	// ch is the state of the execution's channels.
	ch chans.State
	// clocks holds the vector clock after each channel operation, by
	// step: the operations that a later one synchronizes with.
	clocks map[chans.Token]vclock.Clock
	// names holds the canonical name of the operation of each step, by
	// which a channel operation names the partner it observed (with
	// Classes).
	names []evID
}

type object struct {
	kind   event.ObjKind
	val    event.Value
	writer int32        // step that wrote val, -1 for the initial value
	last   evID         // last event that wrote the location (for coherence)
	clock  vclock.Clock // synchronization carried by the location
	lastW  access       // Var: last write
	reads  []access     // Var: reads since the last write
}

// access is a Var access for race detection.
type access struct {
	g     int32
	clock int32
	step  int32
	kind  event.Kind
}

// evID names an event canonically: goroutine and rank in the goroutine.
type evID = class.Event

var initial = class.Init

type gstate struct {
	vc vclock.Clock
	// spin holds what the goroutine read since its last operation that
	// did not only read (event.ReadOnly): a spin-loop iteration.
	spin []spinRead
}

// spinRead is a read of a spin-loop iteration: the object, and the step
// that wrote the value read.
type spinRead struct{ obj, writer int32 }

// Reset prepares the machine for a new execution.
func (m *Machine) Reset() {
	if m.Sym.Config != nil {
		m.Sym.Reset()
	}
	m.objs = m.objs[:0]
	m.ch.Reset()
	clear(m.clocks)
	m.names = m.names[:0]
	m.gs = m.gs[:0]
	m.step = 0
	m.class.Reset()
}

// Class returns a hash of the execution's equivalence class (see package
// class): the reads-from and coherence relations of its memory, and what its
// channel operations observed, over canonical event names; with Classes
// set from the execution's start.
func (m *Machine) Class() uint64 { return m.class.Sum() }

func (m *Machine) obj(l *event.Label) *object {
	for int(l.Obj) >= len(m.objs) {
		// An object of an earlier execution lends its arrays: their
		// allocations were most of an execution's on fib_bench.
		var o *object
		m.objs, o = grow(m.objs)
		*o = object{writer: -1, last: initial, clock: o.clock[:0], reads: o.reads[:0]}
	}
	o := &m.objs[l.Obj]
	if o.kind == event.NoObj {
		o.kind = l.OKind
		o.lastW.g = -1
	}
	return o
}

func (m *Machine) g(id int32) *gstate {
	for int(id) >= len(m.gs) {
		var g *gstate
		m.gs, g = grow(m.gs)
		*g = gstate{vc: g.vc[:0], spin: g.spin[:0]}
	}
	return &m.gs[id]
}

// grow extends s by one element and returns it: within s's capacity, the
// element an earlier execution left there, whose arrays the caller takes
// over.
func grow[T any](s []T) ([]T, *T) {
	if len(s) == cap(s) {
		var zero T
		s = append(s, zero)
	} else {
		s = s[:len(s)+1]
	}
	return s, &s[len(s)-1]
}

// Clock returns goroutine g's vector clock after its last operation (see
// engine.Orderer).
func (m *Machine) Clock(g int32) []int32 {
	if int(g) < len(m.gs) {
		return m.gs[g].vc
	}
	return nil
}

// Enabled reports whether g can perform its pending operation now.
func (m *Machine) Enabled(x *engine.Exec, g *engine.Goroutine) bool {
	if g.Status != engine.Ready {
		return false
	}
	l := &g.Pending
	switch l.Kind {
	case event.Lock, event.SemAcquire, event.NotifyWait:
		return !l.Blocks(m.obj(l).val)
	case event.ChanSend, event.ChanRecv, event.ChanWait, event.Select:
		op := chans.OpOf(l, g.ID, chans.NoToken)
		return m.ch.Enabled(&op)
	case event.Join:
		t := x.G[l.Arg]
		return t != nil && t.Status == engine.Ended
	}
	return true
}

// Silent reports whether g's pending operation is a channel step that no
// other operation can tell the place of: an offer (see package chans), or
// the wait of a goroutine whose offer another operation took. Performing
// such a step at once loses no behaviour of the program.
func (m *Machine) Silent(g *engine.Goroutine) bool {
	l := &g.Pending
	switch l.Kind {
	case event.ChanSend, event.ChanRecv, event.Select, event.ChanWait:
		op := chans.OpOf(l, g.ID, chans.NoToken)
		return m.ch.Offers(&op) || l.Kind == event.ChanWait && m.ch.Handed(g.ID)
	}
	return false
}

// Choices appends to dst the choices of every goroutine that can move,
// those of the goroutine that moved last first: an exploration that takes
// the first choice switches goroutines as little as possible.
func (m *Machine) Choices(x *engine.Exec, dst []engine.Choice) []engine.Choice {
	add := func(g *engine.Goroutine) {
		if g != nil && m.Enabled(x, g) {
			dst = m.Options(g, dst)
		}
	}
	if x.Last >= 0 {
		add(x.G[x.Last])
	}
	for _, g := range x.G {
		if g != nil && g.ID != x.Last {
			add(g)
		}
	}
	return dst
}

// Diverged is the decision of an engine that replays a prefix and finds
// goroutine g's operation is not the recorded one: the program is not
// deterministic.
func Diverged(g int32) engine.Decision {
	return engine.Diverged(g, fmt.Sprintf("goroutine g%d", g))
}

// Value returns the value that the object of operation l holds: a memory
// or sync object's; the zero Value for other operations.
func (m *Machine) Value(l *event.Label) event.Value {
	switch l.OKind {
	case event.VarObj, event.Atomic, event.Mutex, event.Sem, event.Notify:
		if l.Obj >= 0 {
			return m.obj(l).val
		}
	}
	return event.Value{}
}

// Event returns the event of g performing its pending operation with the
// outcome of choice c in the current state: its effect is what it would do
// now (see package indep).
func (m *Machine) Event(g *engine.Goroutine, c engine.Choice) indep.Event {
	e := indep.Of(g.ID, &g.Pending, c.Alt, c.With, m.Value(&g.Pending))
	e.Silent = m.Silent(g)
	return e
}

// Options appends to dst the choices g's pending operation can take: the
// waiters Cond.Signal may wake, the feasible outcomes of a symbolic branch
// (the one the model gives first), the values of an explicit domain, the
// outcomes of a channel operation (see package chans).
func (m *Machine) Options(g *engine.Goroutine, dst []engine.Choice) []engine.Choice {
	l := &g.Pending
	switch l.Kind {
	case event.NotifyOne:
		for o := range l.Alternatives(m.obj(l).val) {
			dst = append(dst, engine.Choice{G: g.ID, Alt: int32(o)})
		}
		return dst
	case event.ChanMake, event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		op := chans.OpOf(l, g.ID, chans.NoToken)
		var buf [8]chans.Outcome
		for _, o := range m.ch.Options(&op, buf[:0]) {
			dst = append(dst, engine.Choice{G: g.ID, Alt: o.Alt(), With: o.With1()})
		}
		return dst
	case event.SymNew, event.SymEval, event.SymChoose:
		os, err := m.Sym.Options(l, nil)
		if err != nil {
			panic(fmt.Sprintf("weft: solver failed: %v", err))
		}
		for _, o := range os {
			dst = append(dst, engine.Choice{G: g.ID, Alt: int32(o)})
		}
		return dst
	}
	return append(dst, engine.Choice{G: g.ID})
}

// Perform performs g's pending operation with the outcome of choice c (one
// that Options gave), writes its result into g and returns the bug it
// reveals, if any.
func (m *Machine) Perform(x *engine.Exec, g *engine.Goroutine, c engine.Choice) *engine.Bug {
	l := &g.Pending
	alt := int(c.Alt)
	// Grow the goroutine states first: pointers into them stay valid below.
	m.g(max(int32(len(x.G)), l.Arg+1) - 1)
	gs := m.g(g.ID)
	gs.vc.Tick(g.ID)
	me := evID{G: g.ID, N: g.Steps}
	step := m.step
	m.step++
	if m.Classes {
		m.names = append(m.names, me)
	}
	g.Result = event.Result{From: -1}
	switch l.Kind {
	case event.Load:
		o := m.obj(l)
		if b := m.race(o, gs, g.ID, step, l); b != nil {
			return b
		}
		if l.OKind == event.Atomic {
			gs.vc.Join(o.clock)
		}
		g.Result.V, g.Result.From = o.val, o.writer
		m.rf(me, o.last)
	case event.Store:
		o := m.obj(l)
		if b := m.race(o, gs, g.ID, step, l); b != nil {
			return b
		}
		v := l.A
		v.N = l.Mask(v.N)
		m.write(o, me, step, v)
		if l.OKind == event.Atomic {
			o.clock.Set(gs.vc)
		}
	case event.RMW, event.Lock, event.TryLock, event.SemAcquire, event.SemRelease, event.NotifyAdd, event.NotifyOne, event.NotifyAll:
		o := m.obj(l)
		gs.vc.Join(o.clock)
		nv, writes, res := l.UpdateAlt(o.val, alt)
		if l.Kind == event.NotifyOne && m.Classes {
			m.class.Choice(me, int32(alt))
		}
		res.From = o.writer
		g.Result = res
		m.rf(me, o.last)
		if writes {
			m.write(o, me, step, nv)
			o.clock.Set(gs.vc)
		}
	case event.Unlock:
		o := m.obj(l)
		if o.val.N == 0 {
			return &engine.Bug{Kind: engine.Misuse, Message: fmt.Sprintf("unlock of unlocked mutex %s", objName(l)), G: g.ID}
		}
		m.rf(me, o.last)
		m.write(o, me, step, event.Value{})
		o.clock.Set(gs.vc)
	case event.NotifyWait:
		o := m.obj(l)
		gs.vc.Join(o.clock)
		g.Result.V, g.Result.From = o.val, o.writer
		m.rf(me, o.last)
	case event.Spawn:
		m.g(l.Arg).vc.Set(gs.vc)
		if m.Classes {
			m.class.Spawn(g.ID, l.Arg)
		}
	case event.Join:
		gs.vc.Join(m.g(l.Arg).vc)
	case event.SymNew, event.SymEval, event.SymChoose:
		res, err := m.Sym.Take(l, alt)
		if err != nil {
			return &engine.Bug{Kind: engine.Nondeterminism, G: g.ID,
				Message: fmt.Sprintf("a replayed symbolic operation cannot take its recorded outcome: %v", err)}
		}
		g.Result = res
		if m.Classes {
			m.class.Choice(me, int32(alt))
		}
	case event.ChanMake, event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		op := chans.OpOf(l, g.ID, chans.Token(step))
		r := m.ch.Apply(&op, chans.Decode(c.Alt, c.With))
		if r.Sync != chans.NoToken {
			gs.vc.Join(m.clocks[r.Sync])
		}
		if m.clocks == nil {
			m.clocks = map[chans.Token]vclock.Clock{}
		}
		m.clocks[chans.Token(step)] = append(vclock.Clock(nil), gs.vc...)
		if !r.Wait && m.Classes {
			m.class.Observe(me, m.observation(&op, &r))
		}
		g.Result = r.Event(&op)
		if r.OK && r.Obs.Partner != chans.NoToken {
			g.Result.From = int32(r.Obs.Partner) // the operation the value comes from
		}
	case event.End:
		g.Status = engine.Ended
	case event.Block:
		g.Status = engine.Blocked
	case event.Fail:
		// The runtime reports the bug and stops the goroutine.
	default:
		panic(fmt.Sprintf("weft: internal error: interleave cannot perform %v", l.Kind))
	}
	switch {
	case event.ReadOnly(l, &g.Result):
		gs.spin = append(gs.spin, spinRead{l.Obj, g.Result.From})
	case l.Kind != event.Block:
		gs.spin = gs.spin[:0]
	}
	return nil
}

// Spins reports whether goroutine g, blocked in a wait of weft.Yield,
// would spin forever: no write came after those its iteration read.
func (m *Machine) Spins(g int32) bool {
	if int(g) >= len(m.gs) || len(m.gs[g].spin) == 0 {
		return false
	}
	for _, r := range m.gs[g].spin {
		if m.objs[r.obj].writer != r.writer {
			return false
		}
	}
	return true
}

// write makes v the value of o, written by event me at step.
func (m *Machine) write(o *object, me evID, step int32, v event.Value) {
	o.val = v
	o.writer = step
	m.co(me, o.last)
	o.last = me
}

// observation returns what the channel operation op observed, with its
// partner named canonically.
func (m *Machine) observation(op *chans.Op, r *chans.Result) class.Observation {
	o := class.Observation{Case: r.Case, Partner: class.None, Index: int32(r.Obs.Index), Counts: r.Obs.Counts}
	if p := r.Obs.Partner; p != chans.NoToken {
		o.Partner = m.names[p]
	}
	if op.Kind == event.ChanMake || op.Kind == event.ChanClose {
		return class.Observation{Partner: class.None}
	}
	return o
}

func (m *Machine) rf(r, w evID) {
	if m.Classes {
		m.class.RF(class.Event(r), class.Event(w))
	}
}

func (m *Machine) co(w, prev evID) {
	if m.Classes {
		m.class.Co(class.Event(w), class.Event(prev))
	}
}

// race checks a Var access against the accesses it conflicts with.
func (m *Machine) race(o *object, gs *gstate, id, step int32, l *event.Label) *engine.Bug {
	if o.kind != event.VarObj {
		return nil
	}
	cur := access{g: id, clock: gs.vc.At(id), step: step, kind: l.Kind}
	if w := o.lastW; w.g >= 0 && w.g != id && w.clock > gs.vc.At(w.g) {
		return raceBug(l, cur, w)
	}
	if l.Kind == event.Load {
		for i := range o.reads {
			if o.reads[i].g == id {
				o.reads[i] = cur
				return nil
			}
		}
		o.reads = append(o.reads, cur)
		return nil
	}
	for _, r := range o.reads {
		if r.g != id && r.clock > gs.vc.At(r.g) {
			return raceBug(l, cur, r)
		}
	}
	o.lastW = cur
	o.reads = o.reads[:0]
	return nil
}

func raceBug(l *event.Label, cur, prev access) *engine.Bug {
	// Name the accesses by goroutine, not by step, so that the same race in
	// other interleavings has the same message.
	a, b := prev, cur
	if b.g < a.g {
		a, b = b, a
	}
	return &engine.Bug{
		Kind:    engine.DataRace,
		Message: fmt.Sprintf("g%d's %s and g%d's %s of %s are not ordered by happens-before", a.g, a.kind, b.g, b.kind, objName(l)),
		G:       cur.g,
	}
}

func objName(l *event.Label) string { return fmt.Sprintf("%s#%d", l.OKind, l.Obj) }
