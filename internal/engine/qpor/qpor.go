package qpor

import (
	"fmt"
	"strconv"
	"strings"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
	"weft.dev/weft/internal/interleave"
)

// Options configures the engine.
type Options struct {
	// K is how many events of D an alternative must conflict with (the
	// k of k-partial alternatives); 0 asks for alternatives that conflict
	// with all of them: optimal.
	K int
}

// ParseOptions reads options written as comma-separated key=value pairs,
// as in the engine name "qpor:k=2". The only key is k, a whole number of
// at least 1.
func ParseOptions(s string) (Options, error) {
	var o Options
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return o, fmt.Errorf("qpor option %q: want key=value, e.g. k=2", kv)
		}
		switch k {
		case "k":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return o, fmt.Errorf("qpor option k=%q: want a whole number of at least 1 (plain qpor is optimal)", v)
			}
			o.K = n
		default:
			return o, fmt.Errorf("qpor option %q: unknown key %q (known: k)", kv, k)
		}
	}
	return o, nil
}

// New returns the optimal engine.
func New(c engine.Config) engine.Engine { return Options{}.New(c) }

// New returns an engine with options o.
func (o Options) New(c engine.Config) engine.Engine {
	e := &Engine{k: o.K, u: newUnfolding(), rootObj: -1, objs: map[int32]*access{}}
	e.m.Sym.Config = c.Concolic
	return e
}

// Engine explores the maximal configurations of the unfolding.
type Engine struct {
	k       int
	m       interleave.Machine
	u       *unfolding
	rootObj int32 // canonical object of the body's first operation
	// levels is the trail: the event chosen at each depth of the running
	// execution (nil: to be chosen from target) and the events of D added
	// at that depth (the earlier choices there), with the operation as the
	// running execution performed it.
	levels []level
	// d is D: the events of the levels' dis, in order (a stack, as the
	// trail is one).
	d       []*node
	target  front // the alternative J to reach, or nil
	depth   int
	started bool
	// runs counts the executions; the trail's depths below fresh are
	// those the running execution replays from the previous one.
	runs, fresh int
	// The running execution: by goroutine, its latest event, its spawn,
	// its End, the event that took its offer; by canonical object root
	// (memory or channel), its latest write and the reads of that write;
	// by local object index, its canonical object; by channel ID, the
	// channel's canonical object.
	last    front
	spawned front
	ended   front
	takenBy front
	awaits  []*node // the waits of weft.Yield
	objs    map[int32]*access
	local   []int32
	chanObj map[chans.ID]int32
	// chanSt is the state of the channels after a part of the running
	// execution, for its extensions (stateAt).
	chanSt chans.State
	// chanSteps are the channel operations of the running execution,
	// for stateAt; stDone are those chanSt has performed, by index,
	// stNeed scratch space.
	chanSteps      []chanStep
	stDone, stNeed []int32
	// hist, merged and causeBuf are scratch space of extend and causes,
	// en and opts of enabled.
	hist         perObj[access]
	merged       front
	causeBuf, en []*node
	opts         []engine.Choice
	// chanCauses and cw are scratch space of chanOthers and chanWrites,
	// readGs, cands, byG and pick of others.
	chanCauses, cw []*node
	readGs         []int32
	cands          []cand
	byG            [][]cand
	pick           []int
	// byObj and trailAwaits index the trail for compatibleTrail; fits is
	// scratch space of spike.
	byObj       perObj[*node]
	trailAwaits []*node
	fits        []*node
	// OnComplete, when set, is called with the equivalence class (package
	// class) of every execution that ends with every goroutine returned;
	// OnTrace with its Mazurkiewicz trace (indep.Trace); OnBug with the
	// kind and the class (indep.Trace.Ending) of every bug that ends an
	// execution or, going on past bugs (engine.Continuer), of every bug
	// that can be the first of an execution, once per execution that
	// reaches it (see the package documentation: one bug is in many
	// maximal configurations).
	OnComplete func(class uint64)
	OnTrace    func(trace uint64)
	OnBug      func(kind engine.BugKind, class uint64)
	// OnMaximal, when set, is called with the trace of every execution
	// that is not dropped, however it ends: each is a maximal
	// configuration, which Alg. 1 reaches once, those with bugs included
	// when the execution goes on past them (engine.Continuer).
	OnMaximal func(trace uint64)
	// faulted says that the running execution went on past a bug, whose
	// Fault reported it; failed is the kind of the bug of the last
	// operation found failing (a race or a misuse).
	faulted bool
	failed  engine.BugKind
}

type level struct {
	ev  *node
	dis []*node
	// lab is ev's operation as the running execution performed it, with
	// its channel IDs (the event keeps the operation's kind only, and ev
	// the canonical objects); tok is the ID of the channel it made, if
	// any.
	lab event.Label
	tok chans.Token
}

// access is what an execution did to an object so far.
type access struct {
	w     *node   // latest write, nil: the initial value
	reads []*node // the reads of w
}

// Begin implements engine.Engine.
func (e *Engine) Begin(x *engine.Exec) bool {
	if e.started && !e.backtrack() {
		return false
	}
	e.started = true
	e.runs++
	e.m.Classes = e.OnComplete != nil
	e.m.Reset()
	x.Model = &e.m.Sym.Model
	e.depth = 0
	e.last, e.spawned, e.ended, e.takenBy = e.last[:0], e.spawned[:0], e.ended[:0], e.takenBy[:0]
	e.awaits = e.awaits[:0]
	clear(e.objs)
	e.chanObj = map[chans.ID]int32{}
	e.local = e.local[:0]
	e.faulted = false
	return true
}

// canon returns the canonical object of goroutine g's pending operation l,
// recording it for the operation (g after its latest event) and for l's
// local index.
func (e *Engine) canon(g int32, l *event.Label) int32 {
	if l.Obj < 0 || l.OKind == event.Chan {
		// The runtime's object of a channel operation is the execution's
		// channels: its channels are named by chanObj.
		return -1
	}
	var rec *int32
	switch {
	case e.last.at(g) != nil:
		rec = &e.last.at(g).nextObj
	case e.spawned.at(g) != nil:
		rec = &e.spawned.at(g).childObj
	default:
		rec = &e.rootObj
	}
	for int(l.Obj) >= len(e.local) {
		e.local = append(e.local, -1)
	}
	c := e.local[l.Obj]
	switch {
	case c < 0 && *rec < 0:
		c = e.u.newObj()
	case c < 0:
		c = *rec
	case *rec >= 0 && e.u.find(c) != e.u.find(*rec):
		// One object, found under two names: what the execution did to
		// it so far was recorded under the first.
		a := e.objs[e.u.find(c)]
		delete(e.objs, e.u.find(c))
		e.u.union(c, *rec)
		if a != nil {
			e.objs[e.u.find(c)] = a
		}
	}
	e.local[l.Obj], *rec = c, c
	return c
}

// causes returns the events that must precede goroutine g's operation ev
// in the running execution: its predecessor (or its spawn), the End it
// joins, the accesses of its object or channels it does not commute
// with (for a wait of weft.Yield, the latest write of every object; for
// a write, the waits too), the offer it takes, and for a handed wait the
// event that took the offer. The slice is scratch space, valid until the
// next call.
func (e *Engine) causes(g int32, l *event.Label, ev *indep.Event) []*node {
	cs := append(e.causeBuf[:0], e.last.at(g))
	if cs[0] == nil {
		cs[0] = e.spawned.at(g)
	}
	if l.Kind == event.Join {
		cs = append(cs, e.ended.at(l.Arg))
	}
	if ev.Obj >= 0 {
		if a := e.objs[e.u.find(ev.Obj)]; a != nil {
			cs = append(cs, a.w)
			if ev.Effect == indep.Write {
				cs = append(cs, a.reads...)
			}
		}
	}
	switch {
	case isAwait(l):
		// A read of every memory and sync object.
		for _, a := range e.objs {
			if a.w != nil && a.w.obj >= 0 {
				cs = append(cs, a.w)
			}
		}
	case ev.Obj >= 0 && ev.Effect == indep.Write:
		cs = append(cs, e.awaits...)
	case ev.Silent && ev.With != 0:
		cs = append(cs, e.takenBy.at(g))
	case ev.Silent:
	default:
		for _, c := range ev.Chans {
			if a := e.objs[int32(c)]; a != nil {
				cs = append(cs, a.w)
				if ev.Effect == indep.Write {
					cs = append(cs, a.reads...)
				}
			}
		}
		if ev.With != 0 {
			// The partner waits: its latest event is its offer.
			cs = append(cs, e.last.at(ev.With-1))
		}
	}
	e.causeBuf = cs
	return cs
}

// chansOf replaces the channel IDs of the running execution in cs by
// their canonical objects.
func (e *Engine) chansOf(cs []chans.ID) {
	for i, c := range cs {
		o, ok := e.chanObj[c]
		if !ok {
			o = -1 // made in another execution: closing it panics
		}
		cs[i] = chans.ID(o)
	}
}

// chanWrites returns the latest write of each channel of ev (canonical)
// in the running execution, nil for none, in scratch space valid until
// the next call.
func (e *Engine) chanWrites(ev *indep.Event) []*node {
	if ev.Silent || len(ev.Chans) == 0 {
		return nil
	}
	cw := e.cw[:0]
	for _, c := range ev.Chans {
		var w *node
		if a := e.objs[int32(c)]; a != nil {
			w = a.w
		}
		cw = append(cw, w)
	}
	e.cw = cw
	return cw
}

// eventOf returns the event of g performing its pending operation with
// outcome ch now.
func (e *Engine) eventOf(g *engine.Goroutine, ch engine.Choice) (*node, bool) {
	l := &g.Pending
	obj := e.canon(g.ID, l)
	ev := e.m.Event(g, ch)
	if ev.Obj >= 0 {
		ev.Obj = obj
	}
	e.chansOf(ev.Chans)
	var ow *node
	if obj >= 0 && e.objs[e.u.find(obj)] != nil {
		ow = e.objs[e.u.find(obj)].w
	}
	e.u.maxs = maximal(e.u.maxs[:0], e.causes(g.ID, l, &ev))
	return e.u.event(g.ID, e.last.at(g.ID), l, obj, ch, ev, ow, e.chanWrites(&ev), e.u.maxs)
}

// enabled returns the events enabled now (en(C)), those of the goroutine
// that moved last first, in scratch space valid until the next call, or
// the decision that ends the execution.
func (e *Engine) enabled(x *engine.Exec) ([]*node, *engine.Decision) {
	en, opts := e.en[:0], e.opts[:0]
	defer func() { e.en, e.opts = en, opts }()
	add := func(g *engine.Goroutine) *engine.Decision {
		if g == nil || g.Status != engine.Ready {
			return nil
		}
		if !e.m.Enabled(x, g) {
			return nil
		}
		opts = e.m.Options(g, opts[:0])
		for _, ch := range opts {
			n, ok := e.eventOf(g, ch)
			if !ok {
				d := interleave.Diverged(g.ID)
				return &d
			}
			en = append(en, n)
		}
		return nil
	}
	if x.Last >= 0 {
		if d := add(x.G[x.Last]); d != nil {
			return nil, d
		}
	}
	for _, g := range x.G {
		if g != nil && g.ID != x.Last {
			if d := add(g); d != nil {
				return nil, d
			}
		}
	}
	return en, nil
}

// Step implements engine.Engine.
func (e *Engine) Step(x *engine.Exec) engine.Decision {
	if e.depth < len(e.levels) && e.levels[e.depth].ev != nil {
		// Replaying C. The events enabled here are in the unfolding
		// already, found by the execution that chose this one; naming the
		// one replayed again tells whether the program did the same.
		pick := e.levels[e.depth].ev
		if int(pick.g) < len(x.G) {
			if g := x.G[pick.g]; g != nil && e.m.Enabled(x, g) {
				if n, ok := e.eventOf(g, pick.choice()); ok && n == pick {
					return e.perform(x, pick)
				}
			}
		}
		return interleave.Diverged(pick.g)
	}
	en, d := e.enabled(x)
	if d != nil {
		return *d
	}
	var pick *node
	if e.reaching() {
		// Toward the alternative J (Alg. 1, line 9).
		pick = e.toward(en)
		if pick == nil {
			// J pairs outcomes of symbolic branches that the path
			// condition rules out together: it is no configuration.
			// What is left of the subtree is explored as after any
			// clue, from the enabled events not in D (line 7).
			e.target = nil
		}
	}
	if pick == nil {
		for _, n := range en {
			if !n.inD {
				pick = n
				break
			}
		}
	}
	if pick == nil {
		if len(en) == 0 {
			return engine.Decision{Verdict: engine.Stop}
		}
		// en(C) ⊆ D: sleep-set blocked (Alg. 1, line 5).
		return engine.Decision{Verdict: engine.Drop}
	}
	if e.depth < len(e.levels) {
		e.levels[e.depth].ev = pick // the depth of the alternative
	} else {
		e.levels = append(e.levels, level{ev: pick})
	}
	return e.perform(x, pick)
}

// reaching reports whether the running execution has not yet reached the
// alternative it follows: A = J \ C is not empty.
func (e *Engine) reaching() bool {
	for g, t := range e.target {
		if t != nil {
			if l := e.last.at(int32(g)); l == nil || l.depth < t.depth {
				return true
			}
		}
	}
	return false
}

// toward returns an event of en in the alternative being followed, or nil.
func (e *Engine) toward(en []*node) *node {
	for _, n := range en {
		if e.target.has(n) {
			return n
		}
	}
	return nil
}

// perform performs n's operation and records it in the execution.
func (e *Engine) perform(x *engine.Exec, n *node) engine.Decision {
	g := x.G[n.g]
	l := &g.Pending
	e.last = e.last.set(n.g, n)
	switch l.Kind {
	case event.Spawn:
		e.spawned = e.spawned.set(l.Arg, n)
	case event.End:
		e.ended = e.ended.set(n.g, n)
	}
	if n.obj >= 0 {
		r := e.u.find(n.obj)
		a := e.objs[r]
		if a == nil {
			a = &access{}
			e.objs[r] = a
		}
		switch n.ev.Effect {
		case indep.Write:
			a.w, a.reads = n, nil
		case indep.Read:
			a.reads = append(a.reads, n)
		}
	}
	if !n.ev.Silent {
		for _, c := range n.ev.Chans {
			a := e.objs[int32(c)]
			if a == nil {
				a = &access{}
				e.objs[int32(c)] = a
			}
			if n.ev.Effect == indep.Write {
				a.w, a.reads = n, nil
			} else {
				a.reads = append(a.reads, n)
			}
		}
		if n.ev.With != 0 {
			e.takenBy = e.takenBy.set(n.ev.With-1, n)
		}
	}
	if isAwait(l) {
		e.awaits = append(e.awaits, n)
	}
	lv := &e.levels[e.depth]
	lv.lab, lv.tok = *l, chans.NoToken
	n.run, n.pos = int32(e.runs), int32(e.depth)
	e.depth++
	b := e.m.Perform(x, g, n.choice())
	if n.obj >= 0 {
		n.post = e.m.Value(l)
	}
	if l.Kind == event.ChanMake {
		lv.tok = chans.Token(g.Result.V.N)
		e.chanObj[chans.ID(lv.tok)] = n.made
	}
	if b != nil {
		n.bug = true
		e.failed = b.Kind
		if b.Kind == engine.DataRace && x.Continue {
			return engine.Decision{Verdict: engine.Run, Choice: n.choice(), Bug: b}
		}
		return engine.Failed(n.choice(), b)
	}
	return engine.Ran(n.choice())
}

// End implements engine.Engine.
func (e *Engine) End(x *engine.Exec, end engine.Ending) {
	e.extend(x)
	if e.OnMaximal != nil && end.Kind != engine.Dropped {
		e.OnMaximal(e.trace().Hash())
	}
	if end.Kind == engine.Buggy && e.OnBug != nil && !e.faulted {
		t := e.trace()
		e.OnBug(end.Bug.Kind, t.Ending(end.Bug.Kind, end.Bug.G))
	}
	if end.Kind != engine.Completed {
		return
	}
	if e.OnComplete != nil {
		e.OnComplete(e.m.Class())
	}
	if e.OnTrace != nil {
		t := e.trace()
		e.OnTrace(t.Hash())
	}
}

// trace returns the trace of the running execution's events so far.
func (e *Engine) trace() *indep.Trace {
	var t indep.Trace
	for _, lv := range e.levels[:e.depth] {
		ev := lv.ev.ev
		if ev.Obj >= 0 {
			ev.Obj = e.u.find(ev.Obj)
		}
		t.Add(ev)
	}
	return &t
}

// Fault implements engine.Continuer: the schedule is the trail restricted
// to the local configuration of g's failing event, and the bug is first
// when no other event of that configuration is one. With also, it is the
// whole trail, which runs every goroutine as far as it went.
func (e *Engine) Fault(_ *engine.Exec, g int32, _ *engine.Choice, also []engine.Reach) ([]engine.Choice, bool) {
	b := e.last.at(g)
	if b == nil {
		return nil, true
	}
	var sched []engine.Choice
	first := true
	for _, lv := range e.levels[:e.depth] {
		if len(also) > 0 || b.tmax.has(lv.ev) {
			sched = append(sched, lv.ev.choice())
			first = first && (!lv.ev.bug || lv.ev == b)
		}
	}
	e.faulted = true
	if first && e.OnBug != nil {
		// The step in which a goroutine fails names the kind; any other
		// failing operation is the race or misuse perform saw.
		kind := e.failed
		switch lab := &e.levels[b.pos].lab; {
		case len(also) > 0:
			kind = engine.DataRace
		case lab.Kind == event.Fail:
			kind = engine.BugKind(lab.Arg)
		}
		t := e.trace()
		e.OnBug(kind, t.Ending(kind, g))
	}
	return sched, first
}

// Exhaustive implements engine.Engine: every trace was explored.
func (e *Engine) Exhaustive() bool { return true }

// Spins implements engine.Awaiter.
func (e *Engine) Spins(_ *engine.Exec, g int32) bool { return e.m.Spins(g) }

// isAwait reports whether l is the wait of weft.Yield.
func isAwait(l *event.Label) bool { return l.Kind == event.Block && l.Arg == event.Await }

// Clock implements engine.Orderer.
func (e *Engine) Clock(_ *engine.Exec, g int32) []int32 { return e.m.Clock(g) }
