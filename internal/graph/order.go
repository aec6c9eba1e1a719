package graph

import "container/heap"

// succs calls f with every event that must come after p in a sequentially
// consistent execution: its program-order successor, the goroutine it
// spawns, the joins of its goroutine's end, and for memory events the
// reads-from, coherence and from-read successors (immediate coherence
// successors suffice, coherence being total per location). Only events
// for which in returns true are considered.
func (g *Graph) succs(p Pos, in func(Pos) bool, f func(Pos)) {
	g.succsBy(p, in, g.CoIndex, nil, f)
}

// succsBy is succs with the index of a write in its coherence order given
// by coIndex, and the joins of each goroutine's end by joins (nil: looked
// for among all events), which Linearize computes once for all events
// rather than once per event.
func (g *Graph) succsBy(p Pos, in func(Pos) bool, coIndex func(int32, Pos) int, joins map[Pos][]Pos, f func(Pos)) {
	ev := g.Ev(p)
	if next := (Pos{T: p.T, I: p.I + 1}); g.Has(next) && in(next) {
		f(next)
	}
	switch ev.Kind {
	case Spawn:
		if first := (Pos{T: ev.Lab.Arg, I: 0}); g.Has(first) && in(first) {
			f(first)
		}
	case End:
		if joins != nil {
			for _, q := range joins[p] {
				if in(q) {
					f(q)
				}
			}
			break
		}
		for _, q := range g.joins {
			if g.Ev(q).RF == p && in(q) {
				f(q)
			}
		}
	case Write:
		// The reads of a location with few are scanned here rather than
		// asked of ReadsOf, whose result for such a location is shared
		// scratch: f may call succs again (a depth-first search does).
		// Those of a location with many are found by the index: a long
		// execution has thousands of writes to a mutex and as many reads.
		if l := &g.Locs[ev.Loc]; len(l.Reads) <= scanned {
			for i, rf := range l.rfs {
				if r := l.Reads[i]; rf == p && in(r) {
					f(r)
				}
			}
		} else {
			for _, r := range g.ReadsOf(ev.Loc, p) {
				if in(r) {
					f(r)
				}
			}
		}
		if s, ok := g.coSuccIn(ev.Loc, coIndex(ev.Loc, p), in); ok {
			f(s)
		}
	case Read:
		if ev.Joins {
			break
		}
		if s, ok := g.coSuccIn(ev.Loc, coIndex(ev.Loc, ev.RF), in); ok && s != p {
			f(s)
		}
	}
}

// coSuccIn returns the first write after index i of the coherence order
// of l among those in.
func (g *Graph) coSuccIn(l int32, i int, in func(Pos) bool) (Pos, bool) {
	co := g.Locs[l].Co
	for i++; i < len(co); i++ {
		if in(co[i]) {
			return co[i], true
		}
	}
	return Pos{}, false
}

func all(Pos) bool { return true }

// opSuccsBy calls f with the first event of every operation that must
// come after the operation whose first event is p: the operation is one
// node, its edges those of its events, not counting those between them.
func (g *Graph) opSuccsBy(p Pos, in func(Pos) bool, coIndex func(int32, Pos) int, joins map[Pos][]Pos, f func(Pos)) {
	end := g.OpEnd(p)
	for i := p.I; i < end; i++ {
		q := Pos{T: p.T, I: i}
		if !in(q) {
			break
		}
		g.succsBy(q, in, coIndex, joins, func(s Pos) {
			if s.T == p.T && s.I >= p.I && s.I < end {
				return
			}
			f(g.Leader(s))
		})
	}
}

// Acyclic reports whether no cycle of program order, reads-from, coherence,
// from-read, spawn and join edges goes through the operation of p: the
// check of sequential consistency after p's edges changed in a graph that
// was consistent.
//
// It is opSuccsBy's search written out, without its closures: it runs for
// nearly every alternative the engine explores, and was a seventh of the
// instructions of a run of fib_bench.
func (g *Graph) Acyclic(p Pos) bool {
	p = g.Leader(p)
	seen := g.clearSeen()
	c := cycleSearch{g: g, p: p, seen: seen, stack: append(g.stack[:0], p)}
	cycle := false
	for len(c.stack) > 0 && !cycle {
		q := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		cycle = c.expand(q)
	}
	g.seen, g.stack = c.seen, c.stack
	return !cycle
}

// clearSeen returns the cycle searches' marks, one per event, all false,
// in the buffer the graph keeps for them.
func (g *Graph) clearSeen() []bool {
	if cap(g.seen) < len(g.Order) {
		return make([]bool, len(g.Order), 2*len(g.Order))
	}
	seen := g.seen[:len(g.Order)]
	clear(seen)
	return seen
}

// AcyclicReadsFrom returns the index of the first write of ws that a read
// added now as the next event of goroutine t can read without closing a
// cycle: it closes one reading any write before it. ws is a suffix of the
// coherence order of one location (Init first included), which the graph,
// consistent, orders; the read is not in the graph yet.
//
// Such a read has one edge out, the from-read edge to the write s right
// after the one it reads, and edges in from that write and from pred, the
// event before it (t's last event, or the spawn of t). s cannot reach the
// write the read reads, which comes before it in coherence: there is a
// cycle if and only if s reaches pred. A write that reaches pred reaches
// it through every write before it in coherence too: the writes whose
// successors reach pred are a prefix of ws, and one search finds where it
// ends, the latest successor that reaches pred. The search goes back from
// pred: it stops at an operation porf-before the earliest successor not
// yet found to reach pred, which that successor and the later ones reach
// only through a cycle of the graph, and records each successor that is
// porf-before (or in) an operation it meets. Searching forward from the
// successors instead prunes little: what comes after them has mostly not
// seen pred.
func (g *Graph) AcyclicReadsFrom(t int32, ws []Pos) int {
	pred := g.Threads[t].Spawn
	if n := len(g.Threads[t].Events); n > 0 {
		pred = Pos{T: t, I: int32(n - 1)}
	}
	if pred.IsInit() || len(ws) < 2 {
		return 0 // only the write it reads comes before it; no write after
	}
	// ws[k] is the latest successor found to reach pred; k is 0 for none,
	// ws[0] being the successor of no write of ws.
	k, last := 0, len(ws)-1
	c := cycleSearch{g: g, seen: g.clearSeen(), stack: g.stack[:0]}
	c.pruneBefore(ws[1])
	c.visit(g.Leader(pred))
	for len(c.stack) > 0 && k < last {
		q := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		end := g.OpEnd(q)
		// The view of the operation's last event holds its events and
		// what is porf-before any of them.
		v := g.Threads[q.T].Events[end-1].View
		for j := last; j > k; j-- {
			if InView(v, ws[j]) {
				if k = j; k < last {
					c.pruneBefore(ws[k+1])
				}
				break
			}
		}
		c.expandBack(q, end)
	}
	g.seen, g.stack = c.seen, c.stack
	return k
}

// pruneBefore makes the search leave out the operations porf-before s
// (but s's own): s, and the writes after it in coherence, reach them only
// through a cycle. Those the search has pushed already stay: it finds
// nothing wrong in them, only more than it needs.
func (c *cycleSearch) pruneBefore(s Pos) {
	c.after, c.lead = c.g.Ev(s).View, c.g.Leader(s)
}

// expandBack pushes the operations that must come before the operation
// [q.I, end) of q's goroutine.
func (c *cycleSearch) expandBack(q Pos, end int32) {
	g := c.g
	evs := g.Threads[q.T].Events
	if q.I > 0 {
		c.visit(g.Leader(Pos{T: q.T, I: q.I - 1}))
	} else if sp := g.Threads[q.T].Spawn; !sp.IsInit() {
		c.visit(g.Leader(sp))
	}
	for i := q.I; i < end; i++ {
		ev := &evs[i]
		switch ev.Kind {
		case Read, Join:
			if !ev.RF.IsInit() {
				c.visitOf(q, end, ev.RF)
			}
		case Write:
			// The write before it in coherence, and the reads of that
			// write (from-read edges).
			pw := Init
			if k := g.CoIndex(ev.Loc, Pos{T: q.T, I: i}); k > 0 {
				pw = g.Locs[ev.Loc].Co[k-1]
				c.visitOf(q, end, pw)
			}
			if l := &g.Locs[ev.Loc]; len(l.Reads) <= scanned {
				for i, rf := range l.rfs {
					if r := l.Reads[i]; rf == pw && !g.Ev(r).Joins {
						c.visitOf(q, end, r)
					}
				}
			} else {
				for _, r := range g.ReadsOf(ev.Loc, pw) {
					if !g.Ev(r).Joins {
						c.visitOf(q, end, r)
					}
				}
			}
		}
	}
}

// cycleSearch is the state of a cycle search: Acyclic's from the operation
// p, or AcyclicReadsFrom's, which looks for no operation in particular.
type cycleSearch struct {
	g *Graph
	p Pos // Acyclic's
	// after, when not nil, is the view whose operations, but lead's,
	// the search does not push (see pruneBefore).
	after []int32
	lead  Pos
	seen  []bool // by stamp of an operation's first event
	stack []Pos
}

// expand pushes the operations that must come after the operation whose
// first event is q, and reports whether p is one of them.
func (c *cycleSearch) expand(q Pos) bool {
	g := c.g
	evs := g.Threads[q.T].Events
	end := g.OpEnd(q)
	for i := q.I; i < end; i++ {
		ev := &evs[i]
		switch ev.Kind {
		case Spawn:
			if t := ev.Lab.Arg; int(t) < len(g.Threads) && len(g.Threads[t].Events) > 0 {
				if c.pushOp(Pos{T: t}) {
					return true
				}
			}
		case End:
			x := Pos{T: q.T, I: i}
			for _, j := range g.joins {
				if g.Ev(j).RF == x && c.pushOp(j) {
					return true
				}
			}
		case Write:
			x := Pos{T: q.T, I: i}
			// The reads of a location with few are scanned here, as
			// ReadsOf would, without its copy of them: calling ReadsOf
			// for those too cost fib_bench 0.5% more instructions.
			if l := &g.Locs[ev.Loc]; len(l.Reads) <= scanned {
				for i, rf := range l.rfs {
					if r := l.Reads[i]; rf == x && c.push(q, end, r) {
						return true
					}
				}
			} else {
				for _, r := range g.ReadsOf(ev.Loc, x) {
					if c.push(q, end, r) {
						return true
					}
				}
			}
			if co, k := g.Locs[ev.Loc].Co, g.CoIndex(ev.Loc, x)+1; k < len(co) && c.push(q, end, co[k]) {
				return true
			}
		case Read:
			if ev.Joins {
				break
			}
			if co, k := g.Locs[ev.Loc].Co, g.CoIndex(ev.Loc, ev.RF)+1; k < len(co) && c.push(q, end, co[k]) {
				return true
			}
		}
	}
	if int(end) < len(evs) {
		return c.pushOp(Pos{T: q.T, I: end})
	}
	return false
}

// push pushes the operation of s, a successor of an event of the operation
// [q.I, end) of q's goroutine, unless s is in that operation or the
// operation was seen; it reports whether that operation is p's.
func (c *cycleSearch) push(q Pos, end int32, s Pos) bool {
	return !inOp(q, end, s) && c.pushOp(c.g.Leader(s))
}

// visitOf is push for a search that looks for no operation in particular.
func (c *cycleSearch) visitOf(q Pos, end int32, s Pos) {
	if !inOp(q, end, s) {
		c.visit(c.g.Leader(s))
	}
}

// inOp reports whether s is in the operation [q.I, end) of q's goroutine.
func inOp(q Pos, end int32, s Pos) bool { return s.T == q.T && s.I >= q.I && s.I < end }

// pushOp is push for s, the first event of another operation than the
// one expanded (the next one in its goroutine, the first of a goroutine it
// spawns, a join of its end): no Leader to look for.
func (c *cycleSearch) pushOp(s Pos) bool {
	if s == c.p {
		return true
	}
	c.visit(s)
	return false
}

// visit pushes s, the first event of an operation, unless it was seen or
// is pruned. An operation pruned is marked seen for good: the writes the
// search looks for later come after the one it was pruned for in
// coherence, and reach it only through a cycle too.
func (c *cycleSearch) visit(s Pos) {
	st := c.g.Ev(s).Stamp
	if c.seen[st] {
		return
	}
	c.seen[st] = true
	if c.after == nil || s == c.lead || !InView(c.after, s) {
		c.stack = append(c.stack, s)
	}
}

// Linearize returns the events for which in returns true in an order that
// respects every edge of succs (a sequentially consistent interleaving),
// the events of an operation together, preferring the earlier added among
// the operations that may come next. The events must be prefix-closed and
// consistent, and contain whole operations.
func (g *Graph) Linearize(in func(Pos) bool) []Pos {
	// The index of each write in its coherence order, and the joins of
	// each end, once: looked up per event, a long execution's (100,000
	// operations on one mutex) took minutes.
	coIdx := map[Pos]int{}
	for l := range g.Locs {
		for i, w := range g.Locs[l].Co {
			coIdx[w] = i
		}
	}
	coIndex := func(_ int32, w Pos) int {
		if w.IsInit() {
			return -1
		}
		return coIdx[w]
	}
	joins := map[Pos][]Pos{}
	for _, j := range g.joins {
		end := g.Ev(j).RF
		joins[end] = append(joins[end], j)
	}
	succs := func(p Pos, f func(Pos)) { g.opSuccsBy(p, in, coIndex, joins, f) }
	indeg := make([]int, len(g.Order))
	n := 0
	for _, p := range g.Order {
		if !in(p) || g.Ev(p).Cont {
			continue
		}
		n++
		succs(p, func(s Pos) { indeg[g.Ev(s).Stamp]++ })
	}
	// ready holds the stamps of the operations whose predecessors are all
	// out, as a min-heap: the earliest added goes first.
	ready := &stampHeap{}
	for _, p := range g.Order {
		if st := g.Ev(p).Stamp; in(p) && !g.Ev(p).Cont && indeg[st] == 0 {
			heap.Push(ready, st)
		}
	}
	out := make([]Pos, 0, len(g.Order))
	ops := 0
	for ready.Len() > 0 {
		p := g.Order[heap.Pop(ready).(int32)]
		ops++
		for i := p.I; i < g.OpEnd(p); i++ {
			if q := (Pos{T: p.T, I: i}); in(q) {
				out = append(out, q)
			}
		}
		succs(p, func(s Pos) {
			st := g.Ev(s).Stamp
			if indeg[st]--; indeg[st] == 0 {
				heap.Push(ready, st)
			}
		})
	}
	if ops < n {
		panic("weft: internal error: cyclic execution graph\n" + g.String())
	}
	return out
}

// stampHeap is a min-heap of stamps.
type stampHeap []int32

func (h stampHeap) Len() int           { return len(h) }
func (h stampHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h stampHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *stampHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *stampHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
