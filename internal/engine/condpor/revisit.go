package condpor

import (
	"fmt"
	"slices"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// revisits pushes the backward revisits that the write w, just placed in
// coherence, allows: every read of its location that is not porf-before w,
// was added the default way, may still be revisited, and whose deleted
// events were all added the default way.
func (e *Engine) revisits(f *frame, w graph.Pos) {
	g := f.g
	we := g.Ev(w)
	loc := we.Loc
	limit, rivals := conflictLimit(g, w)
	// The revisiting operation is kept whole: the view of its last event.
	view := g.Ev(opLast(g, w)).View
	coMax := g.CoMax(loc) == w
	// Those porf-before w, most of a long execution's, are not looked at.
	reads := g.ReadsNotIn(loc, view, nil)
	var chosen []graph.Pos // the selects and waits revisited
	for i := len(reads) - 1; i >= 0; i-- {
		if i&63 == 0 && e.late != nil && e.late.Load() {
			// No execution follows: what the revisits prepare is moot.
			// Begin may be the one weighing them, and pop every item
			// left: the exploration ends, but not as explored.
			e.cut = true
			return
		}
		r := reads[i]
		rev := g.Ev(r)
		if !rev.Revisitable || !rev.AddedMax || rev.Forced || rev.Stamp >= limit {
			continue
		}
		if !coMax && e.seesLater(g, loc, r, w) {
			continue
		}
		if slices.ContainsFunc(rivals, func(o graph.Pos) bool { return sameOp(g, o, r) && g.Ev(o).Stamp < rev.Stamp }) {
			// Another read of r's operation conflicts too: revisiting
			// the first repairs both.
			continue
		}
		if rev.Lab.Kind.Chan() {
			if lead := g.Leader(r); g.Ev(lead).Kind == graph.Choice {
				// A select or a wait is revisited whole: it takes an
				// outcome anew after w (see backwardChoice).
				if lev := g.Ev(lead); lev.Moved && lev.Handed && g.Locs[loc].Kind == event.ChanCount && graph.InView(view, lev.RF) {
					// A revisit by a write that w, a count update, sees
					// woke it: w's revisit of it where it waited before
					// reaches the same graph (recvBetweenValues in package
					// chanprog; wokenElsewhere is the same for
					// choiceRevisits). Not an offer, whose revisit of the
					// waiting goroutine hands it what it takes, or not
					// (wokenThenLeak).
					continue
				}
				if !slices.Contains(chosen, lead) && e.maximal(g, lead, w) {
					chosen = append(chosen, lead)
					f.items = append(f.items, item{kind: backward, a: lead, b: w})
				}
				continue
			}
		}
		if e.maximal(g, r, w) {
			f.items = append(f.items, item{kind: backward, a: r, b: w})
		}
	}
}

// conflictLimit returns, when another update read the same write as a
// read part of w's operation, at any of its locations (an atomicity
// violation that this graph exists to repair), the stamp before which a
// revisit by w must start so as to delete it (else len(g.Order)), and the
// reads of those other updates.
func conflictLimit(g *graph.Graph, w graph.Pos) (limit int32, rivals []graph.Pos) {
	limit = int32(len(g.Order))
	if !g.Ev(w).RMW {
		return limit, nil
	}
	for i := g.Leader(w).I; i < g.OpEnd(w); i++ {
		wp := graph.Pos{T: w.T, I: i}
		if g.Ev(wp).Kind == graph.Write {
			limit = min(limit, conflicts(g, wp))
			rivals = rivalReads(g, wp, rivals)
		}
	}
	return limit, rivals
}

// conflicts returns the stamp of the earliest write part of another update
// that changed the location of the write part wp from the same write as wp
// did (len(g.Order) if none).
func conflicts(g *graph.Graph, wp graph.Pos) int32 {
	loc := g.Ev(wp).Loc
	limit := int32(len(g.Order))
	rp, _ := opPart(g, wp, graph.Read, loc)
	src := g.Ev(rp).RF
	for _, r := range g.ReadsOf(loc, src) {
		if r != rp && writesAfter(g, r) {
			s := g.Ev(r).Stamp
			if x, ok := opPart(g, r, graph.Write, loc); ok {
				s = g.Ev(x).Stamp
			}
			limit = min(limit, s)
		}
	}
	return limit
}

// rivalReads appends to dst the reads of other updates that read the same
// write as the update whose write part is wp.
func rivalReads(g *graph.Graph, wp graph.Pos, dst []graph.Pos) []graph.Pos {
	loc := g.Ev(wp).Loc
	rp, _ := opPart(g, wp, graph.Read, loc)
	src := g.Ev(rp).RF
	for _, r := range g.ReadsOf(loc, src) {
		if r != rp && writesAfter(g, r) {
			dst = append(dst, r)
		}
	}
	return dst
}

// seesLater reports whether the read r already sees (porf) a write that is
// coherence-after w, or a read of one: r could not read w coherently.
func (e *Engine) seesLater(g *graph.Graph, loc int32, r, w graph.Pos) bool {
	view := viewOf(g, r)
	co := g.Locs[loc].Co
	for i := g.CoIndex(loc, w) + 1; i < len(co); i++ {
		if graph.InView(view, co[i]) {
			return true
		}
		for _, rr := range g.ReadsOf(loc, co[i]) {
			if rr != r && graph.InView(view, rr) {
				return true
			}
		}
	}
	return false
}

// sameOp reports whether the events at p and q belong to one operation.
// The events of a revisiting write's operation were all added after the
// events the revisit deletes: none of them could have read them.
func sameOp(g *graph.Graph, p, q graph.Pos) bool {
	if p.T != q.T || p.IsInit() || q.IsInit() {
		return p == q
	}
	lead := g.Leader(q)
	return p.I >= lead.I && p.I < g.OpEnd(q)
}

// keptBy returns the membership test of the events a backward revisit of
// r by w keeps: those added up to r, and the porf prefix of w's operation.
func keptBy(g *graph.Graph, r, w graph.Pos) func(graph.Pos) bool {
	rs := g.Ev(r).Stamp
	wv := g.Ev(opLast(g, w)).View
	return func(p graph.Pos) bool {
		return p.IsInit() || g.Ev(p).Stamp <= rs || graph.InView(wv, p)
	}
}

// maximal is the maximal-extension condition for the revisit of r by w: r
// and every event the revisit deletes were added the default way, so that
// this revisit is taken from one graph only.
func (e *Engine) maximal(g *graph.Graph, r, w graph.Pos) bool {
	kept := keptBy(g, r, w)
	var model *sym.Model // of the revisited graph, computed when needed
	we := g.Ev(w)
	if !we.RMW {
		// Of the coherence places of w that lead to the same revisited
		// graph, only the one whose successor is kept (or last) counts.
		if s, ok := g.CoSucc(we.Loc, w); ok && !kept(s) {
			return false
		}
	}
	for st := g.Ev(r).Stamp; int(st) < len(g.Order); st++ {
		p := g.Order[st]
		if p != r && kept(p) {
			continue
		}
		ev := g.Ev(p)
		switch ev.Kind {
		case graph.Read, graph.Write:
			if ev.Forced {
				continue // determined by the rest of its operation
			}
			if !ev.AddedMax {
				return false
			}
			x := p
			if ev.Kind == graph.Read {
				x = ev.RF
			}
			co := g.Locs[ev.Loc].Co
			for i := g.CoIndex(ev.Loc, x) + 1; i < len(co); i++ {
				if !sameOp(g, co[i], w) && kept(co[i]) {
					return false
				}
			}
			if ev.Kind == graph.Read && !ev.RF.IsInit() && !kept(ev.RF) && g.Ev(ev.RF).Stamp > ev.Stamp {
				return false
			}
		case graph.Choice:
			if !ev.AddedMax || ev.Lab.Kind.Chan() && (!e.chanMaximal(g, p, w, kept, p != r) || revisited(g, p, kept) || p == r && e.shadowed(g, p, w)) {
				return false
			}
		case graph.Constraint:
			// ConDPOR's tiebreaker: the maximal outcome is the one the
			// model of the revisited graph gives. Models are a function of
			// the constraints, so every graph that leads to the same
			// revisited graph agrees on it.
			if model == nil {
				m, ok := e.solve(g, kept)
				if !ok {
					return false
				}
				model = &m
			}
			if int(ev.Outcome) != e.sym.Default(&ev.Lab, *model) {
				return false
			}
		}
	}
	return true
}

// solve returns the least model of the constraints of the events of g for
// which in returns true, and whether they are satisfiable.
func (e *Engine) solve(g *graph.Graph, in func(graph.Pos) bool) (sym.Model, bool) {
	var conds []sym.Term
	for _, p := range g.Order {
		if ev := g.Ev(p); ev.Kind == graph.Constraint && in(p) {
			conds = append(conds, e.sym.Cond(&ev.Lab, int(ev.Outcome)))
		}
	}
	if len(conds) == 0 {
		return sym.Model{}, true
	}
	res, m, err := e.sym.Solver.Check(e.sym.Table, conds)
	if err != nil {
		panic(fmt.Sprintf("weft: the solver failed: %v", err))
	}
	return m, res == smt.Sat
}

// apply turns the frame's graph (or a copy of it) into the graph of
// alternative it, and reports whether that graph is to be executed.
func (e *Engine) apply(f *frame, it item) bool {
	g := f.g
	switch it.kind {
	case forwardRead:
		r, w := it.a, it.b
		g.CutToStamp(g.Ev(r).Stamp)
		ev := g.Ev(r)
		g.SetRF(r, w, syncOf(ev))
		ev.AddedMax = false
		// addRead pushed only the writes its read reads without a cycle.
		if ev.Lab.Kind.Chan() && !g.Acyclic(r) {
			return false
		}
		return e.complete(f, r, true)
	case forwardWrite:
		w, pred := it.a, it.b
		g.CutToStamp(g.Ev(w).Stamp)
		g.MoveCo(w, pred)
		g.Ev(w).AddedMax = false
		if !g.Acyclic(w) {
			return false
		}
		e.revisits(f, w)
		return true
	case backward:
		return e.backward(f, it)
	case chanOption:
		return e.applyOption(f, it)
	case choose:
		p := it.a
		// Keep what the event reads: a revisited read reads a write added
		// after it.
		cut := g.Ev(p).Stamp
		if ev := g.Ev(p); ev.Kind == graph.Read && !ev.RF.IsInit() {
			cut = max(cut, g.Ev(ev.RF).Stamp)
		}
		g.CutToStamp(cut)
		ev := g.Ev(p)
		ev.Outcome = it.b.I
		ev.AddedMax = false
		switch ev.Kind {
		case graph.Read:
			return e.complete(f, p, false)
		case graph.Constraint:
			// The other outcome of a branch: explored only if the path
			// condition allows it, under a model the solver finds.
			m, ok := e.solve(g, func(graph.Pos) bool { return true })
			if !ok {
				return false
			}
			f.model = m
		}
		return true
	}
	panic("unreachable")
}

// complete adds the write part of the update read at r when its value
// makes it write, and reports whether the graph respects atomicity. When
// the read has just changed what it reads (changed), its outcome is reset
// to the default and the others are pushed.
func (e *Engine) complete(f *frame, r graph.Pos, changed bool) bool {
	g := f.g
	ev := g.Ev(r)
	if ev.Lab.Kind.Chan() {
		return e.completeChan(f, r)
	}
	if !ev.RMW {
		return true
	}
	if changed {
		e.outcomes(f, r)
	}
	nv, writes, _ := effect(g, r)
	if !writes {
		return true
	}
	w := e.addWritePart(f, r, nv)
	if !g.Acyclic(w) {
		return false
	}
	for _, o := range g.ReadsOf(ev.Loc, ev.RF) {
		if o != r && writesAfter(g, o) {
			// Two updates read the same write: the revisits just pushed
			// repair it; this graph is not an execution.
			return false
		}
	}
	return true
}

// backward performs the revisit of r by w in a copy of the frame's graph,
// restricted to the events it keeps, explored in a frame of its own.
func (e *Engine) backward(f *frame, it item) bool {
	r, w := it.a, it.b
	pg := f.g
	wl := opLast(pg, w)
	pg.CutToStamp(pg.Ev(wl).Stamp)
	rs := pg.Ev(r).Stamp
	wv := pg.Ev(wl).View
	view := make([]int32, len(pg.Threads))
	for t := range pg.Threads {
		evs := pg.Threads[t].Events
		n := len(evs)
		for n > 0 && evs[n-1].Stamp > rs {
			n--
		}
		view[t] = int32(n - 1)
		if t < len(wv) && wv[t] > view[t] {
			view[t] = wv[t]
		}
	}
	child := e.spare()
	c := pg.CopyInto(child.g, view)
	model := f.model
	for _, p := range pg.Order {
		if pg.Ev(p).Kind == graph.Constraint && !graph.InView(view, p) {
			// Constraints are deleted: run the revisited graph under its
			// own model, the one its maximality was decided with.
			model, _ = e.solve(c, func(graph.Pos) bool { return true })
			break
		}
	}
	for _, p := range c.Order {
		if graph.InView(wv, p) {
			c.Ev(p).Revisitable = false
		}
	}
	*child = frame{g: c, items: child.items[:0], model: model}
	e.frames = append(e.frames, child)
	ev := c.Ev(r)
	if ev.Lab.Kind.Chan() {
		lead := c.Leader(r)
		if e.hasChoice(c, newCop(r.T, c.Ev(lead).Lab, lead)) {
			// A graph that was not an execution (a conflict, a cycle)
			// pushes revisits to repair it: the child must not keep
			// a cycle through w's operation.
			ok := e.backwardChoice(f, child, it) && c.Acyclic(w)
			if !ok && child.repair && len(child.items) > 0 {
				// Not an execution, but the revisits that repair it
				// are: they run from the child's frame.
				return false
			}
			return e.keepChild(child, ok)
		}
		c.SetRF(r, w, syncOf(ev))
		ev.AddedMax = c.CoMax(ev.Loc) == w
		return e.keepChild(child, e.backwardChan(child, r, w) && c.Acyclic(w))
	}
	c.SetRF(r, w, syncOf(ev))
	ev.AddedMax = c.CoMax(ev.Loc) == w
	if blocks(&ev.Lab, c.ReadValue(r)) {
		// A lock read handed a locked value: the goroutine waits instead.
		c.RemoveEvent(r)
		return true
	}
	ev.Recheck = ev.Lab.OKind == event.VarObj
	return e.keepChild(child, c.Acyclic(r) && c.Acyclic(w) && e.complete(child, r, true))
}

// keepChild drops the frame child, just pushed, unless ok.
func (e *Engine) keepChild(child *frame, ok bool) bool {
	if !ok {
		e.frames = e.frames[:len(e.frames)-1]
		e.spares = append(e.spares, child)
	}
	return ok
}

// race checks a new access of goroutine t to Var obj (at loc) against the
// conflicting accesses in g, and returns the race and the accesses it
// races with.
func (e *Engine) race(g *graph.Graph, t, obj, loc int32, write bool) (*engine.Bug, []graph.Pos) {
	_, hb := baseView(g, t)
	// The accesses not in hb, few in a long execution, indexed.
	ps := g.WritesNotIn(loc, hb, nil)
	if write {
		ps = g.ReadsNotIn(loc, hb, ps)
	}
	ps = slices.DeleteFunc(ps, func(p graph.Pos) bool { return p.T == t })
	if len(ps) == 0 {
		return nil, nil
	}
	return raceBug(g, obj, ps[0], t, write), ps
}

// racing returns the accesses to the Var at loc for which unordered
// returns true, that an access by goroutine t (a write, with write) races
// with.
func racing(g *graph.Graph, t, loc int32, write bool, unordered func(graph.Pos) bool) []graph.Pos {
	var ps []graph.Pos
	for _, w := range g.Locs[loc].Co {
		if unordered(w) {
			ps = append(ps, w)
		}
	}
	if write {
		for _, r := range g.Locs[loc].Reads {
			if unordered(r) {
				ps = append(ps, r)
			}
		}
	}
	return ps
}

// raceRead checks the revisited Var read at p against the writes of its
// location.
func (e *Engine) raceRead(g *graph.Graph, p graph.Pos) *engine.Bug {
	ev := g.Ev(p)
	hb := ev.HB
	obj := int32(-1)
	for o, l := range e.locOf {
		if l == ev.Loc {
			obj = int32(o)
		}
	}
	for _, w := range g.Locs[ev.Loc].Co {
		if w.T != p.T && !graph.InView(hb, w) {
			return raceBug(g, obj, w, p.T, false)
		}
	}
	return nil
}

// raceExecuted checks the Var access at p, just replayed, against the
// conflicting accesses executed before it in this run.
func (e *Engine) raceExecuted(g *graph.Graph, p graph.Pos) (*engine.Bug, []graph.Pos) {
	ev := g.Ev(p)
	write := ev.Kind == graph.Write
	ps := racing(g, p.T, ev.Loc, write, func(q graph.Pos) bool {
		return q != p && q.T != p.T && e.executed(q) && !graph.InView(ev.HB, q)
	})
	if len(ps) == 0 {
		return nil, nil
	}
	obj := int32(-1)
	for o, l := range e.locOf {
		if l == ev.Loc {
			obj = int32(o)
		}
	}
	return raceBug(g, obj, ps[0], p.T, write), ps
}

// raced is the decision for the access at p, performed although it races
// with the accesses prev (x.Continue): the race is a bug of its goroutine,
// which goes on.
func (e *Engine) raced(p graph.Pos, prev []graph.Pos, b *engine.Bug) engine.Decision {
	e.lastRace = len(e.races)
	for _, q := range prev {
		e.races = append(e.races, [2]graph.Pos{q, p})
	}
	return engine.Decision{Verdict: engine.Run, Choice: engine.Choice{G: p.T}, Bug: b}
}

// Fault implements engine.Continuer. Its schedule is a linearization of the
// bug's porf prefix, with the write the failing operation saw (an unlocked
// mutex) or the other access of a race: the bug comes first unless the
// prefix holds both accesses of an earlier race. Other failures (a failed
// operation, a Fail step) are the last events of their goroutines, and so
// never in it.
func (e *Engine) Fault(x *engine.Exec, t int32, failed *engine.Choice, also []engine.Reach) ([]engine.Choice, bool) {
	g := e.top().g
	if x.G[t].Status != engine.Ready {
		// It stops: what the graph holds of it beyond is never run.
		e.remaining -= len(g.Threads[t].Events) - int(e.cursor[t])
	}
	view, _ := baseView(g, t)
	var others []graph.Pos
	races := e.races
	if x.G[t].Status == engine.Ready {
		// The race Step just reported: its first pair is the one named.
		others = append(others, races[e.lastRace][0])
		races = races[:e.lastRace]
	}
	if l := &x.G[t].Pending; failed != nil && l.Obj >= 0 && int(l.Obj) < len(e.locOf) && e.locOf[l.Obj] >= 0 {
		loc := e.locOf[l.Obj]
		co := g.Locs[loc].Co
		for i := len(co) - 1; i >= 0; i-- {
			if e.executed(co[i]) {
				others = append(others, co[i])
				break
			}
		}
		if b, ps := e.race(g, t, l.Obj, loc, l.Kind == event.Store); b != nil && l.OKind == event.VarObj {
			others = append(others, ps[0])
		}
	}
	for _, r := range also {
		if r.N > 0 {
			others = append(others, graph.Pos{T: r.G, I: r.N - 1})
		} else if int(r.G) < len(g.Threads) && !g.Threads[r.G].Spawn.IsInit() {
			others = append(others, g.Threads[r.G].Spawn)
		}
	}
	in := func(p graph.Pos) bool {
		if !e.executed(p) {
			return false
		}
		if graph.InView(view, p) {
			return true
		}
		for _, o := range others {
			if graph.InView(g.Ev(o).View, p) {
				return true
			}
		}
		return false
	}
	first := true
	for _, r := range races {
		if in(r[0]) && in(r[1]) {
			first = false
		}
	}
	if !first {
		return nil, false
	}
	var sched []engine.Choice
	for _, p := range g.Linearize(in) {
		if !g.Ev(p).Cont {
			sched = append(sched, e.choiceOf(g, p))
		}
	}
	if failed != nil {
		sched = append(sched, *failed)
	}
	return sched, true
}

// raceBug describes a race between prev and an access of goroutine t, in
// the words of the interleaving engines (objects by execution index).
func raceBug(g *graph.Graph, obj int32, prev graph.Pos, t int32, write bool) *engine.Bug {
	kinds := [2]string{"load", "store"}
	pk := kinds[0]
	if g.Ev(prev).Kind == graph.Write {
		pk = kinds[1]
	}
	ck := kinds[0]
	if write {
		ck = kinds[1]
	}
	a, ak, b, bk := prev.T, pk, t, ck
	if b < a {
		a, ak, b, bk = b, bk, a, ak
	}
	return &engine.Bug{
		Kind:    engine.DataRace,
		Message: fmt.Sprintf("g%d's %s and g%d's %s of var#%d are not ordered by happens-before", a, ak, b, bk, obj),
		G:       t,
	}
}

// Schedule implements engine.Scheduler: an interleaving of the events
// executed in the run that the interleaving semantics reproduces exactly.
func (e *Engine) Schedule(*engine.Exec) []engine.Choice {
	g := e.top().g
	var out []engine.Choice
	for _, p := range g.Linearize(e.executed) {
		if g.Ev(p).Cont {
			continue // one choice per operation
		}
		out = append(out, e.choiceOf(g, p))
	}
	return out
}

// Spins implements engine.Awaiter: the reads before goroutine t's wait
// (its Block), back to its last operation that wrote, read the latest
// writes of their locations.
func (e *Engine) Spins(_ *engine.Exec, t int32) bool {
	g := e.top().g
	if int(t) >= len(g.Threads) {
		return false
	}
	evs := g.Threads[t].Events
	n := 0
	for i := len(evs) - 2; i >= 0; i-- {
		p := graph.Pos{T: t, I: int32(i)}
		ev := g.Ev(p)
		if ev.Kind != graph.Read || ev.Lab.Kind.Chan() || writesAfter(g, p) {
			break
		}
		co := g.Locs[ev.Loc].Co
		latest := graph.Init
		for j := len(co) - 1; j >= 0; j-- {
			if e.executed(co[j]) {
				latest = co[j]
				break
			}
		}
		if ev.RF != latest {
			return false
		}
		n++
	}
	return n > 0
}
