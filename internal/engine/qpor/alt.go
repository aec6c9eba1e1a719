package qpor

import (
	"slices"
	"sort"

	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
)

// backtrack pops the trail, adding each popped event to D at its depth,
// down to the deepest depth where an alternative to D exists (Alg. 1,
// lines 11-12), and makes it the target of the next execution. It returns
// false when there is none: the exploration is over.
func (e *Engine) backtrack() bool {
	c := slices.Clone(e.last)
	// An execution dropped before choosing at an alternative's depth
	// leaves that depth without an event: nothing was explored there.
	e.truncate(e.depth)
	e.indexTrail()
	for i := len(e.levels) - 1; i >= 0; i-- {
		lv := &e.levels[i]
		n := lv.ev
		c = c.set(n.g, n.pred())
		lv.dis = append(lv.dis, n)
		e.d = append(e.d, n)
		n.inD = true
		if j := e.alternative(c, i); j != nil {
			lv.ev = nil
			e.target, e.fresh = j, i
			return true
		}
		e.truncate(i)
	}
	return false
}

// truncate drops the trail's depths from i on, and their events from D.
func (e *Engine) truncate(i int) {
	for _, lv := range e.levels[min(i, len(e.levels)):] {
		for _, n := range lv.dis {
			n.inD = false
		}
		e.d = e.d[:len(e.d)-len(lv.dis)]
	}
	e.levels = e.levels[:min(i, len(e.levels))]
}

// alternative returns a k-partial alternative (optimal: k = |D|) to D,
// e.d, after configuration c, the trail's first i events, or nil when the comb has no solution (§5 of
// the paper).
//
// Only the events of D that do not conflict with c already need a
// conflicting event in J: the others are justified by c, which J contains.
// With k set, the comb has a spike for the event just added (the one the
// alternative must avoid first) and for the k-1 oldest others. A spike
// holds the events of the unfolding in immediate conflict with its event
// of D that are compatible with c and whose histories avoid D; a
// combination is a choice of one event per spike, pairwise not in
// conflict, and J is c with their local configurations.
func (e *Engine) alternative(c front, i int) front {
	d := e.d
	var open []*node // the events of D that do not conflict with c
	for _, x := range d {
		if e.compatibleTrail(x.tmax, c, i) {
			open = append(open, x)
		}
	}
	if e.k > 0 && len(open) > e.k {
		// The last is the event just added at depth i.
		open = append(open[:e.k-1:e.k-1], open[len(open)-1])
	}
	// The newest first: its spike is the one most often empty, which
	// ends the search.
	spikes := make([][]*node, len(open))
	for s := len(open) - 1; s >= 0; s-- {
		spikes[s] = e.spike(open[s], c, i, d)
		if len(spikes[s]) == 0 {
			return nil
		}
	}
	found := e.combine(open, spikes, make([]*node, 0, len(open)))
	if found == nil {
		return nil
	}
	return mergeHistory(front(nil).merge(c), found)
}

// spike returns the events in immediate conflict with x that may be in an
// alternative after c (the trail's first i events) avoiding d: two events in conflict are of one
// goroutine or dependent, and since x's causes are all in c, an event that
// is compatible with c and conflicts with x does so immediately.
func (e *Engine) spike(x *node, c front, i int, d []*node) []*node {
	var s []*node
	// consider adds y to s when it conflicts with x and may be in an
	// alternative, and reports whether it conflicts with x and is
	// compatible with c, whatever its history holds of d.
	consider := func(y *node) bool {
		if y == x || y.g != x.g && !e.u.dep(x, y) {
			return false
		}
		// First, y's events of x's goroutine: c's up to x's predecessor
		// (c's latest there), then none, or not x. Most events on x's
		// object disagree with c there: they come after what x's
		// goroutine does after x, in a later round of the program.
		if t := y.tmax.at(x.g); t != nil {
			if t.depth >= x.depth {
				if t = t.at(x.depth); t == x || t.prev != x.prev {
					return false
				}
			} else if x.prev.at(t.depth) != t {
				return false
			}
		}
		// Then the cheap tests: most events of the object are on other
		// branches of their goroutine than c.
		if !onChain(c.at(y.g), y.pred()) || x.tmax.has(y) || !e.compatibleTrail(y.tmax, c, i) {
			return false
		}
		for _, z := range d {
			if y.tmax.has(z) {
				return true
			}
		}
		if !slices.Contains(s, y) { // found on two channels, or on one and among the takers
			s = append(s, y)
		}
		return true
	}
	// inGroup considers the events of other goroutines after one write of
	// a channel of x's that write it, and those that read it when x
	// writes.
	inGroup := func(gr *group) {
		if gr == nil {
			return
		}
		for _, y := range gr.writes {
			if y.g != x.g {
				consider(y)
			}
		}
		if x.ev.Effect != indep.Write {
			return
		}
		for _, y := range gr.reads {
			if y.g != x.g {
				consider(y)
			}
		}
	}
	// Those of other goroutines are on x's object after x's latest write
	// of it, and they write it, unless x does: one after an earlier write
	// conflicts with the write after that one in c, and one after a later
	// write has x's in its history or conflicts with it already. They are
	// looked at first for fits, those that write and are compatible with
	// c, but come after x's goroutine's in the spike.
	var grp []*node
	fits := e.fits[:0]
	if x.obj >= 0 {
		gr := e.u.initial[e.u.find(x.obj)]
		if x.owrite != nil {
			gr = e.u.after[x.owrite]
		}
		if gr != nil {
			for _, y := range gr.writes {
				if y.g != x.g && consider(y) {
					fits = append(fits, y)
				}
			}
			if x.ev.Effect == indep.Write {
				for _, y := range gr.reads {
					if y.g != x.g {
						consider(y)
					}
				}
			}
		}
		grp, s = s, nil
	}
	e.fits = fits
	// Conflicting events of x's goroutine compatible with c follow the
	// same predecessor. One on x's object after another write than x's
	// has in its history the first write after x's, which is in the
	// group above, and compatible with c: among fits. Most of x's
	// siblings are after other writes, and most often fits is empty.
	sibs := e.u.firsts[x.g]
	if p := x.pred(); p != nil {
		sibs = p.kids
	}
	for _, y := range sibs {
		if x.obj >= 0 && y.owrite != x.owrite && y.obj >= 0 && e.u.find(y.obj) == e.u.find(x.obj) && !hasAny(y.tmax, fits) {
			continue
		}
		consider(y)
	}
	s = append(s, grp...)
	// Writes and the waits of weft.Yield are dependent whatever the
	// object.
	var ys []*node
	switch {
	case x.obj >= 0 && x.ev.Effect == indep.Write:
		ys = e.u.awaits
	case x.await():
		ys = e.u.writes
	}
	for _, y := range ys {
		if y.g != x.g {
			consider(y)
		}
	}
	// So are those on its channels, write by write of each, and those
	// that take the offer it takes.
	if x.ev.Silent {
		return s
	}
	for i, c := range x.ev.Chans {
		gr := e.u.initial[int32(c)]
		if w := x.chanW[i]; w != nil {
			gr = e.u.chanAfter[chanKey{w, int32(c)}]
		}
		inGroup(gr)
	}
	if x.ev.With != 0 {
		for _, y := range e.u.takers[x.tmax.at(x.ev.With-1)] {
			if y.g != x.g {
				consider(y)
			}
		}
	}
	return s
}

// hasAny reports whether configuration f holds one of the events ns.
func hasAny(f front, ns []*node) bool {
	for _, n := range ns {
		if f.has(n) {
			return true
		}
	}
	return false
}

// combine searches the comb depth first for a combination whose events are
// pairwise not in conflict, spikes[len(picked):] being left to choose, and
// returns it, or nil.
func (e *Engine) combine(open []*node, spikes [][]*node, picked []*node) []*node {
	s := len(picked)
	if s == len(spikes) {
		return picked
	}
	for _, y := range picked {
		if e.u.conflict(y, open[s]) {
			// Already avoided: any event of the spike would do, this one
			// adds nothing.
			return e.combine(open, spikes, append(picked, y))
		}
	}
	for _, y := range spikes[s] {
		ok := true
		for _, z := range picked {
			if z != y && e.u.conflict(y, z) {
				ok = false
				break
			}
		}
		if ok {
			if found := e.combine(open, spikes, append(picked, y)); found != nil {
				return found
			}
		}
	}
	return nil
}

// onChain reports whether events a and b of one goroutine (or nil) are
// causally related or equal.
func onChain(a, b *node) bool {
	switch {
	case a == nil || b == nil:
		return true
	case a.depth <= b.depth:
		return b.at(a.depth) == a
	}
	return a.at(b.depth) == b
}

// indexTrail indexes the events of the trail by canonical object, and
// its waits of weft.Yield, for compatibleTrail.
func (e *Engine) indexTrail() {
	e.byObj.reset()
	e.trailAwaits = e.trailAwaits[:0]
	for _, lv := range e.levels {
		n := lv.ev
		switch {
		case n.obj >= 0:
			r := e.u.find(n.obj)
			e.byObj.put(r, append(e.byObj.get(r), n))
		case n.await():
			e.trailAwaits = append(e.trailAwaits, n)
		}
	}
}

// compatibleTrail is u.compatible(a, c) for c the configuration of the
// trail's first i events, which the comb asks of every event it
// considers: an event of a on an object can only be dependent with the
// events of c on that object and, if it writes, with c's waits of
// weft.Yield (package indep), which the index of the trail lists
// without looking through all of c.
func (e *Engine) compatibleTrail(a, c front, i int) bool {
	ok, moreA, moreC := chainsAgree(a, c)
	if !ok || !moreA || !moreC {
		return ok
	}
	n := max(len(a), len(c))
	onlyA := e.u.onlyA[:0]
	for g := range n {
		onlyA = beyond(onlyA, a.at(int32(g)), c.at(int32(g)))
	}
	e.u.onlyA = onlyA
	var onlyC []*node
	for _, z := range onlyA {
		switch z.ev.Kind {
		case event.Spawn, event.Join, event.End:
			// Dependent only with the events of the goroutine spawned,
			// its End and its joins: with none in c that the chains
			// agreeing does not put in a.
			continue
		}
		if z.obj < 0 {
			if onlyC == nil {
				onlyC = e.u.onlyB[:0]
				for g := range n {
					onlyC = beyond(onlyC, c.at(int32(g)), a.at(int32(g)))
				}
				e.u.onlyB = onlyC
			}
			for _, y := range onlyC {
				if z.g != y.g && e.u.dep(z, y) {
					return false
				}
			}
			continue
		}
		// Backwards from c's latest event on the object: every earlier one
		// precedes a write of c there (dependent events of a
		// configuration are ordered, as in the trail), so that the first
		// write found in a is the last to look at.
		w := z.ev.Effect == indep.Write
		ys := e.byObj.get(e.u.find(z.obj))
		for k := sort.Search(len(ys), func(k int) bool { return int(ys[k].pos) >= i }) - 1; k >= 0; k-- {
			y := ys[k]
			yw := y.ev.Effect == indep.Write
			switch {
			case !w && !yw:
			case y.g == z.g || a.has(y):
				if yw {
					k = 0
				}
			default:
				return false
			}
		}
		for _, y := range e.trailAwaits {
			if !w || int(y.pos) >= i {
				break
			}
			if y.g != z.g && !a.has(y) {
				return false
			}
		}
	}
	return true
}
