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

// A literal of the fragment: a op b, with op one of ==, !=, <, <=.
type literal struct {
	a, b sym.Term
	op   sym.Op // OpEq, OpLt, OpLe; OpNot for !=
}

// orderLiterals returns the literals of terms, or false if a term is not
// in the order fragment.
func orderLiterals(tab *sym.Table, terms []sym.Term) ([]literal, bool) {
	var out []literal
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
				out = append(out, literal{a: a, b: b, op: n.Op})
			case n.Op == sym.OpEq:
				out = append(out, literal{a: a, b: b, op: sym.OpNot})
			case n.Op == sym.OpLt: // !(a < b) is b <= a
				out = append(out, literal{a: b, b: a, op: sym.OpLe})
			default: // !(a <= b) is b < a
				out = append(out, literal{a: b, b: a, op: sym.OpLt})
			}
			return true
		}
		return false
	}
	for _, t := range terms {
		if !add(t, false) {
			return nil, false
		}
	}
	return out, true
}

// orderSolve decides terms if they are in the order fragment. decided is
// false when they are not, or when the greedy model construction failed.
func orderSolve(tab *sym.Table, terms []sym.Term, vars []int) (res Result, vals []int64, decided bool) {
	lits, ok := orderLiterals(tab, terms)
	if !ok {
		return Unknown, nil, false
	}
	// Nodes: the variables (by index in vars), then the constants.
	index := map[sym.Term]int{}
	var consts []int64 // by node - len(vars), the constant of a constant node
	node := func(t sym.Term) int {
		if i, ok := index[t]; ok {
			return i
		}
		var i int
		if id, isVar := tab.IsVar(t); isVar {
			i, _ = slices.BinarySearch(vars, id)
		} else {
			c, _ := tab.IsConst(t)
			i = len(vars) + len(consts)
			consts = append(consts, c)
		}
		index[t] = i
		return i
	}
	type edge struct {
		from, to int
		strict   bool
	}
	var edges []edge
	var diseq [][2]int
	var eqs [][2]int
	for _, l := range lits {
		a, b := node(l.a), node(l.b)
		switch l.op {
		case sym.OpEq:
			eqs = append(eqs, [2]int{a, b})
		case sym.OpNot:
			diseq = append(diseq, [2]int{a, b})
		default:
			edges = append(edges, edge{a, b, l.op == sym.OpLt})
		}
	}
	n := len(vars) + len(consts)
	// Constants are ordered among themselves.
	order := make([]int, len(consts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmpInt(consts[i], consts[j]) })
	for k := 1; k < len(order); k++ {
		i, j := order[k-1], order[k]
		if consts[i] != consts[j] {
			edges = append(edges, edge{len(vars) + i, len(vars) + j, true})
		}
	}

	// Classes of nodes that must be equal: equalities, then cycles.
	uf := newUnionFind(n)
	for _, e := range eqs {
		uf.union(e[0], e[1])
	}
	adj := make([][]int, n)
	for {
		for v := range adj {
			adj[v] = adj[v][:0]
		}
		for _, e := range edges {
			a, b := uf.find(e.from), uf.find(e.to)
			adj[a] = append(adj[a], b)
		}
		comp := sccs(n, adj, uf)
		merged := false
		for _, e := range edges {
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
	fixed := make([]int64, n)
	for i := range fixed {
		fixed[i] = none
	}
	for i, c := range consts {
		r := uf.find(len(vars) + i)
		if v := fixed[r]; v != none && v != c {
			return Unsat, nil, true
		}
		fixed[r] = c
	}
	for _, e := range edges {
		if e.strict && uf.find(e.from) == uf.find(e.to) {
			return Unsat, nil, true
		}
	}
	for _, d := range diseq {
		if uf.find(d[0]) == uf.find(d[1]) {
			return Unsat, nil, true
		}
	}

	// The classes form a DAG. Visit them in topological order, the class
	// of the smallest node first among the ready ones.
	succ := make([][]edge, n)
	indeg := make([]int, n)
	for _, e := range edges {
		a, b := uf.find(e.from), uf.find(e.to)
		if a == b {
			continue
		}
		succ[a] = append(succ[a], edge{a, b, e.strict})
		indeg[b]++
	}
	var topo, ready []int
	for v := range n {
		if uf.find(v) == v && indeg[v] == 0 {
			ready = append(ready, v)
		}
	}
	for len(ready) > 0 {
		k := 0
		for i := range ready {
			if ready[i] < ready[k] {
				k = i
			}
		}
		r := ready[k]
		ready[k] = ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		topo = append(topo, r)
		for _, e := range succ[r] {
			if indeg[e.to]--; indeg[e.to] == 0 {
				ready = append(ready, e.to)
			}
		}
	}
	// Upper bounds from the constants downstream.
	upper := make([]int64, n)
	for i := len(topo) - 1; i >= 0; i-- {
		r := topo[i]
		u := int64(math.MaxInt64 / 2)
		if v := fixed[r]; v != none {
			u = v
		}
		for _, e := range succ[r] {
			u = min(u, upper[e.to]-b2i(e.strict))
		}
		upper[r] = u
	}
	// Values, in topological order: the one closest to zero between the
	// lower bound (the assigned predecessors) and the upper bound, avoiding
	// the values of the classes it must differ from.
	value := make([]int64, n)
	assigned := make([]bool, n)
	lower := make([]int64, n)
	for i := range lower {
		lower[i] = math.MinInt64 / 2
	}
	diff := make([][]int, n)
	for _, d := range diseq {
		a, b := uf.find(d[0]), uf.find(d[1])
		diff[a] = append(diff[a], b)
		diff[b] = append(diff[b], a)
	}
	for _, r := range topo {
		lo, hi := lower[r], upper[r]
		if v := fixed[r]; v != none {
			lo, hi = max(lo, v), min(hi, v)
		}
		if lo > hi {
			return Unsat, nil, true
		}
		taken := func(v int64) bool {
			for _, o := range diff[r] {
				if assigned[o] && value[o] == v {
					return true
				}
			}
			return false
		}
		v, found := closest(lo, hi, taken, len(diff[r]))
		if !found {
			return Unknown, nil, false
		}
		value[r], assigned[r] = v, true
		for _, e := range succ[r] {
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

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
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

// sccs numbers the strongly connected components of the graph adj over
// the class representatives of uf (Tarjan's algorithm).
func sccs(n int, adj [][]int, uf unionFind) []int {
	idx := make([]int, n)
	low := make([]int, n)
	comp := make([]int, n)
	on := make([]bool, n)
	for i := range idx {
		idx[i], comp[i] = -1, -1
	}
	var stack []int
	next, ncomp := 0, 0
	var visit func(v int)
	visit = func(v int) {
		idx[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range adj[v] {
			if idx[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], idx[w])
			}
		}
		if low[v] == idx[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for v := range n {
		if uf.find(v) == v && idx[v] < 0 {
			visit(v)
		}
	}
	return comp
}
