package smt

import (
	"math"
	"slices"

	"weft.dev/weft/internal/sym"
)

// The order fragment: conjunctions of comparisons (==, !=, <, <=) between
// variables and constants, the conditions concurrent data structures put on
// keys, priorities and timestamps. orderSolve decides it without the SAT
// backend: equalities are merged, the comparisons form a graph whose
// cycles must be non-strict (their classes are then equal), bounds come
// from the constants, and the classes get, in topological order, the value
// closest to zero that their bounds and disequalities allow. The model is
// a function of the set of terms. When the greedy choice fails (a
// disequality the bounds leave no room for), the part goes to the backend.
//
// A concolic exploration asks many such queries, so the decision reuses
// the buffers of an orderScratch.

// A literal of the fragment: a op b, with op one of ==, !=, <, <=.
type literal struct {
	a, b sym.Term
	op   sym.Op // OpEq, OpLt, OpLe; OpNot for !=
}

type oedge struct {
	from, to int
	strict   bool
}

// orderScratch holds the buffers of orderSolve between calls.
type orderScratch struct {
	base        []sym.Term
	disj        [][]sym.Term
	lits        []literal
	constTerms  []sym.Term
	consts      []int64
	edges       []oedge
	eqs, diseq  [][2]int
	order       []int
	uf          unionFind
	adj         [][]int
	succ        [][]oedge
	diff        [][]int
	fixed       []int64
	upper       []int64
	lower       []int64
	value       []int64
	assigned    []bool
	indeg       []int
	topo, ready []int
	tarjan      tarjan
}

// literals collects the literals of terms, or reports false if a term is
// not in the order fragment.
func (s *orderScratch) literals(tab *sym.Table, terms []sym.Term) bool {
	s.lits = s.lits[:0]
	leaf := func(t sym.Term) bool {
		_, isVar := tab.IsVar(t)
		c, isConst := tab.IsConst(t)
		return isVar || isConst && c > math.MinInt64/4 && c < math.MaxInt64/4
	}
	var add func(t sym.Term, negated bool) bool
	add = func(t sym.Term, negated bool) bool {
		n := tab.Node(t)
		switch n.Op {
		case sym.OpBAnd:
			return !negated && add(n.Args[0], false) && add(n.Args[1], false)
		case sym.OpNot:
			return !negated && add(n.Args[0], true)
		case sym.OpEq, sym.OpLt, sym.OpLe:
			a, b := n.Args[0], n.Args[1]
			if !leaf(a) || !leaf(b) {
				return false
			}
			switch {
			case !negated:
				s.lits = append(s.lits, literal{a: a, b: b, op: n.Op})
			case n.Op == sym.OpEq:
				s.lits = append(s.lits, literal{a: a, b: b, op: sym.OpNot})
			case n.Op == sym.OpLt: // !(a < b) is b <= a
				s.lits = append(s.lits, literal{a: b, b: a, op: sym.OpLe})
			default: // !(a <= b) is b < a
				s.lits = append(s.lits, literal{a: b, b: a, op: sym.OpLt})
			}
			return true
		}
		return false
	}
	for _, t := range terms {
		if !add(t, false) {
			return false
		}
	}
	return true
}

// resize returns b with length n, reusing its array, each element set to v.
func resize[T any](b []T, n int, v T) []T {
	if cap(b) < n {
		b = make([]T, n)
	}
	b = b[:n]
	for i := range b {
		b[i] = v
	}
	return b
}

// lists returns ls with n empty lists, reusing their arrays.
func lists[T any](ls [][]T, n int) [][]T {
	for len(ls) < n {
		ls = append(ls, nil)
	}
	ls = ls[:n]
	for i := range ls {
		ls[i] = ls[i][:0]
	}
	return ls
}

// maxCases bounds the conjunctions a query with disjunctions is split into.
const maxCases = 64

// solve decides terms if they are in the order fragment, or are
// disjunctions of its formulas (a value out of a range: x < 0 || x >= n):
// those are split into the conjunctions of one disjunct each, tried in a
// fixed order, at most maxCases of them. decided is false when they are
// not, or when the greedy model construction failed.
func (s *orderScratch) solve(tab *sym.Table, terms []sym.Term, vars []int) (res Result, vals []int64, decided bool) {
	s.base, s.disj = s.base[:0], s.disj[:0]
	cases := 1
	for _, t := range terms {
		ds := disjuncts(tab, t, nil)
		if len(ds) < 2 {
			s.base = append(s.base, t)
			continue
		}
		s.disj = append(s.disj, ds)
		if cases *= len(ds); cases > maxCases {
			return Unknown, nil, false
		}
	}
	if len(s.disj) == 0 {
		return s.conj(tab, terms, vars)
	}
	pick := make([]int, len(s.disj))
	for {
		ts := s.base
		for j, ds := range s.disj {
			ts = append(ts, ds[pick[j]])
		}
		s.base = ts[:len(s.base)]
		res, vals, decided := s.conj(tab, ts, vars)
		if !decided || res == Sat {
			return res, vals, decided
		}
		j := 0
		for ; j < len(pick); j++ {
			if pick[j]++; pick[j] < len(s.disj[j]) {
				break
			}
			pick[j] = 0
		}
		if j == len(pick) {
			return Unsat, nil, true
		}
	}
}

// disjuncts appends to ds the disjuncts of t, a disjunction or a negated
// conjunction; a t that is neither is its only disjunct.
func disjuncts(tab *sym.Table, t sym.Term, ds []sym.Term) []sym.Term {
	n := tab.Node(t)
	switch n.Op {
	case sym.OpBOr:
		return disjuncts(tab, n.Args[1], disjuncts(tab, n.Args[0], ds))
	case sym.OpNot:
		if m := tab.Node(n.Args[0]); m.Op == sym.OpBAnd {
			ds = disjuncts(tab, tab.BNot(m.Args[0]), ds)
			return disjuncts(tab, tab.BNot(m.Args[1]), ds)
		}
	}
	return append(ds, t)
}

// conj decides terms, a conjunction, if they are in the order fragment.
func (s *orderScratch) conj(tab *sym.Table, terms []sym.Term, vars []int) (res Result, vals []int64, decided bool) {
	if !s.literals(tab, terms) {
		return Unknown, nil, false
	}
	// Nodes: the variables (by index in vars), then the constants.
	s.constTerms, s.consts = s.constTerms[:0], s.consts[:0]
	node := func(t sym.Term) int {
		if id, isVar := tab.IsVar(t); isVar {
			i, _ := slices.BinarySearch(vars, id)
			return i
		}
		if i := slices.Index(s.constTerms, t); i >= 0 {
			return len(vars) + i
		}
		c, _ := tab.IsConst(t)
		s.constTerms = append(s.constTerms, t)
		s.consts = append(s.consts, c)
		return len(vars) + len(s.consts) - 1
	}
	s.edges, s.eqs, s.diseq = s.edges[:0], s.eqs[:0], s.diseq[:0]
	for _, l := range s.lits {
		a, b := node(l.a), node(l.b)
		switch l.op {
		case sym.OpEq:
			s.eqs = append(s.eqs, [2]int{a, b})
		case sym.OpNot:
			s.diseq = append(s.diseq, [2]int{a, b})
		default:
			s.edges = append(s.edges, oedge{a, b, l.op == sym.OpLt})
		}
	}
	consts := s.consts
	n := len(vars) + len(consts)
	// Constants are ordered among themselves.
	s.order = s.order[:0]
	for i := range consts {
		s.order = append(s.order, i)
	}
	slices.SortFunc(s.order, func(i, j int) int { return cmpInt(consts[i], consts[j]) })
	for k := 1; k < len(s.order); k++ {
		i, j := s.order[k-1], s.order[k]
		if consts[i] != consts[j] {
			s.edges = append(s.edges, oedge{len(vars) + i, len(vars) + j, true})
		}
	}

	// Classes of nodes that must be equal: equalities, then cycles.
	s.uf = s.uf.reset(n)
	uf := s.uf
	for _, e := range s.eqs {
		uf.union(e[0], e[1])
	}
	for {
		s.adj = lists(s.adj, n)
		for _, e := range s.edges {
			a, b := uf.find(e.from), uf.find(e.to)
			s.adj[a] = append(s.adj[a], b)
		}
		comp := s.tarjan.run(n, s.adj, uf)
		merged := false
		for _, e := range s.edges {
			a, b := uf.find(e.from), uf.find(e.to)
			if a != b && comp[a] == comp[b] {
				uf.union(a, b)
				merged = true
			}
		}
		if !merged {
			break
		}
	}
	const none = math.MinInt64
	// The value of each class's constant, if it has one.
	fixed := resize(s.fixed, n, none)
	s.fixed = fixed
	for i, c := range consts {
		r := uf.find(len(vars) + i)
		if v := fixed[r]; v != none && v != c {
			return Unsat, nil, true
		}
		fixed[r] = c
	}
	for _, e := range s.edges {
		if e.strict && uf.find(e.from) == uf.find(e.to) {
			return Unsat, nil, true
		}
	}
	for _, d := range s.diseq {
		if uf.find(d[0]) == uf.find(d[1]) {
			return Unsat, nil, true
		}
	}

	// The classes form a DAG. Visit them in topological order, the class
	// of the smallest node first among the ready ones.
	s.succ = lists(s.succ, n)
	s.indeg = resize(s.indeg, n, 0)
	for _, e := range s.edges {
		a, b := uf.find(e.from), uf.find(e.to)
		if a == b {
			continue
		}
		s.succ[a] = append(s.succ[a], oedge{a, b, e.strict})
		s.indeg[b]++
	}
	s.topo, s.ready = s.topo[:0], s.ready[:0]
	for v := range n {
		if uf.find(v) == v && s.indeg[v] == 0 {
			s.ready = append(s.ready, v)
		}
	}
	for len(s.ready) > 0 {
		k := 0
		for i := range s.ready {
			if s.ready[i] < s.ready[k] {
				k = i
			}
		}
		r := s.ready[k]
		s.ready[k] = s.ready[len(s.ready)-1]
		s.ready = s.ready[:len(s.ready)-1]
		s.topo = append(s.topo, r)
		for _, e := range s.succ[r] {
			if s.indeg[e.to]--; s.indeg[e.to] == 0 {
				s.ready = append(s.ready, e.to)
			}
		}
	}
	// Upper bounds from the constants downstream.
	upper := resize(s.upper, n, 0)
	s.upper = upper
	for i := len(s.topo) - 1; i >= 0; i-- {
		r := s.topo[i]
		u := int64(math.MaxInt64 / 2)
		if v := fixed[r]; v != none {
			u = v
		}
		for _, e := range s.succ[r] {
			u = min(u, upper[e.to]-b2i(e.strict))
		}
		upper[r] = u
	}
	// Values, in topological order: the one closest to zero between the
	// lower bound (the assigned predecessors) and the upper bound, avoiding
	// the values of the classes it must differ from.
	value := resize(s.value, n, 0)
	assigned := resize(s.assigned, n, false)
	lower := resize(s.lower, n, math.MinInt64/2)
	s.value, s.assigned, s.lower = value, assigned, lower
	s.diff = lists(s.diff, n)
	for _, d := range s.diseq {
		a, b := uf.find(d[0]), uf.find(d[1])
		s.diff[a] = append(s.diff[a], b)
		s.diff[b] = append(s.diff[b], a)
	}
	for _, r := range s.topo {
		lo, hi := lower[r], upper[r]
		if v := fixed[r]; v != none {
			lo, hi = max(lo, v), min(hi, v)
		}
		if lo > hi {
			return Unsat, nil, true
		}
		diff := s.diff[r]
		taken := func(v int64) bool {
			for _, o := range diff {
				if assigned[o] && value[o] == v {
					return true
				}
			}
			return false
		}
		v, found := closest(lo, hi, taken, len(diff))
		if !found {
			return Unknown, nil, false
		}
		value[r], assigned[r] = v, true
		for _, e := range s.succ[r] {
			lower[e.to] = max(lower[e.to], v+b2i(e.strict))
		}
	}
	vals = make([]int64, len(vars))
	for i := range vars {
		vals[i] = value[uf.find(i)]
	}
	return Sat, vals, true
}

// closest returns the value in [lo, hi] closest to zero (the non-negative
// one first on a tie) for which taken is false, trying at most tries+1
// values around the first choice.
func closest(lo, hi int64, taken func(int64) bool, tries int) (int64, bool) {
	start := min(max(0, lo), hi)
	for d := int64(0); d <= int64(tries); d++ {
		for _, v := range []int64{start + d, start - d} {
			if v >= lo && v <= hi && !taken(v) {
				return v, true
			}
		}
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type unionFind []int

// reset returns u with n singleton classes, reusing its array.
func (u unionFind) reset(n int) unionFind {
	u = resize(u, n, 0)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

// union merges the classes of a and b; the smaller node represents them.
func (u unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a != b {
		u[max(a, b)] = min(a, b)
	}
}

// tarjan numbers strongly connected components (Tarjan's algorithm),
// keeping its buffers between calls.
type tarjan struct {
	idx, low, comp, stack []int
	on                    []bool
	next, ncomp           int
}

// run numbers the components of the graph adj over the class
// representatives of uf.
func (t *tarjan) run(n int, adj [][]int, uf unionFind) []int {
	t.idx, t.low, t.comp = resize(t.idx, n, -1), resize(t.low, n, 0), resize(t.comp, n, -1)
	t.on = resize(t.on, n, false)
	t.stack = t.stack[:0]
	t.next, t.ncomp = 0, 0
	for v := range n {
		if uf.find(v) == v && t.idx[v] < 0 {
			t.visit(v, adj)
		}
	}
	return t.comp
}

func (t *tarjan) visit(v int, adj [][]int) {
	t.idx[v], t.low[v] = t.next, t.next
	t.next++
	t.stack = append(t.stack, v)
	t.on[v] = true
	for _, w := range adj[v] {
		if t.idx[w] < 0 {
			t.visit(w, adj)
			t.low[v] = min(t.low[v], t.low[w])
		} else if t.on[w] {
			t.low[v] = min(t.low[v], t.idx[w])
		}
	}
	if t.low[v] == t.idx[v] {
		for {
			w := t.stack[len(t.stack)-1]
			t.stack = t.stack[:len(t.stack)-1]
			t.on[w] = false
			t.comp[w] = t.ncomp
			if w == v {
				break
			}
		}
		t.ncomp++
	}
}
