package condpor

import (
	"fmt"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/class"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
)

// How the exploration adds, replays, revisits and forces channel
// operations (see channels.go for the model).

// placeholder reports whether ev stands for a channel operation that
// blocks at the end of an execution (see forceChan): it is never part of
// an execution.
func placeholder(ev *graph.Event) bool {
	return ev.Kind == graph.Choice && ev.Outcome < 0 && isChan(ev.Lab.Kind)
}

// chanEnabled reports whether goroutine t can perform its channel
// operation l now.
func (e *Engine) chanEnabled(g *graph.Graph, t int32, l *event.Label) bool {
	switch l.Kind {
	case event.ChanMake, event.ChanClose, event.ChanLen:
		return true
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
		if debugf != nil {
			debugf("add %v of g%d: options %+v", l.Kind, t, opts)
		}
		for _, alt := range opts[1:] {
			f.items = append(f.items, optionItem(o.lead, alt))
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
	lab := g.Ev(lead).Lab
	g.RemoveEvent(lead)
	o := newCop(lead.T, lab, lead)
	if _, st := e.build(f, o, optionOf(it)); st != built {
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
	return option{out: chans.Decode(ev.Outcome, ev.With), offer: graph.Init}
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
	if ev.Kind == graph.Choice && isChan(ev.Lab.Kind) {
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
	_, st := e.build(f, o, e.outcomeOf(g, o))
	if debugf != nil {
		debugf("complete %v (lead %v): %d\n%v", r, lead, st, g)
	}
	if st != built {
		return false
	}
	return g.Acyclic(lead)
}

// backwardChan completes, in the child frame's graph, the channel operation
// of the read r that w revisits. An operation that cannot be performed on
// what it now reads loses its events: its goroutine waits (or, for a select
// that never waits, takes another outcome later).
func (e *Engine) backwardChan(child *frame, r, w graph.Pos) bool {
	c := child.g
	lead := c.Leader(r)
	o := newCop(r.T, c.Ev(lead).Lab, lead)
	_, st := e.build(child, o, e.outcomeOf(c, o))
	switch st {
	case conflict:
		return false
	case invalid:
		// That graph is the child only if the operation's other events
		// took their defaults (its outcome, its other reads); else the
		// branch where they did reaches it.
		child.items = child.items[:0]
		for i := c.OpEnd(lead) - 1; i >= lead.I; i-- {
			p := graph.Pos{T: r.T, I: i}
			if ev := c.Ev(p); p != r && (ev.Kind == graph.Read || ev.Kind == graph.Choice) && !ev.AddedMax && !ev.Forced {
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
// rendezvous; the value a send w put in a buffer, for a receive case; the
// slot a receive w freed, for a send case; and the close w, for a case of
// the closed channel. Reading the other writes such a case reads, those
// outcomes are the revisits of other writes (see backwardChoice).
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
	for _, p := range g.Order {
		ev := g.Ev(p)
		if ev.Kind != graph.Choice || !isChan(ev.Lab.Kind) || placeholder(ev) || p.T == w.T ||
			graph.InView(wv, p) || !ev.Revisitable || !ev.AddedMax {
			continue
		}
		o := newCop(p.T, ev.Lab, p)
		if !e.hasChoice(g, o) {
			continue
		}
		if o.lab.Kind == event.ChanWait {
			self := ownOffer(o)
			if r, ok := opRead(g, p, g.Ev(self).Loc); !ok || g.Ev(r).RF != self {
				continue // handed its outcome: no choice to revisit
			}
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
			case kind == event.ChanClosed && loc == ci.cl,
				kind == event.ChanCount && (loc == ci.t && !k.Send || loc == ci.h && k.Send):
				if cur != chans.Alone(int32(i)) {
					outs = append(outs, chans.Alone(int32(i)))
				}
			}
			for _, out := range outs {
				if e.maximal(g, p, w) {
					f.items = append(f.items, item{kind: backward, a: p, b: w, alt: out.Alt(), with: out.With1()})
				}
			}
		}
	}
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

// backwardChoice completes, in the child frame's graph, the revisit of the
// channel operation whose choice event is at r by the write w (see
// choiceRevisits): it now takes the case of the item, which must read w.
func (e *Engine) backwardChoice(child *frame, it item) bool {
	c := child.g
	r, w := it.a, it.b
	o := newCop(r.T, c.Ev(r).Lab, r)
	out := chans.Decode(it.alt, it.with)
	var buf [4]option
	opts := e.options(view{g: c}, o, false, nil, buf[:0])
	opt := alone(out.Case)
	opt.out = out
	if out.With >= 0 {
		opt.offer = w
	}
	if _, st := e.build(child, o, opt); st != built {
		return false
	}
	if _, ok := readsFrom(c, r, w); !ok {
		return false // the case reads another write: that write's revisit
	}
	c.Ev(r).AddedMax = len(opts) > 0 && opts[0].out == out
	return c.Acyclic(w)
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
	p := g.Add(t, graph.Event{Lab: l, Kind: graph.Choice, Loc: -1, Outcome: -1, AddedMax: true, Revisitable: true}, false)
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
// it), so that re-adding it after the revisit takes the same.
func (e *Engine) chanMaximal(g *graph.Graph, p, w graph.Pos, kept func(graph.Pos) bool) bool {
	ev := g.Ev(p)
	st := ev.Stamp
	in := func(q graph.Pos) bool {
		return q != w && (kept(q) || g.Ev(q).Stamp < st)
	}
	o := newCop(p.T, ev.Lab, p)
	if !e.hasChoice(g, o) {
		return true // an operation on no location: it has one outcome
	}
	var buf [4]option
	opts := e.options(view{g: g, in: in}, o, false, nil, buf[:0])
	return len(opts) > 0 && opts[0].out == chans.Decode(ev.Outcome, ev.With)
}
