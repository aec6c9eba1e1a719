package condpor

import (
	"fmt"
	"slices"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
)

// Channels in the graph.
//
// Each channel is a location of its own, first written by the make. A
// channel operation is one operation of several events: a read of each
// channel it acts on (its own channels, then those of the selects it wakes,
// whose registrations it withdraws), then a write of each channel it
// changes, placed right after the write its read read. The consistency
// check contracts the events of an operation into one node, so that an
// operation on several channels happens at once. Operations on different
// channels are independent, and one that leaves a channel as it was (a
// len, a receive from a closed channel, a select that takes its default)
// only reads it.
//
// The outcome of a select is chosen at the read of its last own channel,
// where the readiness of every case is known.
//
// A goroutine that another operation woke (handed a value, or the close)
// runs its wait as a join of that operation's write, which carries the
// outcome: the wait touches no channel, so where it falls among the
// channel's other operations makes no class of its own. A select's wait
// also has the alternative of running before its waker, woken by a ready
// case (unwake): the revisits that alternative pushes are what explore the
// orders in which other operations see the select gone.

// isChan reports whether operations of kind k act on the channels.
func isChan(k event.Kind) bool {
	switch k {
	case event.ChanMake, event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		return true
	}
	return false
}

// token names the channel operation whose first event is at p; a made
// channel's ID is the token of its make.
func token(p graph.Pos) chans.Token { return chans.Token(int64(p.T)<<32 | int64(uint32(p.I))) }

// syncSource returns the event that an operation synchronizing with the
// operation named by tok joins: that operation's last event, or Init for
// none.
func syncSource(g *graph.Graph, tok chans.Token) graph.Pos {
	if tok == chans.NoToken {
		return graph.Init
	}
	return opLast(g, graph.Pos{T: int32(tok >> 32), I: int32(uint32(tok))})
}

// chanLoc returns the location of channel id: that of the write of its
// make. A channel made in another execution has none.
func (e *Engine) chanLoc(g *graph.Graph, id chans.ID) (int32, bool) {
	p := graph.Pos{T: int32(int64(id) >> 32), I: int32(uint32(id))}
	if id < 0 || !g.Has(p) || !e.executed(p) {
		return -1, false
	}
	ev := g.Ev(p)
	if ev.Lab.Kind != event.ChanMake || ev.Kind != graph.Write {
		return -1, false
	}
	return ev.Loc, true
}

// chanEnabled reports whether goroutine t's channel operation l can be
// performed on the coherence-latest states of its channels.
func (e *Engine) chanEnabled(g *graph.Graph, t int32, l *event.Label) bool {
	if l.Kind == event.ChanWait {
		if _, _, ok := e.fireOf(g, t, int32(len(g.Threads[t].Events)), l); ok {
			return true
		}
	}
	op := chans.OpOf(l, t, chans.NoToken)
	var s chans.State
	var buf [4]chans.ID
	for _, id := range chans.Own(buf[:0], &op) {
		if loc, ok := e.chanLoc(g, id); ok {
			s.Put(id, g.Value(g.CoMax(loc)))
		}
	}
	return s.Enabled(&op)
}

// makeChan adds the make of a channel by goroutine t: the first write of a
// new location.
func (e *Engine) makeChan(f *frame, t int32, l event.Label) event.Result {
	g := f.g
	p := graph.Pos{T: t, I: int32(len(g.Threads[t].Events))}
	op := chans.OpOf(&l, t, token(p))
	n, r := chans.State{}.Apply(&op, 0)
	loc := e.freeLoc(g)
	g.Loc(loc).Kind = event.Chan
	w := g.Add(t, graph.Event{Lab: l, Kind: graph.Write, Loc: loc, Val: n.Value(op.Chan), AddedMax: true, Revisitable: true}, false)
	g.InsertCo(w, graph.Init)
	return r.Event(&op)
}

// opState is a channel operation under construction or replay.
type opState struct {
	lab  event.Label
	op   chans.Op
	lead graph.Pos  // its first event, in the graph or to come
	own  []chans.ID // the channels it reads whatever their state
	s    chans.State
	// outcome is the read that bears a select's outcome, the read of its
	// last own channel (Init if it has none).
	outcome graph.Pos
}

func newOp(t int32, lab event.Label, lead graph.Pos) *opState {
	o := &opState{lab: lab, lead: lead, outcome: graph.Init}
	o.op = chans.OpOf(&o.lab, t, token(lead))
	o.own = chans.Own(nil, &o.op)
	return o
}

// readOf returns the read of loc among the events of the operation.
func readOf(g *graph.Graph, o *opState, loc int32) (graph.Pos, bool) {
	evs := g.Threads[o.lead.T].Events
	for i := o.lead.I; int(i) < len(evs) && (i == o.lead.I || evs[i].Cont); i++ {
		if ev := &evs[i]; ev.Kind == graph.Read && ev.Loc == loc {
			return graph.Pos{T: o.lead.T, I: i}, true
		}
	}
	return graph.Pos{}, false
}

// read makes the operation read channel id: from its read in the graph,
// or from a read added now (added), pushing the other writes it may read.
// ok is false for a channel made in another execution.
func (e *Engine) read(f *frame, o *opState, id chans.ID, own bool) (p graph.Pos, added, ok bool) {
	g := f.g
	loc, ok := e.chanLoc(g, id)
	if !ok {
		return graph.Pos{}, false, false
	}
	p, ok = readOf(g, o, loc)
	if !ok {
		p, added = e.addChanRead(f, o, id, loc, own), true
	}
	o.s.Put(id, g.ReadValue(p))
	return p, added, true
}

// addChanRead adds the operation's read of channel id at loc, reading the
// coherence-latest write, and pushes the others it may read as forward
// revisits.
func (e *Engine) addChanRead(f *frame, o *opState, id chans.ID, loc int32, own bool) graph.Pos {
	g := f.g
	t := o.lead.T
	base, _ := baseView(g, t)
	cands := e.coherent(g, loc, base)
	last := cands[len(cands)-1]
	p := graph.Pos{T: t, I: int32(len(g.Threads[t].Events))}
	// Only an operation on one channel can tell from that channel alone
	// whether it blocks, or whether it writes it.
	single := own && len(o.own) == 1
	for _, w := range cands[:len(cands)-1] {
		if !single || e.chanReadable(g, o, id, loc, w, base) {
			f.items = append(f.items, item{kind: forwardRead, a: p, b: w})
		}
	}
	return g.Add(t, graph.Event{
		Lab: o.lab, Kind: graph.Read, RMW: true, Cont: p != o.lead, Loc: loc, RF: last,
		AddedMax: true, Revisitable: true,
	}, false)
}

// chanReadable reports whether an operation on the one channel id may read
// w other than by default: not if it would block on it (that only leads to
// blocked graphs), nor if it would write the channel right after w where
// another operation did for good.
func (e *Engine) chanReadable(g *graph.Graph, o *opState, id chans.ID, loc int32, w graph.Pos, base []int32) bool {
	var s chans.State
	s.Put(id, g.Value(w))
	if !s.Enabled(&o.op) {
		return false
	}
	for alt := range s.Outcomes(&o.op) {
		if n, _ := s.Apply(&o.op, alt); !n.Changed(s, id) {
			return true // it may only read
		}
	}
	for _, r := range g.Locs[loc].Reads {
		rev := g.Ev(r)
		if rev.RF == w && writesAfter(g, r) && (!rev.Revisitable || graph.InView(base, r)) {
			return false
		}
	}
	return true
}

// build completes the channel operation o, whose events from o.lead on
// are in the graph or still to come: it reads the channels it has not read
// yet, gives a select its outcomes (anew when its outcome read was just
// added, or is reset, a read whose value changed), and adds a write for
// each channel it changes, pushing their backward revisits. It returns the
// result for the goroutine, or blocked if the operation cannot be
// performed on what it read: then it has only its reads. With check, it
// first checks that what it read is consistent (else not ok): a read it
// added may read what no single point in time shows.
func (e *Engine) build(f *frame, o *opState, reset graph.Pos, check bool) (res event.Result, ok, blocked bool) {
	g := f.g
	t := o.lead.T
	fresh := false
	for _, id := range o.own {
		if p, added, ok := e.read(f, o, id, true); ok {
			o.outcome = p
			fresh = added
		}
	}
	alt := 0
	if !o.outcome.IsInit() {
		ev := g.Ev(o.outcome)
		if fresh || o.outcome == reset {
			ev.Outcome = 0
			ev.Alts = int32(o.s.Outcomes(&o.op))
			for a := int32(1); a < ev.Alts; a++ {
				f.items = append(f.items, item{kind: choose, a: o.outcome, b: graph.Pos{I: a}})
			}
		}
		alt = int(ev.Outcome)
	}
	if !o.s.Enabled(&o.op) {
		return event.Result{}, false, true
	}
	n, r := o.s.Apply(&o.op, alt)
	for len(r.More) > 0 {
		progress := false
		for _, id := range r.More {
			if _, _, ok := e.read(f, o, id, false); ok {
				progress = true
			}
		}
		if !progress {
			break
		}
		n, r = o.s.Apply(&o.op, alt)
	}
	if check && g.Has(o.lead) && !g.Acyclic(o.lead) {
		// What it read cannot be read at once.
		return event.Result{}, false, false
	}
	sync := syncSource(g, r.Sync)
	var writes []graph.Pos
	changes := false
	for _, id := range r.Reads {
		loc, ok := e.chanLoc(g, id)
		if !ok || !n.Changed(o.s, id) {
			continue
		}
		changes = true
		if x, ok := opPartOf(g, o, graph.Write, loc); ok {
			g.Ev(x).Val = n.Value(id) // replayed, with this run's values
			continue
		}
		rp, _ := readOf(g, o, loc)
		w := g.Add(t, graph.Event{
			Lab: o.lab, Kind: graph.Write, RMW: true, Cont: true, Loc: loc, Val: n.Value(id),
			AddedMax: true, Revisitable: true, SyncFrom: sync,
		}, false)
		g.InsertCo(w, g.Ev(rp).RF)
		writes = append(writes, w)
	}
	switch {
	case !g.Has(o.lead):
		// An operation on no channel (close of nil, a select of nil
		// channels with a default) still has its event, to be replayed.
		g.Add(t, graph.Event{Lab: o.lab, Kind: graph.Choice, Loc: -1, Alts: 1, AddedMax: true, Revisitable: true}, false)
	case !changes && !sync.IsInit():
		// It synchronizes but changes nothing: a receive from a closed
		// channel.
		if last := opLast(g, o.lead); g.Ev(last).SyncFrom != sync {
			g.SetSync(last, sync, false)
		}
	}
	for _, w := range writes {
		e.revisits(f, w)
	}
	return r.Event(&o.op), true, false
}

// opPartOf returns the event of kind k at loc among o's events.
func opPartOf(g *graph.Graph, o *opState, k graph.Kind, loc int32) (graph.Pos, bool) {
	if !g.Has(o.lead) {
		return graph.Pos{}, false
	}
	return opPart(g, o.lead, k, loc)
}

// completeChan completes the channel operation of the read at r, whose
// value changed if changed, and reports whether the graph is consistent
// and respects the atomicity of every operation, or whether the operation
// blocks on what it read.
func (e *Engine) completeChan(f *frame, r graph.Pos, changed bool) (ok, blocked bool) {
	g := f.g
	lead := g.Leader(r)
	if w, ok := e.wokenBy(g, lead); ok {
		// What the wait of a select now reads shows that another
		// operation woke it: the wait is a join of that operation's
		// write, as when it was added after it, and reads no channel.
		lab := g.Ev(lead).Lab
		for i := g.OpEnd(lead) - 1; i >= lead.I; i-- {
			g.RemoveEvent(graph.Pos{T: lead.T, I: i})
		}
		p := g.Add(lead.T, graph.Event{Lab: lab, Kind: graph.Join, Loc: -1, RF: w, AddedMax: true, Revisitable: true}, true)
		return g.Acyclic(p), false
	}
	o := newOp(r.T, g.Ev(lead).Lab, lead)
	reset := graph.Init
	if changed {
		reset = r
	}
	if _, ok, blocked := e.build(f, o, reset, true); !ok {
		return false, blocked
	}
	// With its writes, the operation is one node of the graph: two
	// operations that changed a channel from the same state make a cycle,
	// which the revisits just pushed repair.
	return g.Acyclic(lead), false
}

// forceChan adds the reads of the channel operation l of goroutine t,
// which blocks: their alternatives explore the orders in which it goes
// first.
func (e *Engine) forceChan(f *frame, t int32, l event.Label) {
	o := newOp(t, l, graph.Pos{T: t, I: int32(len(f.g.Threads[t].Events))})
	for _, id := range o.own {
		e.read(f, o, id, true)
	}
}

// replayChan replays the channel operation whose first event is at p,
// completing it if part of it was cut away.
func (e *Engine) replayChan(x *engine.Exec, t int32, p graph.Pos) engine.Decision {
	f := e.top()
	g := f.g
	had := g.OpEnd(p) - p.I
	// This run's label: the value a send sends is this run's.
	l := x.G[t].Pending
	for i := p.I; i < g.OpEnd(p); i++ {
		g.Ev(graph.Pos{T: t, I: i}).Lab = l
	}
	o := newOp(t, l, p)
	res, ok, _ := e.build(f, o, graph.Init, false)
	if !ok {
		panic(fmt.Sprintf("weft: internal error: replayed channel operation blocks\n%v", g))
	}
	e.remaining -= int(had)
	e.cursor[t] = g.OpEnd(p)
	x.G[t].Result = res
	alt := int32(0)
	if !o.outcome.IsInit() {
		alt = g.Ev(o.outcome).Outcome
	}
	return engine.Decision{Verdict: engine.Run, G: t, Alt: alt}
}

// fireOf returns the write of the operation that handed goroutine t the
// outcome its wait l, the event at index i, waits for, and that outcome.
// The operation before the wait registered t on the channels it scans:
// the write is coherence-after the registration's.
func (e *Engine) fireOf(g *graph.Graph, t, i int32, l *event.Label) (graph.Pos, chans.Fired, bool) {
	if i == 0 {
		return graph.Pos{}, chans.Fired{}, false
	}
	tok := registration(g, t, i)
	op := chans.OpOf(l, t, chans.NoToken)
	var buf [4]chans.ID
	for _, id := range chans.Own(buf[:0], &op) {
		loc, ok := e.chanLoc(g, id)
		if !ok {
			continue
		}
		co := g.Locs[loc].Co
		for k := len(co) - 1; k >= 0 && co[k].T != t; k-- {
			if fired, ok := chans.FiredIn(g.Value(co[k]), t, tok); ok {
				return co[k], fired, true
			}
		}
	}
	return graph.Pos{}, chans.Fired{}, false
}

// registration returns the token of goroutine t's operation before its
// wait at index i: the one that registered it on the channels, with which
// the outcome it is handed is marked.
func registration(g *graph.Graph, t, i int32) chans.Token {
	return token(g.Leader(graph.Pos{T: t, I: i - 1}))
}

// wokenBy returns the write that woke the goroutine of the wait at lead,
// built as an operation, if one of its reads reads it.
func (e *Engine) wokenBy(g *graph.Graph, lead graph.Pos) (graph.Pos, bool) {
	if lead.I == 0 || g.Ev(lead).Lab.Kind != event.ChanWait {
		return graph.Pos{}, false
	}
	tok := registration(g, lead.T, lead.I)
	for i := lead.I; i < g.OpEnd(lead); i++ {
		ev := g.Ev(graph.Pos{T: lead.T, I: i})
		if ev.Kind != graph.Read || ev.RF.IsInit() {
			continue
		}
		if _, ok := chans.FiredIn(g.Value(ev.RF), lead.T, tok); ok {
			return ev.RF, true
		}
	}
	return graph.Pos{}, false
}

// addWait adds the wait of goroutine t, which another operation woke: an
// event that reads nothing but that operation's write, and so no channel.
func (e *Engine) addWait(f *frame, t int32, l event.Label, w graph.Pos, fired chans.Fired) event.Result {
	p := f.g.Add(t, graph.Event{Lab: l, Kind: graph.Join, Loc: -1, RF: w, AddedMax: true, Revisitable: true}, true)
	if _, isSelect := l.A.P.([]chans.Case); isSelect {
		// A select could also have been woken by a ready case before w
		// woke it.
		f.items = append(f.items, item{kind: unwoken, a: p, b: w})
	}
	return waitResult(l, fired)
}

// unwake explores the select wait joined at p as an operation that runs
// before the write w woke it: it reads, on w's channel, the state w
// changed, and takes a ready case. It and w's operation then both changed
// that state: the graph is not an execution, and the revisits of w's reads
// that the operation's writes push repair it.
func (e *Engine) unwake(f *frame, p, w graph.Pos) bool {
	g := f.g
	g.CutToStamp(g.Ev(p).Stamp)
	lab := g.Ev(p).Lab
	g.RemoveEvent(p)
	o := newOp(p.T, lab, p)
	loc := g.Ev(w).Loc
	if !slices.ContainsFunc(o.own, func(id chans.ID) bool { l, ok := e.chanLoc(g, id); return ok && l == loc }) {
		return false
	}
	before := e.coPred(g, loc, w)
	r := g.Add(p.T, graph.Event{
		Lab: lab, Kind: graph.Read, RMW: true, Loc: loc, RF: before, Revisitable: true,
	}, false)
	e.build(f, o, r, true) // r may bear the outcome: give the select its cases
	return false
}

// waitResult is what the wait l returns when it was handed fired.
func waitResult(l event.Label, fired chans.Fired) event.Result {
	op := chans.OpOf(&l, 0, chans.NoToken)
	r := chans.Result{Done: true, Case: fired.Case, V: fired.V, OK: fired.OK, Sync: fired.Sync}
	return r.Event(&op)
}

// replayWait replays the wait at p, a join of the write that woke it.
func (e *Engine) replayWait(x *engine.Exec, t int32, p graph.Pos) engine.Decision {
	g := e.top().g
	ev := g.Ev(p)
	ev.Lab = x.G[t].Pending
	fired, ok := chans.FiredIn(g.Value(ev.RF), t, registration(g, t, p.I))
	if !ok {
		return diverged(t, fmt.Sprintf("goroutine g%d's wait #%d was not woken this time", t, p.I))
	}
	e.cursor[t]++
	e.remaining--
	x.G[t].Result = waitResult(ev.Lab, fired)
	return engine.Decision{Verdict: engine.Run, G: t}
}

// addChan adds the events of goroutine t's channel operation l, which is
// enabled, and returns its result.
func (e *Engine) addChan(f *frame, t int32, l event.Label) event.Result {
	if l.Kind == event.ChanMake {
		return e.makeChan(f, t, l)
	}
	if l.Kind == event.ChanWait {
		if w, fired, ok := e.fireOf(f.g, t, int32(len(f.g.Threads[t].Events)), &l); ok {
			return e.addWait(f, t, l, w, fired)
		}
	}
	o := newOp(t, l, graph.Pos{T: t, I: int32(len(f.g.Threads[t].Events))})
	res, ok, _ := e.build(f, o, graph.Init, false)
	if !ok {
		panic(fmt.Sprintf("weft: internal error: an enabled channel operation blocks\n%v", f.g))
	}
	return res
}
