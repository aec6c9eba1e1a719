// Package condpor is the optimal engine: it explores each equivalence class
// of executions of a program exactly once, with memory polynomial in the
// program's size (TruSt, Kokologiannakis et al., POPL 2022, extended to
// data nondeterminism as ConDPOR, CONCUR 2025).
//
// An execution is an execution graph (package graph). The engine extends the
// graph of the running execution one event at a time, in a schedule that is
// a function of the graph; a read reads the coherence-latest write, a write
// goes last in coherence. The other choices are pushed as alternatives:
// another write for a read (forward revisit), another coherence place for a
// write, and, when a write is added, each earlier read of its location that
// it may revisit (backward revisit). A backward revisit is taken only when
// the events it deletes were all added the default way (the
// maximal-extension condition), so that each graph is reached once.
//
// Equivalence is Shasha-Snir's (reads-from plus coherence), under
// sequential consistency, which is Go's model for atomics and for
// data-race-free programs.
//
// Mutexes and semaphores are read-modify-writes whose read must see an
// unlocked (positive) value: a goroutine whose lock is held is not
// scheduled, and a backward revisit that hands a lock read a locked value
// removes the read, so that the goroutine waits again. That explores N
// goroutines taking one lock in N! executions and none blocked. An unlock
// reads the mutex too: one that finds it unlocked is a misuse whose read
// stays in the graph, so that a lock added later revisits it.
//
// Channels are described in channels.go: each channel is a few locations
// (closed flag, send and receive counters, one location per offer of a
// waiting goroutine), and a select or a wait is a choice event followed by
// the reads and writes its outcome implies.
//
// With WithAllBugs (engine.Continuer), a bug stops only its goroutine: the
// events the others add after it push the revisits that lead to the rest
// of the executions, and their bugs. A failed operation (a race, a misuse)
// leaves its read in the graph; a racing access is performed. A bug is
// reported when it can come first: no race lies wholly in its porf prefix,
// which, linearized, is its replay schedule.
//
// weft.Yield ends a spin-loop iteration; one that only read ends in a
// Block (engine.Awaiter): its reads are revisited by the writes added
// later, as GenMC's spin-assume does, and Spins tells a goroutine that
// would spin forever (its reads read the latest writes) from one cut by
// the exploration.
//
// Each execution re-runs the program from scratch: the events already in the
// graph are replayed (their values come from the graph) in an order that
// respects their dependencies, then new events are added.
package condpor

import (
	"fmt"
	"sync/atomic"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/class"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
	"weft.dev/weft/internal/sym"
)

type itemKind uint8

const (
	forwardRead  itemKind = iota // read a reads from write b
	forwardWrite                 // write a goes right after write b in coherence
	backward                     // write b revisits read a (or, for an offer, the channel operation at a)
	choose                       // the update read at a takes outcome b.I
	chanOption                   // the channel operation at a takes another outcome (see optionItem)
)

// item is an alternative to explore. It names events by position, which
// survive restriction and copying.
type item struct {
	kind itemKind
	a, b graph.Pos
	// For channel operations: the outcome (chans.Outcome's Alt and With1)
	// and how its reads read (see option).
	alt, with                              int32
	steal, beforeClose, stealBack, hasMain bool
	// hasOut says that the revisited select or wait takes the outcome
	// alt, with (see backwardChoice), or opt when set: one that reads
	// older writes.
	hasOut bool
	opt    *option
}

// frame is a graph with the alternatives left to explore from it. Backward
// revisits explore a copy of the graph in a frame of their own; the other
// alternatives restrict the frame's graph in place.
type frame struct {
	g     *graph.Graph
	items []item
	// model is the model of the symbolic variables under which the graph
	// runs: it satisfies the graph's constraints.
	model sym.Model
	// repair says that the graph is not an execution: two updates read
	// the same write, and the frame's alternatives order them.
	repair bool
}

// Engine is the condpor engine.
type Engine struct {
	frames []*frame
	// spares are finished frames, whose graphs' arrays and items
	// backward revisits reuse.
	spares  []*frame
	started bool
	sym     *concolic.Config
	late    *atomic.Bool // engine.Exec.Late
	cut     bool         // revisits were skipped once late

	// The running execution.
	cursor    []int32 // per goroutine: events of the graph executed so far
	locOf     []int32 // object index of the execution -> graph location
	remaining int     // events of the graph not yet executed
	clock     []int32 // what Clock returns
	// races are the data races of the execution, as pairs of accesses,
	// with x.Continue: a bug after both cannot be the first of one.
	races    [][2]graph.Pos
	lastRace int // the first pair of the race reported last

	// Moot counts alternatives that turned out inconsistent, or that
	// violate the atomicity of read-modify-writes until a revisit repairs
	// them: they are not executions.
	Moot int
	// Verify makes the engine check, before it runs a graph, that the
	// whole graph is consistent, and panic if not: an aid for tests, at a
	// cost quadratic in the size of the graph.
	Verify bool
	// OnComplete, when set, is called with the class of every execution
	// that ends with every goroutine returned (see package class).
	OnComplete func(class uint64)

	buf []graph.Pos
	// g is the top frame's graph, which runs: frames change between runs
	// only.
	g *graph.Graph
	// stuckAt is remaining when Replay last found that goroutine x.Last
	// cannot replay its next operation yet, and picked the goroutine that
	// replay picks instead, whose event it could not perform (a channel
	// operation, an update...): replay, which the runtime's Step then
	// calls, need not look for it again while no event was replayed
	// since. 0: none.
	stuckAt int
	picked  int32
}

// New returns a condpor engine.
func New(c engine.Config) engine.Engine { return &Engine{sym: c.Concolic} }

func (e *Engine) top() *frame { return e.frames[len(e.frames)-1] }

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	e.late = x.Late
	if !e.started {
		e.started = true
		e.frames = append(e.frames, &frame{g: graph.New()})
		e.reset(x)
		return true
	}
	for len(e.frames) > 0 {
		f := e.top()
		if len(f.items) == 0 {
			e.frames = e.frames[:len(e.frames)-1]
			e.spares = append(e.spares, f)
			continue
		}
		it := f.items[len(f.items)-1]
		f.items = f.items[:len(f.items)-1]
		if e.apply(f, it) {
			e.verify(it)
			e.reset(x)
			return true
		}
		e.Moot++
	}
	return false
}

// spare returns a frame whose graph's arrays, if it has one, and items
// can be reused.
func (e *Engine) spare() *frame {
	n := len(e.spares)
	if n == 0 {
		return &frame{}
	}
	f := e.spares[n-1]
	e.spares = e.spares[:n-1]
	return f
}

// verify implements Verify for the graph of alternative it.
func (e *Engine) verify(it item) {
	if !e.Verify {
		return
	}
	g := e.top().g
	for _, p := range g.Order {
		if !g.Acyclic(p) {
			panic(fmt.Sprintf("weft: internal error: alternative %+v gives an inconsistent graph, cycle at %v\n%v", it, p, g))
		}
	}
}

// reset prepares a run of the top frame's graph.
func (e *Engine) reset(x *engine.Exec) {
	x.Model = &e.top().model
	g := e.top().g
	e.g = g
	e.cursor = e.cursor[:0]
	for range g.Threads {
		e.cursor = append(e.cursor, 0)
	}
	e.locOf = e.locOf[:0]
	e.races = e.races[:0]
	e.stuckAt = 0
	e.remaining = g.Len()
	for t := range g.Threads {
		if _, ok := blockedAt(g, int32(t)); ok {
			e.remaining-- // waits: never replayed
		}
	}
}

// Exhaustive implements engine.Engine: every execution was explored,
// unless revisits were skipped once the timeout had passed.
func (e *Engine) Exhaustive() bool { return !e.cut }

// End implements engine.Engine.
func (e *Engine) End(_ *engine.Exec, end engine.Ending) {
	if e.OnComplete != nil && end.Kind == engine.Completed {
		e.OnComplete(e.class())
	}
}

// class returns the equivalence class of the execution that just ran (see
// package class).
func (e *Engine) class() uint64 {
	f := e.top()
	g := f.g
	ops := make([][]int32, len(g.Threads))
	for t, th := range g.Threads {
		n := int32(0)
		ops[t] = make([]int32, len(th.Events))
		for i := range th.Events {
			if th.Events[i].Cont {
				ops[t][i] = n - 1 // the operation of the event before
				continue
			}
			ops[t][i] = n
			n++
		}
	}
	name := func(p graph.Pos) class.Event {
		if p.IsInit() {
			return class.Init
		}
		return class.Event{G: p.T, N: ops[p.T][p.I]}
	}
	var h class.Hash
	// A goroutine's id is greater than its parent's: the parents are
	// named first.
	for t, th := range g.Threads {
		for i := range th.Events {
			if ev := &th.Events[i]; ev.Kind == graph.Spawn {
				h.Spawn(int32(t), ev.Lab.Arg)
			}
		}
	}
	for _, p := range g.Order {
		ev := g.Ev(p)
		if ev.Lab.Kind.Chan() {
			if !ev.Cont {
				if obs, ok := e.observation(f, p, name); ok {
					h.Observe(name(p), obs)
				}
			}
			continue
		}
		switch ev.Kind {
		case graph.Read:
			h.RF(name(p), name(ev.RF))
			if ev.Lab.Kind == event.NotifyOne {
				h.Choice(name(p), ev.Outcome)
			}
		case graph.Choice, graph.Constraint:
			h.Choice(name(p), ev.Outcome)
		case graph.Write:
			pred := e.coPred(g, ev.Loc, p)
			h.Co(name(p), name(pred))
		}
	}
	return h.Sum()
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	for len(e.cursor) < len(x.G) {
		e.cursor = append(e.cursor, 0)
	}
	if e.remaining > 0 {
		return e.replay(x)
	}
	return e.fresh(x)
}

// executed reports whether the event at p has been executed in this run.
func (e *Engine) executed(p graph.Pos) bool {
	return p.IsInit() || int(p.T) < len(e.cursor) && e.cursor[p.T] > p.I
}

// Clock implements engine.Orderer: the happens-before view of goroutine
// t's last executed event (of the event that spawned it, before its first),
// as counts of events.
func (e *Engine) Clock(_ *engine.Exec, t int32) []int32 {
	g := e.top().g
	e.clock = e.clock[:0]
	if int(t) >= len(g.Threads) {
		return e.clock
	}
	p := graph.Pos{T: t, I: -1}
	if int(t) < len(e.cursor) {
		p.I = e.cursor[t] - 1
	}
	if p.I < 0 {
		p = g.Threads[t].Spawn
		if p.IsInit() {
			return e.clock
		}
	}
	for _, i := range g.Ev(p).HB {
		e.clock = append(e.clock, i+1)
	}
	return e.clock
}

// replayable reports whether goroutine t's next operation is an event of
// the graph whose dependencies have been executed.
func (e *Engine) replayable(g *graph.Graph, x *engine.Exec, t int32) bool {
	gr := x.G[t]
	if gr == nil || gr.Status != engine.Ready || int(t) >= len(g.Threads) {
		return false
	}
	evs, i := g.Threads[t].Events, e.cursor[t]
	if int(i) >= len(evs) {
		return false
	}
	ev := &evs[i]
	if ev.Kind == graph.Choice && ev.Outcome == blockedMark {
		return false
	}
	// The events of the operation: ev and those that continue it.
	for {
		if (ev.Kind == graph.Read || ev.Kind == graph.Join) && !e.executed(ev.RF) {
			return false
		}
		if i++; int(i) >= len(evs) || !evs[i].Cont {
			return true
		}
		ev = &evs[i]
	}
}

// next returns the lowest-numbered goroutine other than x.Last, which
// cannot go on, whose next event is replayable; -1 if none.
func (e *Engine) next(g *graph.Graph, x *engine.Exec) int32 {
	for i := range x.G {
		if int32(i) != x.Last && e.replayable(g, x, int32(i)) {
			return int32(i)
		}
	}
	return -1
}

// replay runs the next event of the graph.
func (e *Engine) replay(x *engine.Exec) engine.Decision {
	g := e.top().g
	var t int32
	if e.stuckAt == e.remaining {
		t = e.picked
		// A bug of this step, with x.Continue, may stop t, and bring
		// the runtime back here with remaining unchanged.
		e.stuckAt = 0
	} else if x.Last >= 0 && e.replayable(g, x, x.Last) {
		t = x.Last
	} else {
		t = e.next(g, x)
	}
	if t < 0 {
		return engine.Diverged(-1, fmt.Sprintf("%d operations of the recorded execution never came", e.remaining))
	}
	gr := x.G[t]
	p := graph.Pos{T: t, I: e.cursor[t]}
	ev := g.Ev(p)
	if !e.matches(ev, &gr.Pending) {
		if ev.Lab.SameKind(&gr.Pending) {
			return engine.Diverged(t, fmt.Sprintf("goroutine g%d's operation #%d was a %v, now it is a %v on another object", t, p.I, ev.Lab.Kind, gr.Pending.Kind))
		}
		return engine.Diverged(t, fmt.Sprintf("goroutine g%d's operation #%d was %v, now it is %v", t, p.I, ev.Lab.Kind, gr.Pending.Kind))
	}
	if ev.Lab.Kind.Chan() {
		return e.replayChan(x, t, p)
	}
	e.cursor[t]++
	e.remaining--
	gr.Result = event.Result{From: -1}
	var race *engine.Bug
	var prev []graph.Pos
	if x.Continue && ev.Lab.OKind == event.VarObj {
		// The graph may hold both accesses of a race, which a revisit
		// kept: each run reports it again.
		race, prev = e.raceExecuted(g, p)
	}
	switch ev.Kind {
	case graph.Read:
		if ev.Recheck && !x.Continue {
			if b := e.raceRead(g, p); b != nil {
				return engine.Failed(engine.Choice{G: t}, b)
			}
		}
		// Values are this run's: a pointer the program stores is to
		// memory it allocated in this run, not in the run that recorded
		// the graph. A read reads its write's value, which ran first
		// (replayable) and so holds this run's value.
		if !ev.RMW {
			gr.Result.V = g.ReadValue(p)
			break
		}
		ev.Lab = gr.Pending // an update's operands (a CAS's old and new values)
		nv, writes, res := effect(g, p)
		gr.Result = res
		if !writes && ev.Lab.Kind == event.Unlock {
			return engine.Failed(engine.Choice{G: t}, unlockMisuse(t))
		}
		next := graph.Pos{T: t, I: p.I + 1}
		recorded := g.Has(next) && g.Ev(next).Cont
		if recorded && !writes {
			return engine.Diverged(t, fmt.Sprintf("goroutine g%d's update #%d did not write this time", t, p.I))
		}
		if !writes {
			break
		}
		if recorded {
			w := g.Ev(next)
			w.Lab, w.Val = gr.Pending, nv
			e.cursor[t]++
			e.remaining--
			break
		}
		// The write part was cut away from its read: add it again.
		e.addWritePart(e.top(), p, nv)
		e.cursor[t]++
	case graph.Write:
		if ev.Lab.Kind == event.Store {
			ev.Lab = gr.Pending
			ev.Val = storedValue(&ev.Lab)
		}
	case graph.Choice, graph.Constraint:
		gr.Result = e.sym.Result(&ev.Lab, int(ev.Outcome), e.top().model)
	case graph.End:
		gr.Status = engine.Ended
	case graph.Block:
		gr.Status = engine.Blocked
	}
	if race != nil {
		return e.raced(p, prev, race)
	}
	return engine.Ran(engine.Choice{G: t, Alt: ev.Outcome})
}

// Replay implements engine.Replayer for the events of the graph that
// need no choice and no check, most of what a run replays: plain loads and
// stores, spawns, joins and returns. It performs gr's next event as replay
// would: replay picks gr, x.Last, when it can go on. When it cannot,
// Replay performs instead the next event of the goroutine replay picks
// (see instead, which calls Replay for it), sparing the runtime the Step
// that would only find it again.
func (e *Engine) Replay(x *engine.Exec, gr *engine.Goroutine) int32 {
	if e.remaining == 0 || gr.Status != engine.Ready {
		return -1
	}
	g := e.g
	t := gr.ID
	if int(t) >= len(g.Threads) || int(t) >= len(e.cursor) {
		return e.instead(x, gr)
	}
	// One bounds check for the cursor, read and advanced here.
	cur := &e.cursor[t]
	evs, i := g.Threads[t].Events, *cur
	if int(i) >= len(evs) {
		return e.instead(x, gr)
	}
	ev := &evs[i]
	switch ev.Kind {
	case graph.Read:
		if !e.executed(ev.RF) {
			return e.instead(x, gr)
		}
		if ev.Lab.Kind != event.Load || ev.Recheck {
			return -1
		}
	case graph.Write:
		if ev.Lab.Kind != event.Store {
			return -1
		}
	case graph.Join:
		if !e.executed(ev.RF) {
			return e.instead(x, gr)
		}
	case graph.Spawn, graph.End:
	default:
		return -1
	}
	// matches, written out for these kinds: no Constraint, no channel.
	r, l := &ev.Lab, &gr.Pending
	if ev.Outcome != 0 || !r.SameKind(l) || x.Continue && r.OKind == event.VarObj {
		return -1
	}
	if l.Obj >= 0 {
		if m := e.locOfObj(l.Obj); m != ev.Loc && (m >= 0 || !e.bind(l.Obj, ev.Loc)) {
			return -1
		}
	}
	*cur = i + 1
	e.remaining--
	switch ev.Kind {
	case graph.Read:
		// The write read was executed (above): its value is this run's.
		gr.Result = event.Result{V: g.Value(ev.RF), From: -1}
		return t
	case graph.Write:
		ev.Lab = gr.Pending
		ev.Val = storedValue(&ev.Lab)
	case graph.End:
		gr.Status = engine.Ended
	}
	gr.Result = event.Result{From: -1}
	return t
}

// instead is Replay for goroutine gr, which cannot go on (its next event
// is not replayable): when gr is x.Last, Replay for the goroutine that
// replay picks instead (next), which can.
func (e *Engine) instead(x *engine.Exec, gr *engine.Goroutine) int32 {
	if gr.ID != x.Last {
		return -1
	}
	t := e.next(e.g, x)
	e.stuckAt, e.picked = e.remaining, t
	if t < 0 {
		return -1
	}
	if gr := x.G[t]; gr.Pending.Kind == event.Invalid {
		return t // not started: the runtime runs it to its operation
	}
	return e.Replay(x, x.G[t])
}

// storedValue is the value a store writes.
func storedValue(l *event.Label) event.Value {
	v := l.A
	v.N = l.Mask(v.N)
	return v
}

// matches reports whether the pending operation l of a goroutine is the
// operation of the recorded event ev, binding the execution's object to the
// event's location on first sight.
func (e *Engine) matches(ev *graph.Event, l *event.Label) bool {
	r := &ev.Lab
	if !r.SameKind(l) {
		return false
	}
	if ev.Kind == graph.Constraint && (r.A.N != l.A.N || r.B.N != l.B.N) {
		return false // another condition: the program is nondeterministic
	}
	if l.Kind.Chan() {
		return chans.SameChannels(r, l) // channels have locations of their own
	}
	if l.Obj < 0 {
		return true
	}
	// The object is mostly bound: bind's loops only for the first time.
	if m := e.locOfObj(l.Obj); m >= 0 {
		return m == ev.Loc
	}
	return e.bind(l.Obj, ev.Loc)
}

// bind maps object obj of the execution to location loc, or checks that it
// is mapped to it.
func (e *Engine) bind(obj, loc int32) bool {
	for int(obj) >= len(e.locOf) {
		e.locOf = append(e.locOf, -1)
	}
	if l := e.locOf[obj]; l >= 0 {
		return l == loc
	}
	for _, l := range e.locOf {
		if l == loc {
			return false
		}
	}
	e.locOf[obj] = loc
	return true
}

// locOfObj returns the location of obj, or -1 if it has none yet.
func (e *Engine) locOfObj(obj int32) int32 {
	if int(obj) < len(e.locOf) {
		return e.locOf[obj]
	}
	return -1
}

// newLoc gives obj, of kind k, a location that no event of the graph uses.
func (e *Engine) newLoc(g *graph.Graph, obj int32, k event.ObjKind) int32 {
	l := e.freeLoc(g)
	g.Loc(l).Kind = k
	e.bind(obj, l)
	return l
}

// freeLoc returns a location that no event of the graph and no object of
// the execution uses.
func (e *Engine) freeLoc(g *graph.Graph) int32 {
	used := func(l int32) bool {
		for _, m := range e.locOf {
			if m == l {
				return true
			}
		}
		return false
	}
	l := int32(0)
	for ; int(l) < len(g.Locs); l++ {
		if loc := &g.Locs[l]; len(loc.Co) == 0 && len(loc.Reads) == 0 && !used(l) {
			break
		}
	}
	return l
}

// loc returns the location of l's object, giving it one if needed.
func (e *Engine) loc(g *graph.Graph, l *event.Label) int32 {
	if m := e.locOfObj(l.Obj); m >= 0 {
		return m
	}
	return e.newLoc(g, l.Obj, l.OKind)
}

// value returns the coherence-latest value of l's object.
func (e *Engine) value(g *graph.Graph, l *event.Label) event.Value {
	if m := e.locOfObj(l.Obj); m >= 0 {
		return g.Value(g.CoMax(m))
	}
	return event.Value{}
}

// enabled reports whether goroutine gr can perform its pending operation.
func (e *Engine) enabled(g *graph.Graph, x *engine.Exec, gr *engine.Goroutine) bool {
	if gr.Status != engine.Ready {
		return false
	}
	l := &gr.Pending
	switch l.Kind {
	case event.Lock, event.SemAcquire, event.NotifyWait:
		return !blocks(l, e.value(g, l))
	case event.ChanSend, event.ChanRecv, event.ChanLen, event.ChanWait, event.Select:
		return e.chanEnabled(g, gr.ID, l)
	case event.Join:
		return ended(g, l.Arg)
	}
	return true
}

// ended reports whether goroutine t has returned in g.
func ended(g *graph.Graph, t int32) bool {
	if int(t) >= len(g.Threads) || !g.Alive(t) {
		return false
	}
	evs := g.Threads[t].Events
	return len(evs) > 0 && evs[len(evs)-1].Kind == graph.End
}

// loadLike reports whether goroutine gr's pending operation reads shared
// state: the schedule runs the others first, so that reads find the writes
// they can read already there (fewer backward revisits).
func (e *Engine) loadLike(g *graph.Graph, gr *engine.Goroutine) bool {
	switch l := &gr.Pending; l.Kind {
	case event.Load, event.RMW, event.Lock, event.TryLock, event.SemAcquire, event.NotifyWait:
		return true
	case event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		return e.consumes(g, gr.ID, l)
	}
	return false
}

// doomed reports whether goroutine gr's pending operation is a send on a
// channel closed in g by a close that does not happen before it. It panics
// there, or goes before the close, which needs room that receives not yet
// added may make; no receive revisits a send that panicked, which reads no
// count, so the schedule runs the others first (sendBeforeCloseWhenFull in
// package chanprog). A send after its own close panics in every execution:
// it goes first, as the bug to report.
func (e *Engine) doomed(g *graph.Graph, gr *engine.Goroutine) bool {
	l := &gr.Pending
	if l.Kind != event.ChanSend {
		return false
	}
	o := newCop(gr.ID, *l, graph.Pos{T: gr.ID, I: int32(len(g.Threads[gr.ID].Events))})
	ci := e.info(g, o.op.Cases[0].Chan)
	if ci == nil {
		return false
	}
	cl := g.CoMax(ci.cl)
	view, _ := baseView(g, gr.ID)
	return closed(g, cl) && !graph.InView(view, cl)
}

// fresh adds the next event: of the goroutine that moved last if it can
// move and does not read, else of the first that can move and does not
// read, else of the one that moved last, else of the first, but a send on
// a closed channel only when nothing else can move.
func (e *Engine) fresh(x *engine.Exec) engine.Decision {
	g := e.top().g
	pick := e.pick(g, x)
	if pick < 0 {
		e.force(x)
		if e.strandedChan(g, x) || stray(g) {
			// A goroutine waits where a revisit left it although it could
			// go on: no execution of the program does that. The others'
			// ways to go first still lead to some.
			return engine.Decision{Verdict: engine.Drop}
		}
		return engine.Decision{Verdict: engine.Stop}
	}
	return e.add(x, x.G[pick])
}

// pick returns the goroutine whose operation fresh adds, -1 if none can
// move.
func (e *Engine) pick(g *graph.Graph, x *engine.Exec) int32 {
	// The status first, without a call: most goroutines that cannot move
	// have ended or wait.
	ok := func(t int32) bool {
		gr := x.G[t]
		return gr != nil && gr.Status == engine.Ready && e.enabled(g, x, gr)
	}
	if x.Last >= 0 && ok(x.Last) && !e.loadLike(g, x.G[x.Last]) {
		return x.Last
	}
	for t := range x.G {
		// x.Last cannot move, or reads: asked just above.
		if int32(t) != x.Last && ok(int32(t)) && !e.loadLike(g, x.G[t]) {
			return int32(t)
		}
	}
	if x.Last >= 0 && ok(x.Last) && !e.doomed(g, x.G[x.Last]) {
		return x.Last
	}
	for t := range x.G {
		if ok(int32(t)) && !e.doomed(g, x.G[t]) {
			return int32(t)
		}
	}
	for t := range x.G {
		if ok(int32(t)) {
			return int32(t)
		}
	}
	return -1
}

// force adds, when no goroutine can move, the read of every goroutine
// waiting on a held lock, an empty semaphore, a full or empty buffered
// channel: it reads the value it blocks on and the goroutine stays
// blocked. The execution ends with them (a deadlock), but their reads'
// alternatives, the writes that would not block them, are how the orders in
// which they go first are explored.
func (e *Engine) force(x *engine.Exec) {
	f := e.top()
	for _, gr := range x.G {
		if gr == nil || gr.Status != engine.Ready || !forceable(&gr.Pending) || e.enabled(f.g, x, gr) {
			continue
		}
		if _, ok := blockedAt(f.g, gr.ID); ok {
			continue // its alternatives were pushed where it stands
		}
		l := gr.Pending
		if l.Kind.Chan() {
			e.forceChan(f, gr.ID, l)
			continue
		}
		e.addRead(f, gr.ID, l, e.loc(f.g, &l))
	}
}

// forceable reports whether a blocked operation of kind l.Kind waits for a
// value another goroutine's operation could have left it (rather than for
// something that only comes later, as a join does).
func forceable(l *event.Label) bool {
	switch l.Kind {
	case event.Lock, event.SemAcquire, event.Select, event.ChanSend, event.ChanRecv, event.ChanWait:
		return true
	}
	return false
}

// add adds the events of gr's pending operation.
func (e *Engine) add(x *engine.Exec, gr *engine.Goroutine) engine.Decision {
	f := e.top()
	g := f.g
	t := gr.ID
	l := gr.Pending
	gr.Result = event.Result{From: -1}
	// A race, with x.Continue, is performed and then reported.
	var race *engine.Bug
	var prev []graph.Pos
	switch l.Kind {
	case event.Load, event.NotifyWait:
		loc := e.loc(g, &l)
		if l.OKind == event.VarObj {
			if race, prev = e.race(g, t, l.Obj, loc, false); race != nil && !x.Continue {
				return engine.Failed(engine.Choice{G: t}, race)
			}
		}
		p := e.addRead(f, t, l, loc)
		gr.Result.V = g.ReadValue(p)
	case event.Store:
		loc := e.loc(g, &l)
		v := storedValue(&l)
		if l.OKind == event.VarObj {
			if race, prev = e.race(g, t, l.Obj, loc, true); race != nil && !x.Continue {
				return engine.Failed(engine.Choice{G: t}, race)
			}
		}
		e.addWrite(f, t, l, loc, v)
	case event.RMW, event.Lock, event.TryLock, event.Unlock, event.SemAcquire, event.SemRelease, event.NotifyAdd, event.NotifyOne, event.NotifyAll:
		loc := e.loc(g, &l)
		p := e.addRead(f, t, l, loc)
		e.outcomes(f, p)
		nv, writes, res := effect(g, p)
		gr.Result = res
		if writes {
			e.addWritePart(f, p, nv)
		} else if l.Kind == event.Unlock {
			// The read stays: a write it may read instead, a lock,
			// revisits it.
			e.cursor[t] = int32(len(g.Threads[t].Events))
			return engine.Failed(engine.Choice{G: t}, unlockMisuse(t))
		}
	case event.ChanMake, event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		gr.Result = e.addChan(f, t, l)
	case event.Spawn:
		newEvent(g, t, &l, graph.Spawn, -1)
		g.Push(t, false)
	case event.Join:
		end := graph.Pos{T: l.Arg, I: int32(len(g.Threads[l.Arg].Events) - 1)}
		newEvent(g, t, &l, graph.Join, -1).RF = end
		g.Push(t, true)
	case event.End:
		newEvent(g, t, &l, graph.End, -1)
		g.Push(t, false)
		gr.Status = engine.Ended
	case event.Block:
		newEvent(g, t, &l, graph.Block, -1)
		g.Push(t, false)
		gr.Status = engine.Blocked
	case event.Fail:
		// Nothing reads it: its place among the other goroutines'
		// events is no part of an execution, and Fault makes any bug
		// whose porf prefix ends in it a first one.
		newEvent(g, t, &l, graph.Fail, -1)
		g.Push(t, false)
	case event.SymNew, event.SymEval, event.SymChoose:
		ev := newEvent(g, t, &l, graph.Choice, -1)
		ev.Alts = int32(e.sym.Outcomes(&l))
		if concolic.Solved(&l) {
			ev.Kind = graph.Constraint
			ev.Outcome = int32(e.sym.Default(&l, f.model))
		}
		alts, outcome := ev.Alts, ev.Outcome
		p := g.Push(t, false)
		for o := int32(0); o < alts; o++ {
			if o != outcome {
				f.items = append(f.items, item{kind: choose, a: p, b: graph.Pos{I: o}})
			}
		}
		gr.Result = e.sym.Result(&l, int(outcome), f.model)
	default:
		return engine.Failed(engine.Choice{G: t}, &engine.Bug{Kind: engine.Misuse, G: t,
			Message: fmt.Sprintf("the condpor engine does not support %v yet: use WithEngine(\"dfs\")", l.Kind)})
	}
	for len(e.cursor) < len(g.Threads) {
		e.cursor = append(e.cursor, 0)
	}
	e.cursor[t] = int32(len(g.Threads[t].Events))
	if race != nil {
		return e.raced(graph.Pos{T: t, I: e.cursor[t] - 1}, prev, race)
	}
	return engine.Ran(engine.Choice{G: t})
}

// newEvent returns the slot of goroutine t's next event, for operation l, of
// kind k, on location loc (-1: none), added the default way: the caller
// sets the rest and pushes it. l is read after the slot is taken, which
// may move t's events: it must not point into them.
func newEvent(g *graph.Graph, t int32, l *event.Label, k graph.Kind, loc int32) *graph.Event {
	ev := g.Next(t)
	ev.Lab, ev.Kind, ev.Loc, ev.AddedMax, ev.Revisitable = *l, k, loc, true, true
	return ev
}

// outcomes gives the update read at p its default outcome and pushes the
// others as alternatives.
func (e *Engine) outcomes(f *frame, p graph.Pos) {
	ev := f.g.Ev(p)
	ev.Outcome = 0
	ev.Alts = int32(ev.Lab.Alternatives(f.g.ReadValue(p)))
	for o := int32(1); o < ev.Alts; o++ {
		f.items = append(f.items, item{kind: choose, a: p, b: graph.Pos{I: o}})
	}
}

// sync reports whether reading what l reads synchronizes: all but Vars,
// and channels, whose synchronization is the Go memory model's, not every
// operation on the channel state.
func sync(l *event.Label) bool {
	// An unlock reads the mutex to see it locked, but acquires nothing.
	return l.OKind != event.VarObj && l.OKind != event.Chan && l.Kind != event.Unlock
}

// syncOf is sync for the event ev, whose channel reads say for themselves.
func syncOf(ev *graph.Event) bool {
	if ev.Lab.Kind.Chan() {
		return ev.Sync
	}
	return sync(&ev.Lab)
}

// baseView returns the porf view an event added next to goroutine t
// starts from: that of its program-order predecessor, or of the spawn that
// started t.
func baseView(g *graph.Graph, t int32) (view, hb []int32) {
	var pred graph.Pos
	if t < int32(len(g.Threads)) && len(g.Threads[t].Events) > 0 {
		pred = graph.Pos{T: t, I: int32(len(g.Threads[t].Events) - 1)}
	} else if t < int32(len(g.Threads)) {
		pred = g.Threads[t].Spawn
	} else {
		pred = graph.Init
	}
	if pred.IsInit() {
		return nil, nil
	}
	ev := g.Ev(pred)
	return ev.View, ev.HB
}

// viewOf returns the porf view of the event at p without p's own
// reads-from edge.
func viewOf(g *graph.Graph, p graph.Pos) []int32 {
	var pred graph.Pos
	if p.I > 0 {
		pred = graph.Pos{T: p.T, I: p.I - 1}
	} else {
		pred = g.Threads[p.T].Spawn
	}
	if pred.IsInit() {
		return []int32{}
	}
	return g.Ev(pred).View
}

// coherent returns the writes of loc that a read or write with porf view
// base may be coherence-after (for a write: placed right after), in
// coherence order, Init first when it qualifies: those from the latest
// write that is porf-before, or read by an event porf-before, to the end.
func (e *Engine) coherent(g *graph.Graph, loc int32, base []int32) []graph.Pos {
	co := g.Loc(loc).Co
	out := e.buf[:0]
	split := g.LatestSeen(loc, base)
	if split < 0 {
		out = append(out, graph.Init)
		split = 0
	}
	out = append(out, co[split:]...)
	e.buf = out
	return out
}

// addRead adds a read of loc by goroutine t for operation l, reading the
// coherence-latest write, and pushes the other writes it may read as
// forward revisits.
func (e *Engine) addRead(f *frame, t int32, l event.Label, loc int32) graph.Pos {
	g := f.g
	base, _ := baseView(g, t)
	cands := e.coherent(g, loc, base)
	max := cands[len(cands)-1]
	p := graph.Pos{T: t, I: int32(len(g.Threads[t].Events))}
	// The forward revisits of p cut the graph back to p, and every
	// alternative explored before them was pushed after them: it cuts the
	// graph back to p or to an event added after p, and changes only those
	// (replaying a graph changes the values of writes, not its edges). The
	// graph the revisits find before p is this one, which says now, with
	// one search for them all rather than one each, which writes p would
	// read in a cycle: those alternatives are moot.
	acyclic := g.AcyclicReadsFrom(t, cands)
	for i, w := range cands[:len(cands)-1] {
		if !e.readable(g, &l, t, p, loc, w, base) {
			continue
		}
		if i < acyclic {
			e.Moot++
			continue
		}
		f.items = append(f.items, item{kind: forwardRead, a: p, b: w})
	}
	ev := newEvent(g, t, &l, graph.Read, loc)
	ev.RMW, ev.RF = l.Kind.Updates(), max
	return g.Push(t, sync(&l))
}

// readable reports whether a read for operation l with porf view base may
// read w other than by default: a blocking read never reads a value it
// blocks on (it would only lead to blocked graphs), and an update never
// reads a write that another update read for good.
func (e *Engine) readable(g *graph.Graph, l *event.Label, t int32, p graph.Pos, loc int32, w graph.Pos, base []int32) bool {
	v := g.Value(w)
	if blocks(l, v) {
		return false
	}
	if !l.Kind.Updates() {
		return true
	}
	if _, writes, _ := l.UpdateAlt(v, 0); !writes {
		return true
	}
	for _, r := range g.ReadsOf(loc, w) {
		if writesAfter(g, r) && (!g.Ev(r).Revisitable || graph.InView(base, r)) {
			return false
		}
	}
	return true
}

// addWritePart adds the write part of the update whose read is at p,
// right after the write it read, and pushes the backward revisits it
// allows.
func (e *Engine) addWritePart(f *frame, p graph.Pos, v event.Value) graph.Pos {
	g := f.g
	r := g.Ev(p)
	l := r.Lab // a copy: the read is among the events newEvent may move
	ev := newEvent(g, p.T, &l, graph.Write, r.Loc)
	ev.RMW, ev.Cont, ev.Val = true, true, v
	w := g.Push(p.T, false)
	g.InsertCo(w, g.Ev(p).RF)
	e.revisits(f, w)
	return w
}

// addWrite adds a plain write of v to loc by goroutine t, last in
// coherence, and pushes its other coherence places and the backward
// revisits it allows.
func (e *Engine) addWrite(f *frame, t int32, l event.Label, loc int32, v event.Value) graph.Pos {
	g := f.g
	base, _ := baseView(g, t)
	preds := e.placements(g, loc, base)
	p := graph.Pos{T: t, I: int32(len(g.Threads[t].Events))}
	for _, pred := range preds[:len(preds)-1] {
		f.items = append(f.items, item{kind: forwardWrite, a: p, b: pred})
	}
	last := preds[len(preds)-1]
	newEvent(g, t, &l, graph.Write, loc).Val = v
	w := g.Push(t, false)
	g.InsertCo(w, last)
	e.revisits(f, w)
	return w
}

// placements returns the writes (Init included) right after which a new
// plain write with porf view base may be placed in loc's coherence order,
// the default (the current last) last. A write never separates an update
// from the write it read.
func (e *Engine) placements(g *graph.Graph, loc int32, base []int32) []graph.Pos {
	cands := e.coherent(g, loc, base)
	out := cands[:0]
	for _, w := range cands {
		taken := false
		for _, r := range g.ReadsOf(loc, w) {
			if writesAfter(g, r) {
				taken = true
				break
			}
		}
		if !taken {
			out = append(out, w)
		}
	}
	return out
}

// coPred returns the write right before w in coherence (Init if first).
func (e *Engine) coPred(g *graph.Graph, loc int32, w graph.Pos) graph.Pos {
	if i := g.CoIndex(loc, w); i > 0 {
		return g.Locs[loc].Co[i-1]
	}
	return graph.Init
}

func unlockMisuse(t int32) *engine.Bug {
	return &engine.Bug{Kind: engine.Misuse, Message: "unlock of unlocked mutex", G: t}
}
