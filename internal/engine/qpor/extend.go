package qpor

import (
	"slices"
	"sort"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
)

// extend adds to the unfolding the extensions of the execution's
// configuration C (ex(C), Alg. 1 line 4, for C and all its prefixes): the
// operations of C, and those still pending at its end, after every other
// history in C they could have happened after.
//
// An operation's history is named by its maximal events, which are all
// dependent with it: its goroutine's previous event (or its spawn), the
// End it joins, and accesses of its object. For a read, that is the write
// it reads; for a write, a write and any set of the reads of that write
// (reads commute with each other). So the other histories of an operation
// in C are found per write of its object in C, the paper's cexp(C) walking
// back a lock's chain generalized to reads and writes. The operation's
// effect and whether it can happen there depend on the value the history
// leaves in the object: that of its latest write. Channel operations
// (chanOthers) and the waits of weft.Yield (awaitOthers) have histories
// of their own kind.
func (e *Engine) extend(x *engine.Exec) {
	type op struct {
		g   *engine.Goroutine
		obj int32
	}
	// Name the pending operations' objects first: that may merge names.
	var pending, pendingChan, pendingAwait []op
	for _, g := range x.G {
		if g == nil || g.Status != engine.Ready || g.Pending.Kind == event.Invalid {
			continue
		}
		switch {
		case g.Pending.Kind.Chan():
			pendingChan = append(pendingChan, op{g, -1})
		case isAwait(&g.Pending):
			pendingAwait = append(pendingAwait, op{g, -1})
		default:
			if obj := e.canon(g.ID, &g.Pending); obj >= 0 {
				pending = append(pending, op{g, obj})
			}
		}
	}
	hist := &e.hist
	hist.reset()
	e.chanSteps, e.stDone = e.chanSteps[:0], e.stDone[:0]
	e.chanSt.Reset()
	for i, lv := range e.levels[:e.depth] {
		n := lv.ev
		if lv.lab.Kind.Chan() {
			tok := chans.Token(i)
			if lv.lab.Kind == event.ChanMake {
				tok = lv.tok
			}
			e.chanSteps = append(e.chanSteps, chanStep{n, chans.OpOf(&lv.lab, n.g, tok), chans.Decode(n.ev.Alt, n.ev.With)})
		}
		if !n.ev.Silent {
			for _, c := range n.ev.Chans {
				hist.put(int32(c), appendAccess(hist.get(int32(c)), n))
			}
		}
		if n.obj < 0 {
			continue
		}
		r := e.u.find(n.obj)
		hist.put(r, appendAccess(hist.get(r), n))
	}
	for i, lv := range e.levels[:e.depth] {
		n := lv.ev
		first := n.pred()
		if first == nil {
			first = e.spawned.at(n.g)
		}
		switch {
		case n.obj >= 0:
			e.others(n.g, n.pred(), first, &lv.lab, n.obj, hist, i < e.fresh)
		case lv.lab.Kind.Chan() && lv.lab.Kind != event.ChanMake && !(n.ev.Silent && n.ev.With == 0):
			// A make or an offer has one history: its goroutine's.
			e.chanOthers(n.g, n.pred(), first, &lv.lab, hist, i < e.fresh)
		case isAwait(&lv.lab):
			e.awaitOthers(n.g, n.pred(), first, &lv.lab, hist, i < e.fresh)
		}
	}
	for _, p := range pendingAwait {
		first := e.last.at(p.g.ID)
		if first == nil {
			first = e.spawned.at(p.g.ID)
		}
		e.awaitOthers(p.g.ID, e.last.at(p.g.ID), first, &p.g.Pending, hist, false)
	}
	for _, p := range pending {
		first := e.last.at(p.g.ID)
		if first == nil {
			first = e.spawned.at(p.g.ID)
		}
		e.others(p.g.ID, e.last.at(p.g.ID), first, &p.g.Pending, p.obj, hist, false)
	}
	for _, p := range pendingChan {
		first := e.last.at(p.g.ID)
		if first == nil {
			first = e.spawned.at(p.g.ID)
		}
		e.chanOthers(p.g.ID, e.last.at(p.g.ID), first, &p.g.Pending, hist, false)
	}
}

// appendAccess adds n, an access of an object, to the accesses ws of the
// object so far, by write.
func appendAccess(ws []access, n *node) []access {
	if len(ws) == 0 {
		ws = append(ws, access{})
	}
	switch n.ev.Effect {
	case indep.Write:
		ws = append(ws, access{w: n})
	case indep.Read:
		ws[len(ws)-1].reads = append(ws[len(ws)-1].reads, n)
	}
	return ws
}

// others adds the events of goroutine g's operation l on object obj, after
// pred (its previous event, or nil) and cause (pred or its spawn), for
// every history in the execution whose maximal events it is dependent with.
// When old, the operation is one of the part of the trail that the
// previous execution had too, which added its histories in that part.
func (e *Engine) others(g int32, pred, cause *node, l *event.Label, obj int32, hist *perObj[access], old bool) {
	ws := hist.get(e.u.find(obj))
	if len(ws) == 0 {
		ws = []access{{}}
	}
	// The histories are made of cause, a write and reads of it: the
	// latest write of each and whether it lies within g's chain are
	// found once, not for every history they are in.
	kc := latestAt(cause, ws, 0)
	var awaits []cand
	for j, wr := range ws {
		if old && e.old(wr.w) && !slices.ContainsFunc(wr.reads, e.isNew) && !slices.ContainsFunc(e.awaits, e.isNew) {
			continue
		}
		cs := append(e.causeBuf[:0], cause, wr.w)
		e.causeBuf = cs
		if !within(cs, g, pred) {
			continue // the write comes after the operation in g
		}
		k := max(kc, j) // the latest write in the history
		ow := ws[k].w
		var val event.Value
		if ow != nil {
			val = ow.post
		}
		if l.Blocks(val) {
			continue
		}
		var byG [][]cand
		for alt := range l.Alternatives(val) {
			ev := indep.Of(g, l, int32(alt), 0, val)
			ev.Obj = obj
			if ev.Effect != indep.Write {
				if !old || !e.old(wr.w) {
					e.add(g, pred, l, obj, ev, ow, cs)
				}
				continue
			}
			// Every set of the reads of wr.w, as its latest read by each
			// goroutine (or none): the others are in that one's history;
			// and of the waits of weft.Yield, which read every object.
			if byG == nil {
				byG = e.readsByG(wr.reads, g, pred, ws, j)
				if awaits == nil && len(e.awaits) > 0 {
					awaits = make([]cand, 0, len(e.awaits))
					for _, a := range e.awaits {
						if a.g != g {
							awaits = append(awaits, e.cand(a, g, pred, ws, 0))
						}
					}
				}
				for i := range awaits {
					byG = append(byG, awaits[i:i+1])
				}
			}
			pick := e.pick[:0] // into byG[i], plus one; 0: none
			for range byG {
				pick = append(pick, 0)
			}
			e.pick = pick
			for {
				rs, fresh := append(e.causeBuf[:0], cause, wr.w), !old || !e.old(wr.w)
				// A wait's history may hold a later write of the object:
				// the operation would come after that one.
				ok := true
				for i, p := range pick {
					if p > 0 {
						r := &byG[i][p-1]
						rs = append(rs, r.n)
						fresh = fresh || e.isNew(r.n)
						ok = ok && r.within && r.latest <= k
					}
				}
				e.causeBuf = rs
				if fresh && ok {
					e.add(g, pred, l, obj, ev, ow, rs)
				}
				if !nextPick(pick, func(i int) int { return len(byG[i]) }) {
					break
				}
			}
		}
	}
}

// cand is a read in the histories of a write: within says that its
// history holds no event of the writing goroutine after its predecessor,
// latest is the index in the object's writes of the latest in it.
type cand struct {
	n      *node
	within bool
	latest int
}

// readsByG returns the reads of the write at j in ws as candidates in
// the histories of goroutine g's operation after pred, split by
// goroutine, each goroutine's in order, in the engine's scratch space,
// valid until the next call: every write of an execution is extended
// after each set of them.
func (e *Engine) readsByG(reads []*node, g int32, pred *node, ws []access, j int) [][]cand {
	gs := e.readGs[:0]
	for _, r := range reads {
		if !slices.Contains(gs, r.g) {
			gs = append(gs, r.g)
		}
	}
	e.readGs = gs
	flat := e.cands[:0]
	for _, h := range gs {
		for _, r := range reads {
			if r.g == h {
				flat = append(flat, e.cand(r, g, pred, ws, j))
			}
		}
	}
	e.cands = flat
	byG := e.byG[:0]
	for _, h := range gs {
		k := 0
		for k < len(flat) && flat[k].n.g == h {
			k++
		}
		byG, flat = append(byG, flat[:k:k]), flat[k:]
	}
	e.byG = byG
	return byG
}

// cand returns r as a read in the histories of goroutine g's operation
// after pred on the object whose writes are ws, the latest of them in r's
// history being at least from.
func (e *Engine) cand(r *node, g int32, pred *node, ws []access, from int) cand {
	return cand{r, within([]*node{r}, g, pred), latestAt(r, ws, from)}
}

// add adds the event of g's operation ev after the history of causes, in
// which ow is the latest write of obj, when all its maximal events are dependent with ev (else that history
// names the event of a smaller one).
func (e *Engine) add(g int32, pred *node, l *event.Label, obj int32, ev indep.Event, ow *node, causes []*node) {
	e.u.maxs = maximal(e.u.maxs[:0], causes)
	for _, m := range e.u.maxs {
		if !e.u.depEv(ev, m) {
			return
		}
	}
	e.u.event(g, pred, l, obj, engine.Choice{G: g, Alt: ev.Alt, With: ev.With}, ev, ow, nil, e.u.maxs)
}

// mergeHistory returns the union of configuration h and the local
// configurations of the events in cs (nil entries are skipped), in h's
// storage.
func mergeHistory(h front, cs []*node) front {
	for _, c := range cs {
		if c != nil {
			h = h.merge(c.tmax)
		}
	}
	return h
}

// within reports whether the history of cs, events of the running
// execution, holds no event of goroutine g after pred (nil: none): the
// events of g in it are all on g's chain in the execution.
func within(cs []*node, g int32, pred *node) bool {
	d := int32(-1)
	if pred != nil {
		d = pred.depth
	}
	for _, c := range cs {
		if c != nil {
			if t := c.tmax.at(g); t != nil && t.depth > d {
				return false
			}
		}
	}
	return true
}

// latestAt returns the index in ws, the writes of an object in the
// execution, of the latest in the history of c (0: none), which is at
// least from. The writes of an object in an execution are causally
// ordered, so that those in a history are a prefix of ws, found by
// bisection.
func latestAt(c *node, ws []access, from int) int {
	if c == nil || from == len(ws)-1 {
		return from
	}
	rest := ws[from+1:]
	return from + sort.Search(len(rest), func(j int) bool { return !c.tmax.has(rest[j].w) })
}

// history returns the union of the local configurations of the events in
// cs, in the engine's scratch space, valid until the next call:
// extensions look at many histories, most of which they drop.
func (e *Engine) history(cs []*node) front {
	e.merged = mergeHistory(e.merged[:0], cs)
	return e.merged
}

// old reports whether n is nil or an event of the part of the trail that
// the previous execution had too.
func (e *Engine) old(n *node) bool { return n == nil || int(n.run) == e.runs && int(n.pos) < e.fresh }

func (e *Engine) isNew(n *node) bool { return !e.old(n) }

// readsByG splits reads by goroutine, each goroutine's in order.
func readsByG(reads []*node) [][]*node {
	var out [][]*node
	for _, r := range reads {
		i := slices.IndexFunc(out, func(rs []*node) bool { return rs[0].g == r.g })
		if i < 0 {
			out = append(out, nil)
			i = len(out) - 1
		}
		out[i] = append(out[i], r)
	}
	return out
}

// chanOthers adds the events of goroutine g's channel operation l, after
// pred (its previous event, or nil) and cause (pred or its spawn), for every
// history in the execution whose maximal events it is dependent with. Those
// are, besides cause, for each of its channels a write of it and, as it
// writes, any set of the reads of that write (as for memory), and at most
// one of: an offer of another goroutine on one of its channels, which it
// may take, or the event that took g's own offer, for its handed wait.
// What the operation can do after a history depends on every channel
// operation in it (values buffered, closes, offers standing): it is found
// by performing them again, in the execution's order. When old, the
// operation is one of the part of the trail that the previous execution
// had too, which added its histories made of that part.
func (e *Engine) chanOthers(g int32, pred, cause *node, l *event.Label, hist *perObj[access], old bool) {
	ev0 := indep.Of(g, l, 0, 0, event.Value{})
	e.chansOf(ev0.Chans)
	// sets[i] holds the sets of causes on channel i to choose from.
	sets := make([][][]*node, len(ev0.Chans))
	for i, c := range ev0.Chans {
		ws := hist.get(int32(c))
		if len(ws) == 0 {
			ws = []access{{}}
		}
		for _, wr := range ws {
			if ev0.Effect != indep.Write {
				sets[i] = append(sets[i], []*node{wr.w})
				continue
			}
			byG := readsByG(wr.reads)
			pick := make([]int, len(byG))
			for {
				rs := []*node{wr.w}
				for j, p := range pick {
					if p > 0 {
						rs = append(rs, byG[j][p-1])
					}
				}
				sets[i] = append(sets[i], rs)
				if !nextPick(pick, func(j int) int { return len(byG[j]) }) {
					break
				}
			}
		}
	}
	extra := []*node{nil}
	for _, lv := range e.levels[:e.depth] {
		n := lv.ev
		switch {
		case n.g == g:
		case n.ev.Silent && n.ev.With == 0 && sharesChan(&n.ev, &ev0):
			extra = append(extra, n)
		case !n.ev.Silent && n.ev.With == g+1 && pred != nil && n.tmax.has(pred):
			extra = append(extra, n)
		}
	}
	op := chans.OpOf(l, g, chans.NoToken)
	var buf [8]chans.Outcome
	pick := make([]int, len(sets))
	for {
		base := append(e.chanCauses[:0], cause)
		for i, j := range pick {
			base = append(base, sets[i][j]...)
		}
		for _, x := range extra {
			cs := append(base, x)
			e.chanCauses = cs
			if old && !slices.ContainsFunc(cs, e.isNew) {
				continue
			}
			h := e.history(cs)
			if h.at(g) != pred {
				continue
			}
			st := e.stateAt(h)
			silent := st.Offers(&op) || op.Kind == event.ChanWait && st.Handed(g)
			for _, o := range st.Options(&op, buf[:0]) {
				ev := indep.Of(g, l, o.Alt(), o.With1(), event.Value{})
				e.chansOf(ev.Chans)
				ev.Silent = silent
				var cw []*node
				if !silent {
					cw = e.cw[:0]
					for _, c := range ev.Chans {
						cw = append(cw, latestIn(h, hist.get(int32(c))))
					}
					e.cw = cw
				}
				e.addChan(g, pred, l, ev, cw, cs)
			}
		}
		if !nextPick(pick, func(i int) int { return len(sets[i]) - 1 }) {
			break
		}
	}
}

// addChan is add for a channel operation, whose latest writes of its
// channels in the history are cw.
func (e *Engine) addChan(g int32, pred *node, l *event.Label, ev indep.Event, cw []*node, causes []*node) {
	e.u.maxs = maximal(e.u.maxs[:0], causes)
	for _, m := range e.u.maxs {
		if !e.u.depEv(ev, m) {
			return
		}
	}
	e.u.event(g, pred, l, -1, engine.Choice{G: g, Alt: ev.Alt, With: ev.With}, ev, nil, cw, e.u.maxs)
}

// stateAt returns the state of the channels after configuration h, a
// part of the running execution: its channel operations performed again
// in the execution's order. The state is the engine's, valid until the
// next call. Extensions ask for histories that mostly grow one write of
// a channel at a time: when the operations performed for the last one
// are the first of h's, only the others are performed.
func (e *Engine) stateAt(h front) *chans.State {
	need := e.stNeed[:0]
	for k := range e.chanSteps {
		if h.has(e.chanSteps[k].n) {
			need = append(need, int32(k))
		}
	}
	e.stNeed = need
	st := &e.chanSt
	if len(e.stDone) > len(need) || !slices.Equal(e.stDone, need[:len(e.stDone)]) {
		st.Reset()
		e.stDone = e.stDone[:0]
	}
	for _, k := range need[len(e.stDone):] {
		s := &e.chanSteps[k]
		st.Apply(&s.op, s.out)
	}
	e.stDone = append(e.stDone, need[len(e.stDone):]...)
	return st
}

// chanStep is a channel operation of the running execution, as stateAt
// performs it again.
type chanStep struct {
	n   *node
	op  chans.Op
	out chans.Outcome
}

// latestIn returns the latest of the writes ws of an object that is in
// configuration h, nil for none.
func latestIn(h front, ws []access) *node {
	for i := len(ws) - 1; i > 0; i-- {
		if h.has(ws[i].w) {
			return ws[i].w
		}
	}
	return nil
}

// sharesChan reports whether a and b touch a common channel.
func sharesChan(a, b *indep.Event) bool {
	for _, c := range a.Chans {
		if slices.Contains(b.Chans, c) {
			return true
		}
	}
	return false
}

// awaitOthers adds the events of goroutine g's wait of weft.Yield, l,
// after pred (its previous event, or nil) and cause (pred or its spawn),
// for every history in the execution whose maximal events it is
// dependent with: besides cause, a write (or none) of each memory and
// sync object, as it reads them all. When old, the wait is one of the
// part of the trail that the previous execution had too, which added its
// histories made of that part.
func (e *Engine) awaitOthers(g int32, pred, cause *node, l *event.Label, hist *perObj[access], old bool) {
	var objs [][]access
	for _, ws := range *hist {
		if len(ws) > 1 && ws[1].w.obj >= 0 {
			objs = append(objs, ws)
		}
	}
	ev := indep.Of(g, l, 0, 0, event.Value{})
	pick := make([]int, len(objs))
	for {
		cs := []*node{cause}
		for i, j := range pick {
			cs = append(cs, objs[i][j].w)
		}
		if (!old || slices.ContainsFunc(cs, e.isNew)) && within(cs, g, pred) {
			e.add(g, pred, l, -1, ev, nil, cs)
		}
		if !nextPick(pick, func(i int) int { return len(objs[i]) - 1 }) {
			break
		}
	}
}

// nextPick steps pick to the next of the vectors with 0 <= pick[i] <=
// last(i), counting as a number whose digit i has base last(i)+1, and
// reports false after the last: the loops over every choice of one item
// (or none) from each of several lists.
func nextPick(pick []int, last func(int) int) bool {
	for i := range pick {
		if pick[i] < last(i) {
			pick[i]++
			return true
		}
		pick[i] = 0
	}
	return false
}

// perObj holds a list per canonical object (or -1), indexed by it: the
// objects are numbered densely, and an execution's lists are looked up
// at every access it made.
type perObj[T any] [][]T

func (p perObj[T]) get(o int32) []T {
	if int(o)+1 < len(p) {
		return p[o+1]
	}
	return nil
}

func (p *perObj[T]) put(o int32, l []T) {
	for int(o)+1 >= len(*p) {
		*p = append(*p, nil)
	}
	(*p)[o+1] = l
}

// reset empties the lists, keeping their storage.
func (p perObj[T]) reset() {
	for o, l := range p {
		p[o] = l[:0]
	}
}
