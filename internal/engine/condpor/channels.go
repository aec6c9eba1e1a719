package condpor

import (
	"fmt"
	"slices"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
)

// Channels in the graph.
//
// The semantics is package chans's: a blocking operation with a case on an
// unbuffered channel first makes an offer, then waits; a receive (or a
// select that never waits) takes an offer; buffered channels are FIFO
// queues. The engine keeps the state of a channel in locations of its own,
// chosen so that operations that no program can tell apart in time commute:
//
//   - the closed flag: written by the make (open) and by a close; read by
//     the operations whose outcome depends on it (a rendezvous and a
//     buffered send read "open", a receive that returns because of the
//     close reads the close, a select's default reads "open");
//   - for a buffered channel, two counters: sends and receives. A send
//     updates the first (its count is its place in the channel), a receive
//     the second; the k-th receive reads the write of the k-th send (a
//     forced read: its value and happens-before edge), and the k-th send
//     of a channel of capacity C reads the write of the (k-C)-th receive.
//     A send and a receive of different values thus commute;
//   - an offer is a location of its own, written by the offer ("open") and
//     updated once by whoever ends it: the operation that takes it
//     ("taken", with what the taker hands the waiting goroutine) or the
//     waiting goroutine that completes on its own ("withdrawn"). Offers are
//     not ordered among themselves: when a goroutine arrived is not part of
//     an execution.
//
// A select and the wait of a blocking operation start with a choice event
// that holds their outcome (chans.Outcome: the case, and the partner whose
// offer they take); the reads and writes that outcome implies follow it.
// The default outcome is the first of options: the handed outcome of a
// taken wait; else a ready case (a buffered value or room, a close); else a
// select's default; else the offer added last, as a read reads the latest
// write. The other outcomes, taking an offer another operation took before
// (a steal, whose conflict the backward revisits of its write repair), and
// reading a channel open that a close was already added for, are
// alternatives. An offer added later revisits the operations that could have
// taken it. A default reads the counters of its buffered channels at one
// point in time at which none is ready: per channel the latest that
// agrees with the others, whatever the order of the cases (defaultPoints),
// the older ones being alternatives of its reads.
//
// What is revisited, beyond the reads of TruSt: a write that could make a
// case of an earlier select or wait ready (an offer, a counter update, a
// close) revisits its choice event, which takes that case anew after it
// (choiceRevisits, backwardChoice); a goroutine a revisit left waiting
// (blockedMark, no outcome where it stands) is revisited by the write that
// takes its offer (handRevisit). An outcome that reads an older write of
// a counter or an offer than another update read (a steal, a wait that
// completes before its offer was taken, a buffered operation that goes
// before another, a send before the close it would panic on) makes two
// updates read one write: that graph is not an execution, and only the
// revisits of its conflicting writes, which order the two, are pushed
// (conflict).
//
// Why each class once: a choice event is maximal when its outcome is the
// first of options on the events added before it and those the revisit
// keeps (chanMaximal), and a choice that was itself revisited by a write
// the revisit deletes is not (revisited), as TruSt requires of reads. A
// select or a wait that a write w revisits is placed after w's prefix in
// the order of addition, not where it was: it reads several locations,
// and a later revisit of it by a write of another one must keep what it
// reads now, which TruSt's order (made for reads of one location) would
// delete. That finds classes no single revisit reaches. Its choice event
// remembers the write that placed it (graph.Event.Moved), so that a
// revisit deleting that write still counts it as revisited, and so that a
// forward alternative of one of its reads whose outcome no longer reads
// that write's operation is dropped: it is taken where the operation stood
// before (completeChan). One that a repair placed (graph.Event.Repaired)
// keeps its outcome maximal while the kept events leave it possible, and a
// select that a repair leaves with nothing to take waits after the
// repairing write, as a wait does, rather than being added again later.
//
// Moving breaks what TruSt's uniqueness rests on, one place in the order
// of addition per event, so the engine keeps where each choice event first
// stood (graph.Event.Origin) and judges a moved operation against that
// place as well as the one it has:
//
//   - An execution in which a moved operation stands after an event added
//     since its first place that it does not see (through what it reads)
//     is redundant: the moves that left that event before it are a route
//     to its outcome, but the graph with that event after it is the one
//     counted, and it is explored too (stray; movedThenUnread in package
//     chanprog). The execution is still run: its revisits may make the
//     operation read that event (movedThenReadAgain).
//   - A goroutine that a revisit left waiting (blockedMark) is revisited
//     by a write w only if w's revisit of it where it first stood does not
//     give the same graph: it does when every event added between the two
//     places is in w's prefix and the operation had there, on the events
//     kept, the outcome it had when first added, unchanged by any kept
//     write since (shadowed; stolenThenRefilled in package chanprog).
//   - A revisit may delete a waiting goroutine only if it has no outcome
//     on the events kept but taking another goroutine's open offer, and
//     an operation a repair placed only if its outcome is the first
//     there: re-adding either gives that, and the route where it stood so
//     is counted (chanMaximal; repairedThenDeleted, waitThenOpenOffer).
//
// Ten pairs of routes reach a waiting operation's outcome twice, and one
// of each pair is dropped: the revisit of a goroutine waiting after a
// write w1, by a write that does not see w1, with an outcome that reads
// nothing of w1's operation, which the write's revisit of it where it
// stood before w1's also gives (backwardChoice); the hand of a goroutine
// that a revisit left waiting, by a taker whose prefix lets it go on the
// location it waits after, which the revisit of it by the write that lets
// it go, the taker's steal of its withdrawn offer and the steal's repair
// also give (readyAgain); the revisit of a wait that a steal's repair left
// waiting (graph.Event.Repaired) by a write that makes its case ready on
// its own, which that write's revisit of the wait that had taken the
// stolen thing also gives (stolenFrom); the second revisit of an
// operation that a first revisit woke, which the write's revisit of the
// waiting operation also gives (wokenElsewhere; and in revisits, when the
// write is a count update that sees the first revisit's write and its
// revisit moves the operation because it reads what the write wrote); the
// revisit of an
// operation that a revisit left waiting by a write that sees that
// revisit's write, which the write's revisit of the operation where it
// stood before also gives (lingering); the revisit of an operation that a
// repair left waiting although it could go there, by a count update that
// does not see the repairing write, which the update's revisit of the
// operation where it stood before the repair also gives, the repairing
// write then revisiting it in the other order (idleAfterRepair); of
// the outcomes that one write's revisit of a select pushes for the cases
// of the channel it wrote, all those not possible after it but the first,
// which would wait there as the first does (waitsEarlier); the
// outcomes of a repair of a goroutine that waited until a hand that read
// another write of the repairing operation, which that write's revisit of
// it where it waited also gives (handOrStealBack in this package's tests);
// the revisit of an operation that a repair placed with an outcome other
// than the first there, when a kept write added after it made the first
// possible, which that write's revisit of it where the repair left it,
// giving it the first outcome, followed by the same revisit, also gives
// (chanMaximal); and of two writes that do not see each other, whose
// revisits each leave a goroutine that waited already waiting after them
// and then give it an outcome reading both, the order whose last revisit
// is by the goroutine with the smaller id (eitherOrder).

// chanLoc reports whether loc holds the state of a channel rather than
// memory of the program.
func chanLoc(g *graph.Graph, loc int32) bool {
	switch g.Locs[loc].Kind {
	case event.ChanClosed, event.ChanCount, event.ChanOffer:
		return true
	}
	return false
}

// token names the channel operation whose first event is at p; a made
// channel's ID is the token of its make.
func token(p graph.Pos) chans.Token { return chans.Token(int64(p.T)<<32 | int64(uint32(p.I))) }

// posOf is the inverse of token.
func posOf(tok chans.Token) graph.Pos { return graph.Pos{T: int32(tok >> 32), I: int32(uint32(tok))} }

// chanInfo is what a channel's make writes to its closed flag: the
// locations of the channel's state.
type chanInfo struct {
	cl, t, h int32 // closed flag, sends, receives (t and h only when buffered)
	cap      int
}

// The values of an offer's location (Value.N).
const (
	offerOpen = iota + 1
	offerTaken
	offerWithdrawn
)

// closedMark is the value of a closed channel's flag (Value.N).
const closedMark = 1

// takenBy is what the operation that took an offer hands the waiting
// goroutine: its outcome (its case, the taker and the taker's case) and,
// for a receive case, the value sent.
type takenBy struct {
	out chans.Outcome
	v   event.Value
}

// info returns the locations of channel id, or nil for the nil channel.
func (e *Engine) info(g *graph.Graph, id chans.ID) *chanInfo {
	if id == chans.Nil {
		return nil
	}
	p := posOf(chans.Token(id))
	if !g.Has(p) {
		return nil
	}
	ci, _ := g.Ev(p).Val.P.(*chanInfo)
	return ci
}

// cop is a channel operation of goroutine t being built, replayed or
// examined; its first event is at lead, in the graph or to come.
type cop struct {
	t    int32
	lab  event.Label
	op   chans.Op
	lead graph.Pos
}

func newCop(t int32, lab event.Label, lead graph.Pos) *cop {
	return &cop{t: t, lab: lab, lead: lead, op: chans.OpOf(&lab, t, token(lead))}
}

// offers reports whether o is the first step of a blocking operation with
// a case on an unbuffered channel: an offer.
func (e *Engine) offers(g *graph.Graph, o *cop) bool {
	if o.lab.Kind == event.ChanWait || !o.op.Blocking() {
		return false
	}
	for _, k := range o.op.Cases {
		if ci := e.info(g, k.Chan); ci != nil && ci.cap == 0 {
			return true
		}
	}
	return false
}

// hasChoice reports whether o starts with a choice event holding its
// outcome: a wait, and a select that does not offer.
func (e *Engine) hasChoice(g *graph.Graph, o *cop) bool {
	switch o.lab.Kind {
	case event.ChanWait:
		return true
	case event.Select:
		return !e.offers(g, o)
	}
	return false
}

// ownOffer returns the offer of the wait o: the event before it.
func ownOffer(o *cop) graph.Pos { return graph.Pos{T: o.t, I: o.lead.I - 1} }

// isOffer reports whether the event at p is an offer.
func isOffer(g *graph.Graph, p graph.Pos) bool {
	ev := g.Ev(p)
	return ev.Kind == graph.Write && !ev.RMW && g.Locs[ev.Loc].Kind == event.ChanOffer
}

// offerCases returns the cases of the offer at p.
func offerCases(g *graph.Graph, p graph.Pos) []chans.Case {
	lab := g.Ev(p).Lab
	return chans.OpOf(&lab, p.T, chans.NoToken).Cases
}

// closed reports whether the write w of a closed flag closed it.
func closed(g *graph.Graph, w graph.Pos) bool { return g.Value(w).N == closedMark }

// countOf is the count a write w of a counter holds.
func countOf(g *graph.Graph, w graph.Pos) int { return int(g.Value(w).N) }

// view is the state of the channels as the events for which in returns true
// (all when nil) show it: what an operation placed after them sees.
type view struct {
	g  *graph.Graph
	in func(graph.Pos) bool
}

func (v view) has(p graph.Pos) bool { return v.in == nil || v.in(p) }

// last returns the coherence-latest write of loc in v.
func (v view) last(loc int32) graph.Pos {
	co := v.g.Locs[loc].Co
	for i := len(co) - 1; i >= 0; i-- {
		if v.has(co[i]) {
			return co[i]
		}
	}
	return graph.Init
}

func (v view) closed(ci *chanInfo) bool              { return closed(v.g, v.last(ci.cl)) }
func (v view) count(loc int32) int                   { return countOf(v.g, v.last(loc)) }
func (v view) open(offer graph.Pos) bool             { return v.last(v.g.Ev(offer).Loc) == offer }
func (v view) ready(ci *chanInfo, k chans.Case) bool { return v.closed(ci) || v.roomy(ci, k) }

// roomy reports whether case k's buffered channel has room for a send, or
// a value for a receive.
func (v view) roomy(ci *chanInfo, k chans.Case) bool {
	switch {
	case ci.cap == 0:
		return false
	case k.Send:
		return v.count(ci.t)-v.count(ci.h) < ci.cap
	}
	return v.count(ci.t) > v.count(ci.h)
}

// eachOffer calls f with the offer of every goroutine but t that waits in
// one, in v; with all, with every offer in v.
func (v view) eachOffer(t int32, all bool, f func(graph.Pos)) {
	for u := range v.g.Threads {
		if int32(u) == t {
			continue
		}
		evs := v.g.Threads[u].Events
		last := true
		for i := len(evs) - 1; i >= 0 && (last || all); i-- {
			p := graph.Pos{T: int32(u), I: int32(i)}
			if !v.has(p) || placeholder(&evs[i]) {
				continue
			}
			if isOffer(v.g, p) {
				f(p)
			}
			last = false
		}
	}
}

// option is an outcome of a channel operation with the reads it implies:
// the offer a rendezvous takes, whether it takes it from the operation that
// took it before (steal) and reads its channels open before a close that
// is already there (beforeClose); for a wait, whether it completes on its
// own although its offer was taken (stealBack).
type option struct {
	out         chans.Outcome
	offer       graph.Pos // Init when the outcome takes no offer
	steal       bool
	beforeClose bool
	stealBack   bool
	// main, when hasMain, is the write the update of a buffered case reads
	// instead of the latest: the place in the channel of a blocked
	// operation that goes before another.
	main    graph.Pos
	hasMain bool
}

// plain reports whether opt reads the latest writes everywhere.
func (opt option) plain() bool {
	return !opt.steal && !opt.beforeClose && !opt.stealBack && !opt.hasMain
}

// alone is the option that takes case c without a partner.
func alone(c int32) option { return option{out: chans.Alone(c), offer: graph.Init} }

// options appends to dst the outcomes the channel operation o can take in
// v, the default first (see the package comment of this file). With
// variants, it also appends those that read older writes: steals, reads of
// a channel open before its close, a wait's completion on its own before
// its offer was taken; base is then the porf view the operation starts
// from, which such a read must not see past.
func (e *Engine) options(v view, o *cop, variants bool, base []int32, dst []option) []option {
	asOpen := false
	before := v // the state a wait that completes on its own sees
	if o.lab.Kind == event.ChanWait {
		self := ownOffer(o)
		if w := v.last(v.g.Ev(self).Loc); w != self {
			tb := v.g.Value(w).P.(*takenBy)
			dst = append(dst, option{out: tb.out, offer: graph.Init})
			if !variants || !e.stealable(v.g, self, base) {
				return dst
			}
			asOpen = true
			// It completes before the update that took its offer, so
			// before all that follows that update.
			if taker, ok := opPart(v.g, w, graph.Read, v.g.Ev(self).Loc); ok {
				before = view{g: v.g, in: func(p graph.Pos) bool {
					return v.has(p) && !graph.InView(v.g.Ev(p).View, taker)
				}}
			}
		}
	}
	blocking := o.op.Blocking()
	start := len(dst)
	ready := false
	for i, k := range o.op.Cases {
		ci := e.info(v.g, k.Chan)
		if ci != nil && before.ready(ci, k) {
			opt := alone(int32(i))
			if asOpen && ci.cap > 0 && !(k.Send && before.closed(ci)) {
				// Its update reads the count of that time.
				loc := ci.h
				if k.Send {
					loc = ci.t
				}
				if m := before.last(loc); m != v.last(loc) {
					opt.main, opt.hasMain = m, true
				}
			}
			dst = append(dst, opt)
			ready = true
		}
	}
	if o.op.Default && !ready {
		dst = append(dst, alone(int32(len(o.op.Cases))))
	}
	// Offers, the latest first: those open, and with variants every offer
	// an update took or withdrew that this operation may steal.
	first := len(dst)
	// Looking at the offer of every goroutine costs as much as there are
	// goroutines, at every step of each: only for a case that can take one.
	if e.takesOffers(v.g, o) {
		v.eachOffer(o.t, variants, func(p graph.Pos) {
			open := v.open(p)
			if !open && (!variants || !e.stealable(v.g, p, base)) {
				return
			}
			for i, k := range o.op.Cases {
				ci := e.info(v.g, k.Chan)
				if ci == nil || ci.cap > 0 || k.Send && blocking {
					continue
				}
				closedCh := v.closed(ci)
				if closedCh && (!variants || graph.InView(base, v.last(ci.cl))) {
					continue
				}
				for j, ok := range offerCases(v.g, p) {
					if ok.Chan == k.Chan && ok.Send != k.Send {
						dst = append(dst, option{out: chans.Outcome{Case: int32(i), With: p.T, WithCase: int32(j)}, offer: p, steal: !open, beforeClose: closedCh})
					}
				}
			}
		})
	}
	slices.SortStableFunc(dst[first:], func(a, b option) int {
		if a.plain() != b.plain() {
			if a.plain() {
				return -1
			}
			return 1
		}
		return int(v.g.Ev(b.offer).Stamp - v.g.Ev(a.offer).Stamp)
	})
	if variants {
		// A buffered case that is not ready now, or only because the
		// channel is closed, was, before the update of its counter that
		// another operation made: this one may go before it (the
		// conflict's revisits repair the other), and before the close.
		for i, k := range o.op.Cases {
			ci := e.info(v.g, k.Chan)
			if ci == nil || ci.cap == 0 {
				continue
			}
			closedCh := v.closed(ci)
			if !closedCh && v.roomy(ci, k) {
				continue
			}
			if closedCh && (!k.Send || graph.InView(base, v.last(ci.cl))) {
				// A receive from a closed channel reads the receive
				// counter already, whose other writes are alternatives;
				// a send panics without reading the send counter.
				continue
			}
			loc := ci.h
			if k.Send {
				loc = ci.t
			}
			co := v.g.Locs[loc].Co
			for j := len(co) - 2; j >= 0; j-- {
				if v.has(co[j]) && e.stealable(v.g, co[j], base) {
					opt := alone(int32(i))
					opt.main, opt.hasMain, opt.beforeClose = co[j], true, closedCh
					dst = append(dst, opt)
				}
			}
		}
		// The default, before what made a case ready.
		if o.op.Default && ready {
			dst = append(dst, option{out: chans.Alone(int32(len(o.op.Cases))), offer: graph.Init, beforeClose: true})
		}
	}
	if asOpen {
		end := len(dst)
		for i := start; i < end; i++ {
			dst[i].stealBack = true
			// Completing before its offer was taken, the wait goes before
			// what the taker did next, a close among them: a send case
			// that would panic on that close also sends before it. A
			// conflict ends the rebuild before the forward alternatives
			// of its reads, so this one is not among those.
			if c := dst[i].out.Case; dst[i].out.With < 0 && !dst[i].beforeClose && int(c) < len(o.op.Cases) {
				k := o.op.Cases[c]
				if ci := e.info(v.g, k.Chan); ci != nil && k.Send && ci.cap > 0 && v.closed(ci) && !graph.InView(base, v.last(ci.cl)) {
					alt := dst[i]
					alt.beforeClose = true
					dst = append(dst, alt)
				}
			}
		}
	}
	return dst
}

// takesOffers reports whether a case of o can take an offer: a receive, or
// a send that does not wait, on an unbuffered channel.
func (e *Engine) takesOffers(g *graph.Graph, o *cop) bool {
	blocking := o.op.Blocking()
	for _, k := range o.op.Cases {
		if ci := e.info(g, k.Chan); ci != nil && ci.cap == 0 && !(k.Send && blocking) {
			return true
		}
	}
	return false
}

// stealable reports whether the offer at p, which an update of its
// location ended (taken or withdrawn), may be read open by an operation
// with porf view base: the update can be revisited and is not seen.
func (e *Engine) stealable(g *graph.Graph, p graph.Pos, base []int32) bool {
	for _, r := range g.ReadsOf(g.Ev(p).Loc, p) {
		if writesAfter(g, r) {
			return g.Ev(r).Revisitable && !graph.InView(base, r)
		}
	}
	return false
}

// builder adds, or finds again, the events of one channel operation. A dry
// builder adds nothing: it only says what the operation would read.
type builder struct {
	e      *Engine
	f      *frame
	g      *graph.Graph
	o      *cop
	i      int32       // index of the operation's next event
	writes []pendingW  // the writes to add once every read is there
	added  []graph.Pos // new writes, whose revisits are pushed at the end
	base   []int32     // the porf view the operation starts from
	opt    option
	dry    bool
	check  bool // check that what the operation reads is consistent
	done   []rd // the reads so far
	items  int  // the frame's alternatives before the operation's
	// after is the write whose backward revisit places the operation, or
	// Init: its reads of that location read after it, and reading an
	// older write is another graph's.
	after graph.Pos
}

// rd is a read of the operation: its event and the write it reads.
type rd struct{ p, rf graph.Pos }

// pendingW is a write part of the operation, right after its read r.
type pendingW struct {
	r   rd
	val event.Value
}

// buildStatus says how building an operation went.
type buildStatus uint8

const (
	built    buildStatus = iota
	invalid              // the outcome is not possible on what the operation reads
	conflict             // it updates a write another update already updated: the revisits pushed repair it
)

// next returns the position of the operation's next event and whether it
// is already in the graph.
func (b *builder) next() (graph.Pos, bool) {
	p := graph.Pos{T: b.o.t, I: b.i}
	b.i++
	return p, b.g.Has(p)
}

// choice adds (or finds) the choice event that holds the outcome.
func (b *builder) choice(out chans.Outcome) graph.Pos {
	p, ok := b.next()
	if !ok {
		b.g.Add(p.T, graph.Event{Lab: b.o.lab, Kind: graph.Choice, Loc: -1, Alts: 1, AddedMax: true, Revisitable: true, Origin: last(b.g)}, false)
	}
	ev := b.g.Ev(p)
	if ev.Kind != graph.Choice {
		panic(fmt.Sprintf("weft: internal error: channel operation at %v has no choice event\n%v", p, b.g))
	}
	ev.Outcome, ev.With = out.Alt(), out.With1()
	return p
}

// last returns the event added last, or Init.
func last(g *graph.Graph) graph.Pos {
	if n := len(g.Order); n > 0 {
		return g.Order[n-1]
	}
	return graph.Init
}

// nop adds (or finds) the one event of an operation that touches no
// location: on the nil channel, or len of an unbuffered one.
func (b *builder) nop() {
	if _, ok := b.next(); !ok {
		b.g.Add(b.o.t, graph.Event{Lab: b.o.lab, Kind: graph.Choice, Loc: -1, Alts: 1, AddedMax: true, Revisitable: true}, false)
	}
}

// readOpts says how a read of an operation is made.
type readOpts struct {
	rmw    bool      // the operation writes the location too
	sync   bool      // its reads-from edge is part of happens-before
	forced bool      // it reads target, its only possible write
	joins  bool      // forced, and only orders the operation after target (graph.Event.Joins)
	target graph.Pos // the write it reads (with hasT), else the latest
	hasT   bool
	free   bool // other writes it may read are alternatives
	// upTo, with hasUpTo, is the latest write a free read reads by
	// default, instead of the coherence-latest: its alternatives are the
	// ones before it.
	upTo    graph.Pos
	hasUpTo bool
}

// read adds (or finds) a read of loc and returns it.
func (b *builder) read(loc int32, ro readOpts) rd {
	r := b.read1(loc, ro)
	b.done = append(b.done, r)
	return r
}

func (b *builder) read1(loc int32, ro readOpts) rd {
	p, ok := b.next()
	if ok && !b.dry {
		ev := b.g.Ev(p)
		if ev.Kind != graph.Read || ev.Loc != loc {
			panic(fmt.Sprintf("weft: internal error: channel operation at %v: event %v is %v at %d, want a read of %d\n%v", b.o.lead, p, ev.Kind, ev.Loc, loc, b.g))
		}
		return rd{p, ev.RF}
	}
	g := b.g
	rf := g.CoMax(loc)
	if ro.hasT || ro.forced || ro.joins {
		rf = ro.target
	}
	if ro.hasUpTo {
		rf = ro.upTo
	}
	if b.dry {
		return rd{graph.Init, rf}
	}
	if ro.free && !ro.hasT && !ro.forced && !ro.joins && !(!b.after.IsInit() && loc == g.Ev(b.after).Loc) {
		cands := b.e.coherent(g, loc, b.base)
		if ro.hasUpTo {
			cands = cands[:slices.Index(cands, rf)+1]
		}
		for _, w := range cands[:len(cands)-1] {
			if b.e.chanReadable(g, loc, w, ro.rmw, b.base) {
				b.f.items = append(b.f.items, item{kind: forwardRead, a: p, b: w})
			}
		}
	}
	g.Add(p.T, graph.Event{
		Lab: b.o.lab, Kind: graph.Read, RMW: ro.rmw, Cont: p != b.o.lead, Loc: loc, RF: rf,
		Forced: ro.forced || ro.joins, Joins: ro.joins, Sync: ro.sync, AddedMax: rf == g.CoMax(loc), Revisitable: true,
	}, ro.sync)
	return rd{p, rf}
}

// chanReadable reports whether a read of a channel's state with porf view
// base may read w other than by default: an update never reads a write
// another update read for good.
func (e *Engine) chanReadable(g *graph.Graph, loc int32, w graph.Pos, rmw bool, base []int32) bool {
	if !rmw {
		return true
	}
	for _, r := range g.ReadsOf(loc, w) {
		if writesAfter(g, r) && (!g.Ev(r).Revisitable || graph.InView(base, r)) {
			return false
		}
	}
	return true
}

// write records a write part of the operation, to be added after its
// reads: right after the write its read r read.
func (b *builder) write(r rd, val event.Value) {
	b.writes = append(b.writes, pendingW{r: r, val: val})
}

// finish adds (or refreshes with this run's values) the write parts, and
// reports a conflict: another update read what one of them updates.
func (b *builder) finish() buildStatus {
	g := b.g
	st := built
	if b.dry {
		return st
	}
	if b.check && g.Has(b.o.lead) && !g.Acyclic(b.o.lead) {
		// What it reads is not one point in time: the outcome is not
		// possible there (before its writes, whose conflicts with other
		// updates are for the revisits they push to repair).
		return invalid
	}
	for _, pw := range b.writes {
		loc := g.Ev(pw.r.p).Loc
		p, ok := b.next()
		if ok {
			ev := g.Ev(p)
			if ev.Kind != graph.Write || ev.Loc != loc {
				panic(fmt.Sprintf("weft: internal error: channel operation at %v: event %v is not its write of %d\n%v", b.o.lead, p, loc, g))
			}
			ev.Val, ev.Lab = pw.val, b.o.lab
			continue
		}
		w := g.Add(p.T, graph.Event{Lab: b.o.lab, Kind: graph.Write, RMW: true, Cont: true, Loc: loc, Val: pw.val, AddedMax: true, Revisitable: true}, false)
		g.InsertCo(w, pw.r.rf)
		b.added = append(b.added, w)
	}
	var conflicts []int32
	for _, pw := range b.writes {
		loc := g.Ev(pw.r.p).Loc
		for _, o := range g.ReadsOf(loc, pw.r.rf) {
			if o != pw.r.p && writesAfter(g, o) {
				st = conflict
				conflicts = append(conflicts, loc)
			}
		}
	}
	if st == conflict {
		// The graph is not an execution: only the revisits that order
		// the two updates repair it, not the alternatives of its reads.
		b.f.items = b.f.items[:b.items]
	}
	for _, w := range b.added {
		if st == conflict && !slices.Contains(conflicts, g.Ev(w).Loc) {
			continue
		}
		b.e.revisits(b.f, w)
		switch g.Locs[g.Ev(w).Loc].Kind {
		case event.ChanCount, event.ChanClosed:
			b.e.choiceRevisits(b.f, w)
		case event.ChanOffer:
			if g.Value(w).N == offerTaken {
				b.e.handRevisit(b.f, w)
			}
		}
	}
	return st
}

// build adds (or finds again, replaying) the events of the channel
// operation o with outcome opt.out, and returns its result. Reads already
// in the graph keep what they read; new ones read the latest writes, or
// those opt says.
func (e *Engine) build(f *frame, o *cop, opt option) (chans.Result, buildStatus) {
	return e.buildWith(e.newBuilder(f, o, opt))
}

// rebuild is build for an alternative or a revisit, whose reads may read
// writes that no single point in time shows: such an outcome is not
// possible.
func (e *Engine) rebuild(f *frame, o *cop, opt option) (chans.Result, buildStatus) {
	b := e.newBuilder(f, o, opt)
	b.check = true
	return e.buildWith(b)
}

// rebuildAfter is rebuild for the backward revisit by w.
func (e *Engine) rebuildAfter(f *frame, o *cop, opt option, w graph.Pos) (chans.Result, buildStatus) {
	b := e.newBuilder(f, o, opt)
	b.check, b.after = true, w
	return e.buildWith(b)
}

// newBuilder returns a builder of o with outcome opt in frame f.
func (e *Engine) newBuilder(f *frame, o *cop, opt option) *builder {
	b := &builder{e: e, f: f, g: f.g, o: o, i: o.lead.I, opt: opt, after: graph.Init}
	b.base, _ = baseView(f.g, o.t)
	return b
}

// buildWith is build with the builder b. An outcome that turns out not
// possible leaves the graph and the alternatives as they were.
func (e *Engine) buildWith(b *builder) (chans.Result, buildStatus) {
	g := b.g
	b.items = len(b.f.items)
	n := int32(len(g.Threads[b.o.t].Events))
	res, st := e.build1(b)
	if st == invalid && !b.dry {
		b.f.items = b.f.items[:b.items]
		for i := int32(len(g.Threads[b.o.t].Events)) - 1; i >= n; i-- {
			g.RemoveEvent(graph.Pos{T: b.o.t, I: i})
		}
	}
	return res, st
}

func (e *Engine) build1(b *builder) (chans.Result, buildStatus) {
	f, o, opt := b.f, b.o, b.opt
	g := f.g
	res := chans.Result{Sync: chans.NoToken, Obs: chans.Observation{Partner: chans.NoToken}}
	switch o.lab.Kind {
	case event.ChanMake:
		return e.buildMake(b), built
	case event.ChanClose:
		return e.buildClose(b)
	case event.ChanLen:
		return e.buildLen(b)
	}
	if e.offers(g, o) {
		p, ok := b.next()
		if !ok {
			loc := e.freeLoc(g)
			g.Loc(loc).Kind = event.ChanOffer
			w := g.Add(o.t, graph.Event{Lab: o.lab, Kind: graph.Write, Loc: loc, Val: event.Value{N: offerOpen}, AddedMax: true, Revisitable: true}, false)
			g.InsertCo(w, graph.Init)
			e.choiceRevisits(f, w)
		} else {
			g.Ev(p).Lab = o.lab
		}
		res.Wait = true
		return res, built
	}
	out := opt.out
	var lead graph.Pos
	switch {
	case e.hasChoice(g, o) && b.dry:
		b.i++
	case e.hasChoice(g, o):
		lead = b.choice(out)
	}
	if o.lab.Kind == event.ChanWait {
		self := ownOffer(o)
		sl := g.Ev(self).Loc
		ro := readOpts{rmw: true, sync: true, target: self, hasT: true}
		if w := g.CoMax(sl); w != self && !opt.stealBack {
			ro = readOpts{sync: true, forced: true, target: w}
		}
		r := b.read(sl, ro)
		if w := r.rf; w != self {
			// Another operation took the offer: the wait takes what it
			// was handed.
			tb := g.Value(w).P.(*takenBy)
			if !b.dry {
				g.Ev(r.p).RMW, g.Ev(r.p).Forced = false, true
				ev := g.Ev(lead)
				ev.Outcome, ev.With = tb.out.Alt(), tb.out.With1()
			}
			res.Case, res.V, res.OK = tb.out.Case, tb.v, true
			res.Sync, res.Obs.Partner = token(g.Leader(w)), token(g.Leader(w))
			return res, b.finish()
		}
		b.write(r, event.Value{N: offerWithdrawn})
	}
	if int(out.Case) == len(o.op.Cases) {
		if !e.buildDefault(b, &res) {
			return res, invalid
		}
		res.Case = out.Case
		return res, b.finish()
	}
	if out.Case < 0 || int(out.Case) >= len(o.op.Cases) {
		panic(fmt.Sprintf("weft: internal error: outcome %+v of a channel operation with %d cases", out, len(o.op.Cases)))
	}
	k := o.op.Cases[out.Case]
	ci := e.info(g, k.Chan)
	ok := true
	switch {
	case ci == nil:
		ok = false
	case out.With >= 0:
		ok = e.buildRendezvous(b, opt, ci, k, &res)
	case ci.cap == 0:
		ok = e.buildClosed(b, ci, k, &res)
	case k.Send:
		ok = e.buildSend(b, ci, k, &res)
	default:
		ok = e.buildRecv(b, ci, &res)
	}
	if !ok {
		return res, invalid
	}
	res.Case = out.Case
	return res, b.finish()
}

func (e *Engine) buildMake(b *builder) chans.Result {
	g := b.g
	res := chans.Result{Sync: chans.NoToken, Obs: chans.Observation{Partner: chans.NoToken}}
	p, ok := b.next()
	if ok {
		b.i += int32(g.OpEnd(p) - p.I - 1)
		return res
	}
	ci := &chanInfo{cap: b.o.op.Cap, t: -1, h: -1}
	ci.cl = e.freeLoc(g)
	g.Loc(ci.cl).Kind = event.ChanClosed
	w := g.Add(b.o.t, graph.Event{Lab: b.o.lab, Kind: graph.Write, Loc: ci.cl, Val: event.Value{P: ci}, AddedMax: true, Revisitable: true}, false)
	g.InsertCo(w, graph.Init)
	if ci.cap > 0 {
		for _, l := range []*int32{&ci.t, &ci.h} {
			*l = e.freeLoc(g)
			g.Loc(*l).Kind = event.ChanCount
			w := g.Add(b.o.t, graph.Event{Lab: b.o.lab, Kind: graph.Write, Cont: true, Loc: *l, AddedMax: true, Revisitable: true}, false)
			g.InsertCo(w, graph.Init)
		}
	}
	return res
}

func (e *Engine) buildClose(b *builder) (chans.Result, buildStatus) {
	g := b.g
	res := chans.Result{Sync: chans.NoToken, Obs: chans.Observation{Partner: chans.NoToken}}
	ci := e.info(g, b.o.op.Chan)
	if ci == nil {
		b.nop()
		res.Panic = "close of nil channel"
		return res, built
	}
	r := b.read(ci.cl, readOpts{rmw: true, free: true})
	if closed(g, r.rf) {
		res.Panic = "close of closed channel"
		return res, built
	}
	b.write(r, event.Value{N: closedMark})
	return res, b.finish()
}

func (e *Engine) buildLen(b *builder) (chans.Result, buildStatus) {
	g := b.g
	res := chans.Result{Sync: chans.NoToken, Obs: chans.Observation{Partner: chans.NoToken}}
	ci := e.info(g, b.o.op.Chan)
	if ci == nil || ci.cap == 0 {
		b.nop()
		return res, built
	}
	t := countOf(g, b.read(ci.t, readOpts{free: true}).rf)
	// A channel never had more receives than sends: the receives it sees
	// are at most the t first.
	co := g.Locs[ci.h].Co
	last, _ := writeCount(g, ci.h, min(t, len(co)-1))
	h := countOf(g, b.read(ci.h, readOpts{free: true, upTo: last, hasUpTo: true}).rf)
	if h > t {
		return res, invalid // not a point in time
	}
	res.N = t - h
	res.Obs.Counts = []int32{int32(t), int32(h)}
	return res, built
}

// open reads the closed flag of ci for an outcome that needs the channel
// open, and reports whether it is.
func (e *Engine) open(b *builder, ci *chanInfo, beforeClose bool) bool {
	ro := readOpts{}
	if beforeClose {
		ro = readOpts{target: b.g.Locs[ci.cl].Co[0], hasT: true}
	}
	return !closed(b.g, b.read(ci.cl, ro).rf)
}

// writeCount returns the write of counter loc that holds n.
func writeCount(g *graph.Graph, loc int32, n int) (graph.Pos, bool) {
	co := g.Locs[loc].Co
	if n < 0 || n >= len(co) {
		return graph.Pos{}, false
	}
	return co[n], true
}

// defaultCase is a channel a default reads, for its send cases or its
// receive cases.
type defaultCase struct {
	c    chans.ID
	send bool
}

// defaultPair is a point in time of a buffered channel: its send count t
// and its receive count h (hasT false when no send has that count yet).
type defaultPair struct {
	t, h graph.Pos
	hasT bool
}

// defaultPoints finds the points in time at which a default may read the
// buffered channels of its cases.
type defaultPoints struct {
	b      *builder
	closes []graph.Pos // the closes a default before them does not follow
}

// late reports whether p follows one of the closes.
func (d *defaultPoints) late(p graph.Pos) bool {
	if p.IsInit() {
		return false
	}
	v := d.b.g.Ev(p).View
	return slices.ContainsFunc(d.closes, func(c graph.Pos) bool { return graph.InView(v, c) })
}

// full returns the latest point at which ci is full that fits accepts
// (any, with fits nil).
func (d *defaultPoints) full(ci *chanInfo, fits func(defaultPair) bool) (defaultPair, bool) {
	g := d.b.g
	// The channel is full when the sends the default sees are cap more
	// than the receives: the latest send count that the receive count
	// cap fewer went with, neither seeing the next of the other (the
	// latest send may follow the receive that made room:
	// bufferedDefaultSendMissed in package chanprog).
	co := g.Locs[ci.t].Co
	for i := len(co) - 1; i >= ci.cap; i-- {
		hw, _ := writeCount(g, ci.h, i-ci.cap)
		if next, ok := writeCount(g, ci.h, i-ci.cap+1); ok && graph.InView(g.Ev(co[i]).View, next) {
			continue
		}
		if next, ok := writeCount(g, ci.t, i+1); ok && !hw.IsInit() && graph.InView(g.Ev(hw).View, next) {
			continue
		}
		if d.late(co[i]) || d.late(hw) {
			continue
		}
		if p := (defaultPair{t: co[i], h: hw, hasT: true}); fits == nil || fits(p) {
			return p, true
		}
	}
	return defaultPair{}, false
}

// empty returns the latest point at which ci is empty that fits accepts
// (any, with fits nil), or the make's.
func (d *defaultPoints) empty(ci *chanInfo, fits func(defaultPair) bool) defaultPair {
	g := d.b.g
	// The channel is empty when the receives the default sees are as
	// many as the sends: a receive whose send count then was its own
	// (and, before a close, that came before it; with no close, the make
	// is no bound: defaultBetweenSends in package chanprog).
	co := g.Locs[ci.h].Co
	cl := g.Locs[ci.cl].Co
	closing := cl[len(cl)-1]
	before := d.b.opt.beforeClose && closed(g, closing)
	pair := func(i int) defaultPair {
		t, ok := writeCount(g, ci.t, i)
		return defaultPair{t: t, h: co[i], hasT: ok}
	}
	for i := len(co) - 1; i > 0; i-- {
		next, ok := writeCount(g, ci.t, i+1)
		v := g.Ev(co[i]).View
		if (!ok || !graph.InView(v, next)) && (!before || !graph.InView(v, closing)) {
			if p := pair(i); fits == nil || fits(p) {
				return p
			}
		}
	}
	return pair(0)
}

// seesPast reports whether the write x sees a write of loc that coherence
// orders after w.
func seesPast(g *graph.Graph, x graph.Pos, loc int32, w graph.Pos) bool {
	if x.IsInit() {
		return false
	}
	co := g.Locs[loc].Co
	i := slices.Index(co, w)
	if i < 0 {
		return false
	}
	v := g.Ev(x).View
	for _, y := range co[i+1:] {
		if graph.InView(v, y) {
			return true
		}
	}
	return false
}

// pairSeesPast reports whether a write of point p sees a write of loc
// after w.
func pairSeesPast(g *graph.Graph, p defaultPair, loc int32, w graph.Pos) bool {
	return seesPast(g, p.h, loc, w) || p.hasT && seesPast(g, p.t, loc, w)
}

// agrees reports whether the default may read ci at point p after what it
// has read: neither sees past the other.
func (d *defaultPoints) agrees(p defaultPair, ci *chanInfo) bool {
	g := d.b.g
	for _, r := range d.b.done {
		if r.p.IsInit() {
			continue // a dry run: the check of the whole outcome is its caller's
		}
		loc := g.Ev(r.p).Loc
		if pairSeesPast(g, p, loc, r.rf) || seesPast(g, r.rf, ci.h, p.h) || p.hasT && seesPast(g, r.rf, ci.t, p.t) {
			return false
		}
	}
	return true
}

// seesPastLater reports whether point p sees past the latest point of a
// buffered channel of the cases later, not in done, that the default may
// read: then it reads that channel at no point p does not see past.
func (d *defaultPoints) seesPastLater(p defaultPair, later []chans.Case, done []defaultCase) bool {
	g := d.b.g
	for _, k := range later {
		ci := d.b.e.info(g, k.Chan)
		if ci == nil || ci.cap == 0 || slices.Contains(done, defaultCase{k.Chan, k.Send}) {
			continue
		}
		var m defaultPair
		if k.Send {
			var ok bool
			if m, ok = d.full(ci, nil); !ok {
				continue
			}
		} else {
			m = d.empty(ci, nil)
		}
		if pairSeesPast(g, p, ci.h, m.h) || m.hasT && pairSeesPast(g, p, ci.t, m.t) {
			return true
		}
	}
	return false
}

func (e *Engine) buildDefault(b *builder, res *chans.Result) bool {
	g := b.g
	var done []defaultCase
	var counts []int32
	d := defaultPoints{b: b}
	// Before what made a case ready, the default reads every channel of
	// the cases open: the count of a send case it reads must not follow a
	// close of one of them either (closedOrSendDefaultMissed in package
	// chanprog). A receive case's, only its own channel's close: bounded
	// by the others', it may read no state a later send revisits
	// (defaultRecvOtherClose).
	if b.opt.beforeClose {
		for _, k := range b.o.op.Cases {
			if ci := e.info(g, k.Chan); ci != nil {
				if cl := g.Locs[ci.cl].Co; closed(g, cl[len(cl)-1]) {
					d.closes = append(d.closes, cl[len(cl)-1])
				}
			}
		}
	}
	// Each channel of the cases is read once, in the order of the cases.
	for i, k := range b.o.op.Cases {
		ci := e.info(g, k.Chan)
		if ci == nil {
			continue
		}
		first := !slices.ContainsFunc(done, func(s defaultCase) bool { return s.c == k.Chan })
		if first && !e.open(b, ci, b.opt.beforeClose) {
			return false
		}
		if ci.cap == 0 {
			done = append(done, defaultCase{k.Chan, k.Send})
			continue
		}
		var t, h int
		if !slices.Contains(done, defaultCase{k.Chan, k.Send}) {
			// The point in time is the latest at which the channel is
			// not ready that neither contradicts what the default has
			// read already nor sees past the latest such point of a
			// channel it reads next: whichever the cases' order, the
			// default reads every channel at one point in time when one
			// exists (leakAfterDefault in package chanprog).
			fits := func(p defaultPair) bool {
				return d.agrees(p, ci) && !d.seesPastLater(p, b.o.op.Cases[i+1:], append(done, defaultCase{k.Chan, k.Send}))
			}
			if k.Send {
				p, ok := d.full(ci, fits)
				ro := readOpts{free: true}
				if ok && p.t != g.CoMax(ci.t) && slices.Contains(e.coherent(g, ci.t, b.base), p.t) {
					ro.upTo, ro.hasUpTo = p.t, true
				}
				t = countOf(g, b.read(ci.t, ro).rf)
				w, ok := writeCount(g, ci.h, t-ci.cap)
				if !ok {
					return false // room
				}
				h = countOf(g, b.read(ci.h, readOpts{forced: true, target: w}).rf)
			} else {
				p := d.empty(ci, fits)
				ro := readOpts{free: true}
				if slices.Contains(e.coherent(g, ci.h, b.base), p.h) {
					ro.upTo, ro.hasUpTo = p.h, true
				}
				h = countOf(g, b.read(ci.h, ro).rf)
				w, _ := writeCount(g, ci.t, h)
				t = countOf(g, b.read(ci.t, readOpts{forced: true, target: w}).rf)
			}
			done = append(done, defaultCase{k.Chan, k.Send})
		} else {
			t, h = b.counts(ci, k.Send)
		}
		counts = append(counts, int32(t), int32(h))
	}
	res.Obs.Counts = counts
	return true
}

// counts returns the counts an earlier case of the same select on the same
// buffered channel, in the same direction, read.
func (b *builder) counts(ci *chanInfo, send bool) (t, h int) {
	g := b.g
	for _, r := range b.done {
		switch g.Ev(r.rf).Loc {
		case ci.t:
			t = countOf(g, r.rf)
		case ci.h:
			h = countOf(g, r.rf)
		}
	}
	return t, h
}

func (e *Engine) buildRendezvous(b *builder, opt option, ci *chanInfo, k chans.Case, res *chans.Result) bool {
	g := b.g
	offer := opt.offer
	existed := !b.dry && g.Has(graph.Pos{T: b.o.t, I: b.i})
	if existed {
		// Replayed or rebuilt: the offer is the one the operation read,
		// if it still reads one.
		offer = g.Ev(graph.Pos{T: b.o.t, I: b.i}).RF
	}
	if offer.IsInit() || !g.Has(offer) || !isOffer(g, offer) {
		return false
	}
	loc := g.Ev(offer).Loc
	if !existed && !opt.steal && g.CoMax(loc) != offer {
		return false // taken or withdrawn: only a steal reads it open
	}
	r := b.read(loc, readOpts{rmw: true, sync: true, target: offer, hasT: true})
	if !e.open(b, ci, opt.beforeClose) {
		return false
	}
	cases := offerCases(g, offer)
	wc := opt.out.WithCase
	if int(wc) >= len(cases) || cases[wc].Chan != k.Chan || cases[wc].Send == k.Send {
		return false
	}
	tb := &takenBy{out: chans.Outcome{Case: wc, With: b.o.t, WithCase: opt.out.Case}}
	if k.Send {
		tb.v = k.V
	} else {
		res.V, res.OK = cases[wc].V, true
	}
	res.Sync, res.Obs.Partner = token(offer), token(offer)
	b.write(r, event.Value{N: offerTaken, P: tb})
	return true
}

func (e *Engine) buildClosed(b *builder, ci *chanInfo, k chans.Case, res *chans.Result) bool {
	r := b.read(ci.cl, readOpts{sync: !k.Send})
	if !closed(b.g, r.rf) {
		return false
	}
	if k.Send {
		res.Panic = "send on closed channel"
	} else {
		res.Sync = token(r.rf)
	}
	return true
}

func (e *Engine) buildSend(b *builder, ci *chanInfo, k chans.Case, res *chans.Result) bool {
	g := b.g
	ro := readOpts{free: true}
	if b.opt.beforeClose {
		ro = readOpts{target: g.Locs[ci.cl].Co[0], hasT: true}
	}
	if r := b.read(ci.cl, ro); closed(g, r.rf) {
		res.Panic = "send on closed channel"
		return true
	}
	tr := b.read(ci.t, readOpts{rmw: true, free: true, target: b.mainTarget(), hasT: b.hasMain()})
	n := countOf(g, tr.rf)
	if n >= ci.cap {
		w, ok := writeCount(g, ci.h, n-ci.cap+1)
		if !ok {
			return false // full
		}
		b.read(ci.h, readOpts{sync: true, joins: true, target: w}) // the receive that made room
		res.Sync = token(g.Leader(w))
	}
	res.Obs.Index = n
	b.write(tr, event.Value{N: uint64(n + 1), P: k.V.P})
	return true
}

func (e *Engine) buildRecv(b *builder, ci *chanInfo, res *chans.Result) bool {
	g := b.g
	hr := b.read(ci.h, readOpts{rmw: true, free: true, target: b.mainTarget(), hasT: b.hasMain()})
	n := countOf(g, hr.rf)
	if w, ok := writeCount(g, ci.t, n+1); ok {
		b.read(ci.t, readOpts{sync: true, joins: true, target: w}) // the send of the value
		res.V, res.OK = event.Value{P: g.Value(w).P}, true
		res.Sync, res.Obs.Partner, res.Obs.Index = token(g.Leader(w)), token(g.Leader(w)), n
		b.write(hr, event.Value{N: uint64(n + 1)})
		return true
	}
	// Empty: the receive returns only because the channel is closed.
	w, _ := writeCount(g, ci.t, n)
	b.read(ci.t, readOpts{target: w, hasT: true})
	r := b.read(ci.cl, readOpts{sync: true})
	if !closed(g, r.rf) {
		return false
	}
	res.Sync = token(r.rf)
	return true
}

// mainTarget and hasMain give the write the operation's main read must read
// when its option says so.
func (b *builder) mainTarget() graph.Pos { return b.opt.main }
func (b *builder) hasMain() bool         { return b.opt.hasMain }
