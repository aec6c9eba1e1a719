package condpor

import (
	"fmt"
	"slices"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/class"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
)

// How the exploration adds, replays, revisits and forces channel
// operations (see channels.go for the model).

// The outcomes of the choice event of a channel operation that has none.
const (
	// forcedMark stands for an operation that blocks at the end of an
	// execution, whose alternatives hang on it (see forceChan).
	forcedMark = -1
	// blockedMark stands for an operation whose outcome a backward
	// revisit took away (see backwardChan): it waits, and only a later
	// write can revisit it, with an outcome it could not take where it
	// stands. An execution that ends with it waiting is dropped.
	blockedMark = -2
)

// placeholder reports whether ev stands for a channel operation that is not
// performed (forcedMark, blockedMark): it is never part of an execution.
func placeholder(ev *graph.Event) bool {
	return ev.Kind == graph.Choice && ev.Outcome < 0 && ev.Lab.Kind.Chan()
}

// blockedAt returns the position of goroutine t's last event if it is a
// blockedMark.
func blockedAt(g *graph.Graph, t int32) (graph.Pos, bool) {
	if int(t) >= len(g.Threads) {
		return graph.Pos{}, false
	}
	evs := g.Threads[t].Events
	if n := len(evs); n > 0 && evs[n-1].Kind == graph.Choice && evs[n-1].Outcome == blockedMark {
		return graph.Pos{T: t, I: int32(n - 1)}, true
	}
	return graph.Pos{}, false
}

// strandedChan reports whether, at the end of an execution, a goroutine
// waits where a revisit left it (blockedMark) although its operation could
// be performed now. One that cannot is blocked for good, as in the program.
func (e *Engine) strandedChan(g *graph.Graph, x *engine.Exec) bool {
	for _, gr := range x.G {
		if gr == nil || gr.Status != engine.Ready {
			continue
		}
		p, ok := blockedAt(g, gr.ID)
		if !ok {
			continue
		}
		o := newCop(gr.ID, gr.Pending, p)
		var buf [4]option
		in := func(q graph.Pos) bool { return q != p }
		if len(e.options(view{g: g, in: in}, o, false, nil, buf[:0])) > 0 {
			return true
		}
	}
	return false
}

// chanEnabled reports whether goroutine t can perform its channel
// operation l now.
func (e *Engine) chanEnabled(g *graph.Graph, t int32, l *event.Label) bool {
	switch l.Kind {
	case event.ChanMake, event.ChanClose, event.ChanLen:
		return true
	}
	if _, ok := blockedAt(g, t); ok {
		return false // waiting where a revisit left it: only revisits move it
	}
	o := newCop(t, *l, graph.Pos{T: t, I: int32(len(g.Threads[t].Events))})
	if e.offers(g, o) {
		return true
	}
	var buf [4]option
	return len(e.options(view{g: g}, o, false, nil, buf[:0])) > 0
}

// consumes reports whether goroutine t's channel operation l reads what
// others left (it takes an offer, a buffered value or room): the schedule
// runs the others first, as it does for loads.
func (e *Engine) consumes(g *graph.Graph, t int32, l *event.Label) bool {
	switch l.Kind {
	case event.ChanMake:
		return false
	case event.ChanSend, event.ChanRecv, event.Select:
		return !e.offers(g, newCop(t, *l, graph.Pos{T: t, I: int32(len(g.Threads[t].Events))}))
	}
	return true
}

// addChan adds the events of goroutine t's channel operation l, which is
// enabled, taking its default outcome and pushing the others as
// alternatives, and returns its result.
func (e *Engine) addChan(f *frame, t int32, l event.Label) event.Result {
	g := f.g
	o := newCop(t, l, graph.Pos{T: t, I: int32(len(g.Threads[t].Events))})
	opt := alone(0)
	if e.hasChoice(g, o) {
		base, _ := baseView(g, t)
		opts := e.options(view{g: g}, o, true, base, nil)
		if len(opts) == 0 || !opts[0].plain() {
			panic(fmt.Sprintf("weft: internal error: goroutine %d's enabled %v has no outcome\n%v", t, l.Kind, g))
		}
		opt = opts[0]
		for _, alt := range opts[1:] {
			f.items = append(f.items, optionItem(o.lead, alt))
		}
	} else if o.op.Blocking() && len(o.op.Cases) == 1 && o.op.Cases[0].Send {
		// A send that panics on a closed channel could have come before
		// the close, and before the sends already there.
		base, _ := baseView(g, t)
		for _, alt := range e.options(view{g: g}, o, true, base, nil) {
			if alt.hasMain {
				f.items = append(f.items, optionItem(o.lead, alt))
			}
		}
	}
	res, st := e.build(f, o, opt)
	if st != built {
		panic(fmt.Sprintf("weft: internal error: goroutine %d's enabled %v could not be added (%d)\n%v", t, l.Kind, st, g))
	}
	return res.Event(&o.op)
}

// optionItem is the alternative of taking opt for the operation at lead.
func optionItem(lead graph.Pos, opt option) item {
	it := item{kind: chanOption, a: lead, b: opt.offer, alt: opt.out.Alt(), with: opt.out.With1()}
	if opt.hasMain {
		it.b = opt.main
	}
	it.steal, it.beforeClose, it.stealBack, it.hasMain = opt.steal, opt.beforeClose, opt.stealBack, opt.hasMain
	return it
}

// optionOf is the inverse of optionItem.
func optionOf(it item) option {
	opt := option{out: chans.Decode(it.alt, it.with), offer: graph.Init,
		steal: it.steal, beforeClose: it.beforeClose, stealBack: it.stealBack, hasMain: it.hasMain}
	if it.hasMain {
		opt.main = it.b
	} else if opt.out.With >= 0 {
		opt.offer = it.b
	}
	return opt
}

// applyOption rebuilds the operation at lead, and what follows it, with the
// alternative it.
func (e *Engine) applyOption(f *frame, it item) bool {
	g := f.g
	lead := it.a
	g.CutToStamp(g.Ev(lead).Stamp)
	saved := *g.Ev(lead)
	g.RemoveEvent(lead)
	o := newCop(lead.T, saved.Lab, lead)
	_, st := e.rebuild(f, o, optionOf(it))
	if g.Has(lead) {
		g.Ev(lead).Origin = saved.Origin
	}
	switch st {
	case invalid:
		// The other alternatives of the operation start from it again.
		g.Add(lead.T, saved, false)
		return false
	case conflict:
		return false
	}
	g.Ev(lead).AddedMax = false
	return g.Acyclic(lead)
}

// outcomeOf returns the option the built operation o took: from its choice
// event, or its one case.
func (e *Engine) outcomeOf(g *graph.Graph, o *cop) option {
	if !e.hasChoice(g, o) || !g.Has(o.lead) {
		return alone(0)
	}
	ev := g.Ev(o.lead)
	opt := option{out: chans.Decode(ev.Outcome, ev.With), offer: graph.Init}
	if int(opt.out.Case) == len(o.op.Cases) {
		// A default with a case on a channel that a close added before
		// it closed is the variant that goes before that close (a plain
		// default reads every channel open): rebuilt after a forward
		// revisit of one of its reads, it must stay that variant
		// (defaultBeforeCloseRead in package chanprog).
		for _, k := range o.op.Cases {
			if ci := e.info(g, k.Chan); ci != nil && closed(g, g.CoMax(ci.cl)) {
				opt.beforeClose = true
			}
		}
	}
	return opt
}

// replayChan replays the channel operation whose first event is at p,
// with this run's label, completing it if part of it was cut away.
func (e *Engine) replayChan(x *engine.Exec, t int32, p graph.Pos) engine.Decision {
	f := e.top()
	g := f.g
	had := g.OpEnd(p) - p.I
	l := x.G[t].Pending
	for i := p.I; i < g.OpEnd(p); i++ {
		g.Ev(graph.Pos{T: t, I: i}).Lab = l
	}
	o := newCop(t, l, p)
	res, st := e.build(f, o, e.outcomeOf(g, o))
	if st != built {
		panic(fmt.Sprintf("weft: internal error: replayed %v of goroutine %d at %v cannot be performed (%d)\n%v", l.Kind, t, p, st, g))
	}
	e.remaining -= int(had)
	e.cursor[t] = g.OpEnd(p)
	x.G[t].Result = res.Event(&o.op)
	return engine.Ran(e.choiceOf(g, p))
}

// choiceOf returns the schedule's choice of the operation whose first
// event is at p, as the interleaving semantics names it.
func (e *Engine) choiceOf(g *graph.Graph, p graph.Pos) engine.Choice {
	c := engine.Choice{G: p.T}
	ev := g.Ev(p)
	if ev.Kind == graph.Choice && ev.Lab.Kind.Chan() {
		c.Alt, c.With = ev.Outcome, ev.With
		return c
	}
	for i := p.I; i < g.OpEnd(p); i++ {
		c.Alt = max(c.Alt, g.Ev(graph.Pos{T: p.T, I: i}).Outcome)
	}
	return c
}

// completeChan rebuilds, after a forward revisit, the channel operation of
// the read at r, which reads another write now, and reports whether the
// graph is an execution.
func (e *Engine) completeChan(f *frame, r graph.Pos) bool {
	g := f.g
	lead := g.Leader(r)
	o := newCop(r.T, g.Ev(lead).Lab, lead)
	n := len(f.items)
	_, st := e.rebuild(f, o, e.outcomeOf(g, o))
	if ev := g.Ev(lead); ev.Kind == graph.Choice && ev.Moved && !readsOp(g, lead, ev.RF) {
		// A revisit placed it after the write in its RF, for an outcome
		// that reads it. With one that reads nothing of that write's
		// operation now, the graph is this alternative taken where it
		// stood before (a steal, or an older count, pushed there:
		// recvBeforeRecvTwice in package chanprog). The revisits that
		// repair a conflict go with it.
		f.items = f.items[:n]
		return false
	}
	if st != built {
		return false
	}
	return g.Acyclic(lead)
}

// backwardChan completes, in the child frame's graph, the channel operation
// of the read r that w revisits, an operation without a choice event: it is
// built again on what it reads now. An operation that cannot be performed
// on it loses its events: its goroutine waits.
func (e *Engine) backwardChan(child *frame, r, w graph.Pos) bool {
	c := child.g
	lead := c.Leader(r)
	o := newCop(r.T, c.Ev(lead).Lab, lead)
	_, st := e.rebuild(child, o, alone(0))
	switch {
	case st == conflict, st == invalid && !o.op.Blocking():
		return false // what it reads is not one point in time
	case st == invalid:
		// That graph is the child only if the operation's other reads
		// read the latest writes; else the branch where they did
		// reaches it.
		child.items = child.items[:0]
		for i := c.OpEnd(lead) - 1; i >= lead.I; i-- {
			p := graph.Pos{T: r.T, I: i}
			if ev := c.Ev(p); p != r && ev.Kind == graph.Read && !ev.AddedMax && !ev.Forced {
				return false
			}
			c.RemoveEvent(p)
		}
	}
	return c.Acyclic(w)
}

// choiceRevisits pushes the backward revisits that the write w allows of
// the selects and waits added before it: those that could have taken,
// after w, a case whose reads would read w. That is the offer w, for a
// rendezvous; the count of a send w, for a receive case (the value it put
// in the buffer) and for a send case (which goes after it); the count of a
// receive w, for a send case (the slot it freed) and for a receive case;
// and the close w, for a case of the closed channel. Reading the other
// writes such a case reads, those outcomes are the revisits of other writes
// (see backwardChoice).
func (e *Engine) choiceRevisits(f *frame, w graph.Pos) {
	g := f.g
	wev := g.Ev(w)
	loc := wev.Loc
	kind := g.Locs[loc].Kind
	var cases []chans.Case
	if kind == event.ChanOffer {
		cases = offerCases(g, w)
	}
	wv := g.Ev(opLast(g, w)).View
	limit, _ := conflictLimit(g, w)
	// An offer, or the close of an unbuffered channel, makes a case ready
	// on its own: see stolenFrom.
	alone := kind == event.ChanOffer || kind == event.ChanClosed && g.Value(g.Locs[loc].Co[0]).P.(*chanInfo).cap == 0
	for _, p := range g.Choices {
		ev := g.Ev(p)
		if ev.Stamp >= limit {
			break
		}
		if !ev.Lab.Kind.Chan() || ev.Outcome == forcedMark || p.T == w.T ||
			graph.InView(wv, p) || !ev.Revisitable || !ev.AddedMax || alone && stolenFrom(ev, wv) || lingering(ev, wv) {
			continue
		}
		o := newCop(p.T, ev.Lab, p)
		if !e.hasChoice(g, o) {
			continue
		}
		stealBack := false
		if o.lab.Kind == event.ChanWait && ev.Outcome != blockedMark {
			self := ownOffer(o)
			r, ok := opRead(g, p, g.Ev(self).Loc)
			if !ok {
				continue
			}
			if g.Ev(r).RF != self {
				// Handed its outcome: after w, it may complete on its
				// own before the update that took its offer, which is
				// then revisited (a conflict, repaired).
				taker, ok := opPart(g, g.Ev(r).RF, graph.Read, g.Ev(self).Loc)
				if !ok || !g.Ev(taker).Revisitable || graph.InView(wv, taker) {
					continue
				}
				stealBack = true
			}
		}
		if r, ok := opRead(g, p, loc); ok && !g.Ev(r).Forced {
			// It reads w's location: revisiting that read moves it after
			// w, where it takes any outcome anew.
			continue
		}
		cur := chans.Decode(ev.Outcome, ev.With)
		for i, k := range o.op.Cases {
			ci := e.info(g, k.Chan)
			if ci == nil {
				continue
			}
			var outs []chans.Outcome
			switch {
			case kind == event.ChanOffer:
				if ci.cap > 0 || k.Send && o.op.Blocking() {
					continue
				}
				for j, ok := range cases {
					if ok.Chan == k.Chan && ok.Send != k.Send {
						outs = append(outs, chans.Outcome{Case: int32(i), With: w.T, WithCase: int32(j)})
					}
				}
			case kind == event.ChanClosed && loc == ci.cl, kind == event.ChanCount && (loc == ci.t || loc == ci.h):
				if cur != chans.Alone(int32(i)) {
					outs = append(outs, chans.Alone(int32(i)))
				}
			}
			if len(outs) > 0 && wokenElsewhere(g, ev, wv, ci) {
				continue
			}
			for _, out := range outs {
				if kind == event.ChanCount && e.idleAfterRepair(g, o, ev, wv, out) {
					continue
				}
				if e.maximal(g, p, w) {
					f.items = append(f.items, item{kind: backward, a: p, b: w, alt: out.Alt(), with: out.With1(), hasOut: true, stealBack: stealBack})
				}
			}
		}
	}
}

// wokenElsewhere reports whether the operation whose choice event is ev,
// which waited until the revisit by the write in its RF let it go (Moved
// and Handed), may take a case of channel ci after a write whose
// operation has porf view wv: the graph is also that write's revisit of
// the operation where it waited when the write sees the first
// (closeThenRoom in package chanprog), and when it neither sees it nor
// takes a case of the channel it wrote, which then comes after the
// operation, unread (twoClosesTwice).
func wokenElsewhere(g *graph.Graph, ev *graph.Event, wv []int32, ci *chanInfo) bool {
	if !ev.Moved || !ev.Handed {
		return false
	}
	if graph.InView(wv, ev.RF) {
		return true
	}
	loc := g.Ev(ev.RF).Loc
	return loc != ci.cl && loc != ci.t && loc != ci.h
}

// lingering reports whether the operation whose choice event is ev waits
// where the revisit by the write in its RF left it, none of its outcomes
// possible there, and a write whose operation has porf view wv, which
// sees that write, would let it go: that graph is also the write's
// revisit of the operation where it stood before, which keeps what the
// write sees (selectWaitsForRoom in package chanprog). A write that does
// not see it is what the wait is for (see waitAfter).
func lingering(ev *graph.Event, wv []int32) bool {
	return ev.Outcome == blockedMark && !ev.Repaired && graph.InView(wv, ev.RF)
}

// stolenFrom reports whether the operation whose choice event is ev waits
// because a conflict's repair took from it what it had taken (Repaired),
// and an offer or the close of an unbuffered channel, whose operation has
// porf view wv, which does not see that repair, would let it go: that
// graph is also the revisit by that write of the operation where it had
// taken it, before the repair (stolenOfferTwice, closeThenRoom in
// package chanprog). Not a buffered channel's close or count, which may
// let it go only with what the repair took (a buffer the stealer emptied:
// stolenThenClosed).
func stolenFrom(ev *graph.Event, wv []int32) bool {
	return ev.Outcome == blockedMark && ev.Repaired && !graph.InView(wv, ev.RF)
}

// idleAfterRepair reports whether the revisit by a count update w, whose
// operation has porf view wv, that gives the operation o, whose choice
// event is ev, the outcome out reaches a graph that another route reaches
// too. The operation waits where a conflict's repair left it (Repaired)
// although it has an outcome there, one that reads nothing of the repairing
// write (which is taken where the operation stood before: see
// backwardChoice), and w does not see the repairing write. If some case of
// out's channel is not possible where the operation first stood (its
// Origin) on the events w's revisit of it there keeps, that revisit leaves
// it waiting there too (see waitsEarlier), and the repairing write's
// operation, added again after it, revisits it with every outcome it has
// now: the same graph, with w and the repairing write in the other order
// (sendAfterSendAndRecv, sendAfterTwoRevisits in package chanprog). If
// every case is possible there, w's revisit there takes one or none, and
// this revisit is the only route (secondValueAfterSteal). Not a close of a
// buffered channel, which may let the operation go only with what the
// repair took (stolenThenClosed); an offer or the close of an unbuffered
// channel is stolenFrom's.
func (e *Engine) idleAfterRepair(g *graph.Graph, o *cop, ev *graph.Event, wv []int32, out chans.Outcome) bool {
	if ev.Outcome != blockedMark || !ev.Repaired || graph.InView(wv, ev.RF) || ev.Origin.IsInit() || !g.Has(ev.Origin) {
		return false
	}
	before := view{g: g, in: func(q graph.Pos) bool { return g.Ev(q).Stamp < ev.Stamp }}
	var buf [4]option
	if len(e.options(before, o, false, nil, buf[:0])) == 0 {
		return false
	}
	s0 := g.Ev(ev.Origin).Stamp
	origin := view{g: g, in: func(q graph.Pos) bool { return g.Ev(q).Stamp <= s0 || graph.InView(wv, q) }}
	opts := e.options(origin, o, false, nil, buf[:0])
	for j, k := range o.op.Cases {
		if k.Chan == o.op.Cases[out.Case].Chan && !hasOutcome(opts, chans.Alone(int32(j))) {
			return true
		}
	}
	return false
}

// handRevisit pushes the backward revisit that the write w allows, which
// takes the offer of a goroutine waiting where a revisit left it
// (blockedMark): its wait now takes what w hands it.
func (e *Engine) handRevisit(f *frame, w graph.Pos) {
	g := f.g
	offer := g.Ev(w)
	rp, ok := opPart(g, w, graph.Read, offer.Loc)
	if !ok {
		return
	}
	owner := g.Ev(rp).RF
	m, ok := blockedAt(g, owner.T)
	if !ok || m.I != owner.I+1 || graph.InView(g.Ev(opLast(g, w)).View, m) {
		return
	}
	if limit, _ := conflictLimit(g, w); g.Ev(m).Stamp >= limit || !e.maximal(g, m, w) || e.readyAgain(g, m, w) {
		return
	}
	out := g.Value(w).P.(*takenBy).out
	f.items = append(f.items, item{kind: backward, a: m, b: w, alt: out.Alt(), with: out.With1(), hasOut: true})
}

// readyAgain reports whether the operation waiting at m, where the revisit
// by the write in its RF left it, has an outcome on that write's location
// on the events that w's revisit of it keeps: the write among them that
// allows it revisits it, it then completes on its own, and the taker of
// its offer steals it, whose repair hands it what w would
// (recvThenSelectDuplicate).
func (e *Engine) readyAgain(g *graph.Graph, m, w graph.Pos) bool {
	o := newCop(m.T, g.Ev(m).Lab, m)
	loc := g.Ev(g.Ev(m).RF).Loc
	var buf [4]option
	for _, opt := range e.options(keptView(g, w, keptBy(g, m, w), g.Ev(m).Stamp), o, false, nil, buf[:0]) {
		if e.acts(g, o, opt, loc) {
			return true
		}
	}
	return false
}

// acts reports whether the outcome opt of o acts on location loc: the
// state of the channel of its case (of any case, for a default), or the
// offer it takes.
func (e *Engine) acts(g *graph.Graph, o *cop, opt option, loc int32) bool {
	if opt.out.With >= 0 && !opt.offer.IsInit() && g.Ev(opt.offer).Loc == loc {
		return true
	}
	for i, k := range o.op.Cases {
		if int32(i) != opt.out.Case && int(opt.out.Case) != len(o.op.Cases) {
			continue
		}
		if ci := e.info(g, k.Chan); ci != nil && (loc == ci.cl || loc == ci.t || loc == ci.h) {
			return true
		}
	}
	return false
}

// opRead returns the read of loc among the events of the operation whose
// first event is at lead.
func opRead(g *graph.Graph, lead graph.Pos, loc int32) (graph.Pos, bool) {
	for i := lead.I; i < g.OpEnd(lead); i++ {
		p := graph.Pos{T: lead.T, I: i}
		if ev := g.Ev(p); ev.Kind == graph.Read && ev.Loc == loc {
			return p, true
		}
	}
	return graph.Pos{}, false
}

// backwardChoice completes, in the child frame's graph, the revisit by w of
// the select or wait of the event it.a (its choice event, when an offer or
// a write that makes a case ready revisits it; one of its reads, when w is
// a later write of what it read). The operation now stands after w and
// takes an outcome that reads w: the item's (hasOut), else each of those it
// has there, the first in the child and the others as alternatives pushed
// on parent. With none, it waits there (blockedMark).
func (e *Engine) backwardChoice(parent, child *frame, it item) bool {
	c := child.g
	w := it.b
	lead := it.a
	lab := c.Ev(lead).Lab
	repair := e.repairs(parent.g, lead, w)
	wv := parent.g.Ev(opLast(parent.g, w)).View
	// A goroutine that waited until w's revisit handed it an outcome is
	// marked Handed. A repair that would leave it waiting again gives the
	// graph where it waited before: the revisits of that graph already
	// hand it every later offer (unbufferedLoopsTwice, rangeTwice in
	// package chanprog), so this one is dropped.
	pev := parent.g.Ev(lead)
	again := repair && pev.Handed
	handed := pev.Outcome == blockedMark
	for i := c.OpEnd(lead) - 1; i > lead.I; i-- {
		c.RemoveEvent(graph.Pos{T: lead.T, I: i})
	}
	o := newCop(lead.T, lab, lead)
	v := view{g: c}
	base, _ := baseView(c, lead.T)
	opts := e.options(v, o, false, nil, nil)
	readsW := func(opt option) bool { return slices.Contains(e.dryReads(child, o, opt), w) }
	// first is the first of opts that reads w: a repair's outcome must
	// read w, and that one is as maximal as a read a revisit placed, which
	// a later write may revisit again (a close after the send that a
	// steal put first makes a send case of the select panic:
	// repairedThenClosed in package chanprog).
	first := chans.Outcome{Case: -1}
	var cands []option
	if it.opt != nil {
		cands = append(cands, *it.opt)
	} else if it.hasOut {
		opt := alone(0)
		opt.out = chans.Decode(it.alt, it.with)
		if opt.out.With >= 0 {
			opt.offer = w
			// A rendezvous with w's offer on a channel that a close added
			// before the operation closed goes before that close: the
			// close is kept, not read.
			if ci := e.info(c, o.op.Cases[opt.out.Case].Chan); ci != nil && v.closed(ci) {
				opt.beforeClose = !graph.InView(base, v.last(ci.cl))
			}
		}
		opt.stealBack = it.stealBack
		cands = append(cands, opt)
	} else {
		for _, opt := range opts {
			if readsW(opt) {
				if first.Case < 0 {
					first = opt.out
				}
				cands = append(cands, opt)
			}
		}
		// A close added before the operation is never revisited by it:
		// the outcomes that go before that close and read w are reached
		// from here only.
		for _, opt := range e.options(v, o, true, base, nil) {
			if opt.beforeClose && !opt.steal && !opt.stealBack && !opt.hasMain && readsW(opt) {
				cands = append(cands, opt)
			}
		}
	}
	if len(cands) == 0 && repair {
		// w's update and the operation's updated one write, and none of
		// its outcomes after w reads w (w made a case not ready). Only
		// the revisits of the conflict's writes were pushed (see
		// builder.finish): those outcomes that read another write of
		// w's operation, or older writes (its default, before what made
		// another case ready), are reached from here only. Not the
		// first for a goroutine that waited until a hand (again): the
		// write of w's operation that such an outcome reads revisited
		// it where it waited, before the hand, and took that outcome
		// there (handOrStealBack in this package's tests).
		ofW := func(q graph.Pos) bool { return sameOp(c, q, w) }
		for _, opt := range e.options(v, o, true, base, nil) {
			if !opt.plain() || slices.ContainsFunc(e.dryReads(child, o, opt), ofW) && !again {
				cands = append(cands, opt)
			}
		}
		if len(opts) == 0 {
			// Nothing lets it go after w: waiting there is an outcome
			// too (the deadlock where it starves: repairedWaitStarves
			// in package chanprog), those older ones alternatives.
			pushOutcomes(parent, it.a, w, cands)
			cands = nil
		}
	}
	if len(cands) == 0 && lab.Kind == event.Select && len(opts) == 0 && !repair {
		// A select with no offer, which nothing lets go there: it waits,
		// and is added again once it can go, as a send or a receive is.
		// Not after a repair: it waits after w (below), as a wait does,
		// for the writes added later to revisit it with w kept (added
		// again, it missed the assert of selectSendAfterRecv in package
		// chanprog).
		c.RemoveEvent(lead)
		return true
	}
	saved := *c.Ev(lead)
	saved.Repaired = repair
	if len(cands) == 0 {
		if again {
			return false
		}
		// It waits after w's prefix (see below): the write that lets it
		// go later must not delete w's.
		return waitAfter(c, lead, saved, w)
	}
	// The operation now comes after w's prefix in the order of addition
	// too, so that a later revisit of it by a write of another location
	// keeps the writes it reads now: it reads several locations, which
	// one revisit alone cannot all place before it
	// (defaultAfterRecvAndClose in package chanprog).
	if repair && (it.opt != nil || it.hasOut) {
		for _, opt := range opts {
			if readsW(opt) {
				first = opt.out
				break
			}
		}
	}
	c.RemoveEvent(lead)
	for i, cand := range cands {
		_, st := e.rebuildAfter(child, o, cand, w)
		if c.Has(lead) {
			c.Ev(lead).Origin = saved.Origin
		}
		switch st {
		case conflict:
			child.repair = true
			return false
		case invalid:
			continue
		}
		if _, ok := readsFrom(c, lead, w); !ok && !repair {
			return false // the case reads another write: that write's revisit
		}
		if pev.Outcome == blockedMark && !graph.InView(wv, pev.RF) && (!readsOp(c, lead, pev.RF) || e.eitherOrder(parent.g, o, pev, w, wv, cand.out)) {
			// It waited after the write w1 in its RF, which w does not
			// see, and takes an outcome that reads nothing of w1's
			// operation: that is w's revisit of it where it stood before
			// w1's revisit left it waiting, which keeps the same events
			// but w1's prefix, added again after it (twoSelectsTwice in
			// package chanprog). Or the outcome reads w1's operation,
			// and the two revisits in the other order give it
			// (eitherOrder).
			pushOutcomes(parent, it.a, w, cands[i+1:])
			return false
		}
		c.Ev(lead).AddedMax = len(opts) > 0 && opts[0].out == cand.out || repair && cand.out == first
		c.Ev(lead).Handed, c.Ev(lead).Repaired = handed, repair
		// Placed after w, it no longer stands before the write that
		// revisited it: Moved and RF keep that it did (see revisited).
		c.Ev(lead).Moved, c.Ev(lead).RF = true, w
		pushOutcomes(parent, it.a, w, cands[i+1:])
		return c.Acyclic(lead)
	}
	// None of its outcomes is possible after w's prefix: the one it had
	// needs another write too (a close that makes its case ready, added
	// after it like w), or it defaulted before what w orders after it
	// (a conflict's repair). It waits after w's prefix, so that the
	// writes added later that let it go revisit it there with w kept
	// (selectSendThenAssert, closedOrBuffered in package chanprog); if
	// none does, the execution is stranded, not counted. Its outcomes
	// that read none of w's writes are taken where it stood. An older
	// outcome of a repair that is not possible either does not wait: the
	// repair's first outcome, which stands there maximal, gets the
	// revisits of the writes added later (repairedDefaultTwice in package
	// chanprog).
	if again || repair && it.opt != nil && len(opts) > 0 {
		return false
	}
	if it.hasOut && it.opt == nil && waitsEarlier(o, chans.Decode(it.alt, it.with), chans.Decode(pev.Outcome, pev.With), opts) {
		return false
	}
	return waitAfter(c, lead, saved, w)
}

// eitherOrder reports whether the revisit by w of the operation o, which
// the revisit by the write w1 in its RF left waiting where it was waiting
// already (graph.Event.Rewaited), and which w does not see, giving it the
// outcome out, which reads w1's operation, reaches a graph that the two
// revisits in the other order reach too: w's revisit of it where it
// waited before, which leaves it waiting after w, then w1's. Of the two
// orders, the one whose last revisit is by the goroutine with the larger
// id is kept (selectBodiesRefill in package chanprog).
//
// w's revisit leaves it waiting when one of the outcomes it pushes, one
// per case of out's channel, is not possible on the events up to where
// the operation first stood and w's prefix (as in idleAfterRepair); when
// it could go there, this revisit is the only route (recvBetweenValues).
// It must have waited before w1's revisit too: with an outcome there,
// w's revisit of it there was the repair of a conflict, which
// idleAfterRepair may drop (hadOutcomeThenWaited).
func (e *Engine) eitherOrder(g *graph.Graph, o *cop, ev *graph.Event, w graph.Pos, wv []int32, out chans.Outcome) bool {
	if !ev.Rewaited || w.T >= ev.RF.T || ev.Origin.IsInit() || !g.Has(ev.Origin) {
		return false
	}
	s0 := g.Ev(ev.Origin).Stamp
	origin := view{g: g, in: func(q graph.Pos) bool { return g.Ev(q).Stamp <= s0 || graph.InView(wv, q) }}
	var buf [4]option
	opts := e.options(origin, o, false, nil, buf[:0])
	for j, k := range o.op.Cases {
		if k.Chan == o.op.Cases[out.Case].Chan && !hasOutcome(opts, chans.Alone(int32(j))) {
			return true
		}
	}
	return false
}

// waitsEarlier reports whether the revisit that gives the operation o the
// outcome out, which is not possible after the revisiting write and so
// leaves it waiting there, is one of several that reach that wait:
// choiceRevisits pushes, for a write of one channel's state, an outcome for
// each case of that channel other than the current outcome cur, and every
// one of them that opts (the outcomes possible there) lacks ends in the
// same wait. Only the first one waits (twoReceiveCases in package
// chanprog).
func waitsEarlier(o *cop, out, cur chans.Outcome, opts []option) bool {
	if out.With >= 0 {
		return false
	}
	k := o.op.Cases[out.Case]
	for j := int32(0); j < out.Case; j++ {
		kj := o.op.Cases[j]
		if kj.Chan != k.Chan || chans.Alone(j) == cur {
			continue
		}
		if !hasOutcome(opts, chans.Alone(j)) {
			return true
		}
	}
	return false
}

// pushOutcomes pushes on f, for each of opts, the revisit by w of the
// operation at a that takes it.
func pushOutcomes(f *frame, a, w graph.Pos, opts []option) {
	for _, opt := range opts {
		alt := item{kind: backward, a: a, b: w, alt: opt.out.Alt(), with: opt.out.With1(), hasOut: true}
		if !opt.plain() {
			alt.opt = &opt
		}
		f.items = append(f.items, alt)
	}
}

// hasOutcome reports whether opts has the outcome out.
func hasOutcome(opts []option, out chans.Outcome) bool {
	return slices.ContainsFunc(opts, func(opt option) bool { return opt.out == out })
}

// waitAfter places the operation whose choice event ev was at lead in
// graph c after w's prefix, waiting (blockedMark).
func waitAfter(c *graph.Graph, lead graph.Pos, ev graph.Event, w graph.Pos) bool {
	if c.Has(lead) {
		c.RemoveEvent(lead)
	}
	ev.Rewaited = ev.Outcome == blockedMark
	ev.Outcome, ev.With, ev.RF, ev.AddedMax = blockedMark, 0, w, true
	c.Add(lead.T, ev, false)
	return c.Acyclic(lead)
}

// repairs reports whether the revisit by w of the operation whose choice
// event is at lead orders two updates that read one write: one of w's
// operation and one of lead's.
func (e *Engine) repairs(g *graph.Graph, lead, w graph.Pos) bool {
	loc := g.Ev(w).Loc
	rp, ok := opPart(g, w, graph.Read, loc)
	if !ok {
		return false
	}
	src := g.Ev(rp).RF
	for i := lead.I + 1; i < g.OpEnd(lead); i++ {
		p := graph.Pos{T: lead.T, I: i}
		if ev := g.Ev(p); ev.Kind == graph.Read && ev.Loc == loc && ev.RF == src && writesAfter(g, p) {
			return true
		}
	}
	return false
}

// revisited reports whether the select or wait whose choice event is at p
// took its outcome in a revisit by a write added after it, which kept
// returns false for: the revisit is taken from the graph where it had not
// (TruSt's rule for a read revisited twice). A blockedMark names the write
// that left it waiting in its RF, and so does a Moved choice event the
// write that placed it.
func revisited(g *graph.Graph, p graph.Pos, kept func(graph.Pos) bool) bool {
	st := g.Ev(p).Stamp
	later := func(w graph.Pos) bool { return !w.IsInit() && !kept(w) && g.Ev(w).Stamp > st }
	if ev := g.Ev(p); ev.Outcome == blockedMark {
		return later(ev.RF)
	} else if ev.Moved {
		// A revisit that deletes the write that placed it reaches a
		// graph that the one before that revisit reaches too (the
		// retry loop of package timeprog explored 6 of its 45 classes
		// twice).
		return !kept(ev.RF)
	}
	for i := p.I + 1; i < g.OpEnd(p); i++ {
		if ev := g.Ev(graph.Pos{T: p.T, I: i}); ev.Kind == graph.Read && later(ev.RF) {
			return true
		}
	}
	return false
}

// dryReads returns the writes the channel operation o would read with
// option opt, without adding its events.
func (e *Engine) dryReads(f *frame, o *cop, opt option) []graph.Pos {
	b := e.newBuilder(f, o, opt)
	b.dry = true
	e.buildWith(b)
	out := make([]graph.Pos, len(b.done))
	for i, r := range b.done {
		out[i] = r.rf
	}
	return out
}

// readsFrom returns the read of the operation whose first event is at lead
// that reads w.
func readsFrom(g *graph.Graph, lead, w graph.Pos) (graph.Pos, bool) {
	for i := lead.I; i < g.OpEnd(lead); i++ {
		p := graph.Pos{T: lead.T, I: i}
		if ev := g.Ev(p); ev.Kind == graph.Read && ev.RF == w {
			return p, true
		}
	}
	return graph.Pos{}, false
}

// forceChan makes, when no goroutine can move, the alternatives of
// goroutine t's blocked channel operation l that let it go before the
// operations it waits behind: taking an offer another operation took (a
// steal), or a buffered value or slot another receive or send took. They
// hang on a placeholder event, which only an alternative replaces.
func (e *Engine) forceChan(f *frame, t int32, l event.Label) {
	g := f.g
	o := newCop(t, l, graph.Pos{T: t, I: int32(len(g.Threads[t].Events))})
	base, _ := baseView(g, t)
	var opts []option
	for _, opt := range e.options(view{g: g}, o, true, base, nil) {
		if !opt.plain() {
			opts = append(opts, opt)
		}
	}
	if len(opts) == 0 {
		return
	}
	p := g.Add(t, graph.Event{Lab: l, Kind: graph.Choice, Loc: -1, Outcome: -1, AddedMax: true, Revisitable: true, Origin: last(g)}, false)
	for _, opt := range opts {
		f.items = append(f.items, optionItem(p, opt))
	}
}

// observation returns what the channel operation whose first event is at
// lead observed, as package class names it, and false for an offer. The
// graph holds the whole operation: building it again only finds its events.
func (e *Engine) observation(f *frame, lead graph.Pos, name func(graph.Pos) class.Event) (class.Observation, bool) {
	g := f.g
	o := newCop(lead.T, g.Ev(lead).Lab, lead)
	res, _ := e.build(f, o, e.outcomeOf(g, o))
	if res.Wait {
		return class.Observation{}, false
	}
	obs := class.Observation{Case: res.Case, Partner: class.None, Index: int32(res.Obs.Index), Counts: res.Obs.Counts}
	if res.Obs.Partner != chans.NoToken {
		obs.Partner = name(posOf(res.Obs.Partner))
	}
	return obs, true
}

// chanMaximal is the maximal-extension condition for the choice event at p
// of a channel operation, when a revisit by w keeps the events for which
// kept returns true: the operation took the default outcome of the graph
// those events and the events added before it make (w aside, added after
// it), so that re-adding it after the revisit takes the same. deleted says
// that the revisit deletes the operation rather than revisiting it: a
// goroutine waiting where a revisit left it, and an operation a repair
// placed, are then held to what re-adding them gives (no outcome, the first
// outcome), since the route where they stood so reaches the same graph.
func (e *Engine) chanMaximal(g *graph.Graph, p, w graph.Pos, kept func(graph.Pos) bool, deleted bool) bool {
	ev := g.Ev(p)
	o := newCop(p.T, ev.Lab, p)
	if !e.hasChoice(g, o) || ev.Outcome == forcedMark || ev.Outcome == blockedMark && !deleted {
		return true // an operation with one outcome, or none where it stands
	}
	var buf [4]option
	opts := e.options(keptView(g, w, kept, ev.Stamp), o, false, nil, buf[:0])
	if ev.Outcome == blockedMark {
		// Not when its first outcome there takes another goroutine's
		// open offer: re-added, it takes that offer, and the route
		// where it stood having taken it does not always reach that
		// graph (waitThenOpenOffer in package chanprog).
		return len(opts) == 0 || opts[0].out.With >= 0
	}
	out := chans.Decode(ev.Outcome, ev.With)
	if ev.Moved && ev.Repaired && !deleted {
		// A repair placed it, with the first outcome that reads the
		// write in its RF (see backwardChoice): it still stands where it
		// was placed, after what it read then, while the kept events
		// leave that outcome possible. Else the kept write that took it
		// away (room in a full channel) revisits it, and reaches this
		// graph (repairedDefaultThenClose in package chanprog).
		//
		// But not when a kept write added after it makes another outcome
		// the first there: that write's revisit of it, where the repair
		// left it, gives it that outcome, and w's revisit of that graph
		// reaches this one (twoValuesThenClose in package chanprog).
		return ev.AddedMax && hasOutcome(opts, out) && (opts[0].out == out || !e.actedSince(g, o, opts[0], ev.Stamp, w, kept))
	}
	return len(opts) > 0 && opts[0].out == out
}

// readsOp reports whether a read of the operation whose first event is at
// lead reads a write of the operation of w.
func readsOp(g *graph.Graph, lead, w graph.Pos) bool {
	for i := lead.I; i < g.OpEnd(lead); i++ {
		p := graph.Pos{T: lead.T, I: i}
		if ev := g.Ev(p); ev.Kind == graph.Read && sameOp(g, ev.RF, w) {
			return true
		}
	}
	return false
}

// shadowed reports whether the revisit by w of the channel operation whose
// choice event is at p, which a revisit left waiting after where it first
// stood (its Origin), reaches a graph that w's revisit of it where it first
// stood reaches too: every event added between the two places is in w's
// prefix, so that both revisits keep the same events, and it had an
// outcome there on them, so that it stood there maximal.
func (e *Engine) shadowed(g *graph.Graph, p, w graph.Pos) bool {
	ev := g.Ev(p)
	if ev.Outcome != blockedMark || ev.Origin.IsInit() || !g.Has(ev.Origin) {
		return false
	}
	s0 := g.Ev(ev.Origin).Stamp + 1
	if s0 >= ev.Stamp {
		return false
	}
	wv := g.Ev(opLast(g, w)).View
	inW := func(q graph.Pos) bool { return graph.InView(wv, q) }
	for st := s0; st < ev.Stamp; st++ {
		if !inW(g.Order[st]) {
			return false
		}
	}
	kept := keptView(g, w, inW, s0)
	before := view{g: g, in: func(q graph.Pos) bool { return g.Ev(q).Stamp < s0 }}
	o := newCop(p.T, ev.Lab, p)
	var buf0, buf1 [4]option
	now := e.options(kept, o, false, nil, buf0[:0])
	then := e.options(before, o, false, nil, buf1[:0])
	if len(now) == 0 || len(then) == 0 || now[0].out != then[0].out {
		return false
	}
	// It stood there maximal only if what it read there is still the
	// latest on the kept events: no kept write added since acts on what
	// that outcome reads.
	for _, q := range g.Order[s0:] {
		if qe := g.Ev(q); qe.Kind == graph.Write && kept.has(q) && e.acts(g, o, then[0], qe.Loc) {
			return false
		}
	}
	return true
}

// keptView is the graph on which an operation standing at stamp st is
// judged when a revisit by w keeps the events for which kept returns true:
// those and the events added before it, w's operation aside (added after
// it).
func keptView(g *graph.Graph, w graph.Pos, kept func(graph.Pos) bool, st int32) view {
	return view{g: g, in: func(q graph.Pos) bool { return !sameOp(g, q, w) && (kept(q) || g.Ev(q).Stamp < st) }}
}

// stray reports whether a select or wait that revisits placed after where
// it first stood (its Origin) stands after an event added since that it
// does not see. Its outcome needs no such event before it: an earlier
// revisit left the event there, and the graph where the event comes after
// it, reached by revisiting it where it stood before that revisit, is the
// one counted. The execution is redundant; its alternatives are not (see
// the package comment of channels.go).
func stray(g *graph.Graph) bool {
	for _, p := range g.Choices {
		ev := g.Ev(p)
		if !ev.Moved || ev.Outcome < 0 || !ev.Lab.Kind.Chan() || ev.Origin.IsInit() || !g.Has(ev.Origin) {
			continue
		}
		v := g.Ev(opLast(g, p)).View
		for st := g.Ev(ev.Origin).Stamp + 1; st < ev.Stamp; st++ {
			if q := g.Order[st]; !graph.InView(v, q) {
				return true
			}
		}
	}
	return false
}

// actedSince reports whether a write added after stamp st, which kept
// returns true for, outside w's operation, acts on the outcome opt of o.
func (e *Engine) actedSince(g *graph.Graph, o *cop, opt option, st int32, w graph.Pos, kept func(graph.Pos) bool) bool {
	for _, q := range g.Order[st+1:] {
		if qe := g.Ev(q); qe.Kind == graph.Write && kept(q) && !sameOp(g, q, w) && e.acts(g, o, opt, qe.Loc) {
			return true
		}
	}
	return false
}
