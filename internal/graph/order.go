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
		// The reads of a location with few are scanned: indexing them
		// sorts them, and a read changes its write between most calls.
		// Those of a location with many are found by the index: a long
		// execution has thousands of writes to a mutex and as many reads.
		if reads := g.Locs[ev.Loc].Reads; len(reads) <= scanned {
			for _, r := range reads {
				if g.Ev(r).RF == p && in(r) {
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

// opSuccs calls f with the first event of every operation that must come
// after the operation whose first event is p: the operation is one node,
// its edges those of its events, not counting those between them.
func (g *Graph) opSuccs(p Pos, in func(Pos) bool, f func(Pos)) {
	g.opSuccsBy(p, in, g.CoIndex, nil, f)
}

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
func (g *Graph) Acyclic(p Pos) bool {
	p = g.Leader(p)
	seen := g.seen[:0]
	if cap(seen) < len(g.Order) {
		seen = make([]bool, len(g.Order), 2*len(g.Order))
	} else {
		seen = seen[:len(g.Order)]
		clear(seen)
	}
	stack := append(g.stack[:0], p)
	cycle := false
	for len(stack) > 0 && !cycle {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g.opSuccs(q, all, func(s Pos) {
			if s == p {
				cycle = true
			}
			if st := g.Ev(s).Stamp; !seen[st] {
				seen[st] = true
				stack = append(stack, s)
			}
		})
	}
	g.seen, g.stack = seen, stack
	return !cycle
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
	for t := range g.Threads {
		for i := range g.Threads[t].Events {
			if e := &g.Threads[t].Events[i]; e.Kind == Join {
				joins[e.RF] = append(joins[e.RF], Pos{T: int32(t), I: int32(i)})
			}
		}
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
