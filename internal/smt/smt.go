// Package smt decides conjunctions of symbolic conditions built with package
// sym and produces models for them.
//
// # Determinism
//
// ConDPOR (§4.1 of the paper) needs the model returned for a formula to
// depend on the formula alone: two executions that reach the same path
// condition along different histories must agree on its model, or a
// revisit may be skipped by both. A solver's model depends on the order
// of its input and on whatever state earlier queries left behind, so this
// package takes two measures.
//
// First, every independent part of a query (see below) is decided by a
// fresh backend instance: a new gini solver, or a new Z3 context. Its
// input is emitted in an order that depends only on the part's set of
// terms: terms in increasing Term order, each translated after its
// operands, and the variables in increasing id order. Both solvers are
// deterministic for a given input (gini uses no randomness and no clock
// unless given a deadline; Z3 runs single-threaded with its fixed default
// seed), so the model is a function of the set of terms. A fresh gini
// instance costs about 60µs and a Z3 context about 1ms; reusing one
// instance with learned clauses would save that but would make the first
// model depend on earlier queries.
//
// Second, the model a backend happens to find is improved into the least
// model in a fixed order: variables are compared by increasing id, and the
// values of one variable in the order
//
//	0 < 1 < 2 < ... < MaxInt64 < -1 < -2 < ... < MinInt64
//
// so the model is the satisfying assignment closest to zero, preferring
// non-negative values and earlier variables. The least model is a function
// of the formula's meaning alone: it does not depend on term numbering,
// on caching or on the backend, and the builtin and z3 backends agree on
// it, which the tests check. Computing it costs extra satisfiability
// checks with a constraint on one variable each (see leastModel): a
// typical path condition over a few variables takes about ten, each much
// cheaper than the first. The search is bounded, so a variable whose
// least value is a large number unrelated to the formula's constants keeps
// the best value found; Stats.NotLeast counts such parts. Their models are
// still deterministic, by the first measure.
//
// # Query pipeline
//
// Check normalizes a query to the sorted set of its distinct non-constant
// terms; a constant false term makes it unsatisfiable at once and constant
// true terms are dropped, so trivial queries never reach a backend. The
// remaining terms are split into independent parts that share no variables
// (as in KLEE): a conjunction of independent parts is satisfiable iff each
// part is, and its least model is the union of theirs, so parts are decided
// and cached separately. A concolic path condition typically grows by one
// branch condition at a time, and the parts it does not touch are then
// answered from the cache.
//
// The cache is an LRU map from the sorted term ids of a part to its result
// and model, bounded to CacheSize entries. Term ids identify expressions
// only within one sym.Table, so the cache is cleared when a Solver is used
// with a different Table.
//
// # Backends
//
// The builtin backend bit-blasts terms into the pure-Go SAT solver gini.
// The circuits are ripple-carry adders; a multiplier that recodes a
// constant factor into signed digits (non-adjacent form) and otherwise
// adds shifted partial products, computing only the low 64 bits; a
// restoring divider on magnitudes whose partial remainder grows one bit
// per step, with the signs fixed up as in SMT-LIB bvsdiv and bvsrem;
// logarithmic barrel shifters; and signed comparators. Division by a
// constant is not a circuit: the quotient and remainder are fresh words
// constrained by n = q*d + r without overflow and r < d, which SAT solvers
// handle far better. A conjunct x == k makes the circuits see the constant
// k. Gates are ANDs, XORs and multiplexers, folded with constants and
// structurally hashed.
//
// The z3 backend loads libz3 at run time through purego, without cgo, and
// installs an error handler that turns Z3 errors into Go errors instead of
// exiting. It is optional: when the library is missing, New("z3") fails
// with a message saying how to install it. It gives Z3 the terms as
// bit-vector formulas, except that division by a constant is defined as in
// the builtin backend, since Z3's dividers make every check slow.
package smt

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"weft.dev/weft/internal/sym"
)

// Result is the outcome of a satisfiability check.
type Result int

// The possible results of a check.
const (
	Unknown Result = iota
	Sat
	Unsat
)

// String returns "sat", "unsat" or "unknown".
func (r Result) String() string {
	switch r {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	}
	return "unknown"
}

// Solver decides conjunctions of Bool terms. A Solver is not safe for
// concurrent use.
type Solver interface {
	// Check reports whether the conjunction of the Bool terms is
	// satisfiable and, when it is, returns its least model (see the
	// package documentation), or the first one found for a Solver made
	// with First. The result and the model depend only on the set of
	// terms: not on their order, duplicates or earlier queries.
	// Variables that do not occur in the terms are unset in the model.
	// An empty conjunction is satisfiable.
	Check(tab *sym.Table, terms []sym.Term) (Result, sym.Model, error)

	// Push opens a scope of assertions.
	Push()
	// Pop discards the assertions made since the matching Push. It panics
	// if there is no open scope.
	Pop()
	// Assert adds the Bool term t of tab to the current scope. It panics
	// if t is not a Bool term, or if tab differs from the Table of
	// assertions already made.
	Assert(tab *sym.Table, t sym.Term)
	// CheckAssert is Check of the set of terms asserted in all open scopes,
	// with the same determinism.
	CheckAssert() (Result, sym.Model, error)

	// Stats returns counters accumulated since the Solver was created.
	Stats() Stats
	// Close releases the backend's resources. A closed Solver must not be
	// used.
	Close() error
}

// Stats counts the work done by a Solver.
type Stats struct {
	Queries   int           // calls of Check and CheckAssert
	Calls     int           // independent parts decided by the backend
	CacheHits int           // independent parts answered from the cache
	Solves    int           // backend satisfiability checks, including those that compute least models
	NotLeast  int           // parts whose model search ran out of budget before proving its model least
	Ordered   int           // parts of the order fragment decided without the backend (First models)
	Time      time.Duration // time spent in the backend
}

// CacheSize is the number of independent parts a Solver remembers.
const CacheSize = 4096

// backends lists the names New accepts; the first is the default.
var backends = []string{"builtin", "z3"}

// Models says which model Check returns for a satisfiable query.
type Models int

// The kinds of models.
const (
	// Least is the least model in the fixed order of the package
	// documentation: the same whatever the backend, at the price of extra
	// checks (several per variable).
	Least Models = iota
	// First is the first model the backend finds for the query, built in
	// a canonical order into a fresh solver: still a function of the set
	// of terms for a given backend, for one check.
	First
)

// New returns a Solver using the named backend: "builtin" (also selected by
// the empty name) or "z3". Check returns least models.
func New(name string) (Solver, error) { return NewWith(name, Least) }

// NewWith is New with the kind of models Check returns.
func NewWith(name string, models Models) (Solver, error) {
	var b backend
	switch name {
	case "", "builtin":
		b = newBuiltin()
	case "z3":
		z, err := newZ3()
		if err != nil {
			return nil, err
		}
		b = z
	default:
		return nil, fmt.Errorf("smt: unknown solver %q (valid: %s)", name, strings.Join(backends, ", "))
	}
	return &solver{b: b, cache: newLRU(CacheSize), least: models == Least}, nil
}

// A backend decides one independent part of a query.
type backend interface {
	// solve decides the conjunction of terms, whose variables are vars
	// (sorted, distinct), and on Sat computes its model with leastModel
	// (least) or firstModel.
	solve(tab *sym.Table, terms []sym.Term, vars []int, least bool) (outcome, error)
	close() error
}

type solver struct {
	b      backend
	least  bool // Check returns least models
	order  orderScratch
	cache  *lru
	tab    *sym.Table // the Table whose term ids key the cache
	stats  Stats
	closed bool

	assertTab *sym.Table
	asserted  []sym.Term
	scopes    []int // len(asserted) at each Push
}

func (s *solver) Stats() Stats { return s.stats }

func (s *solver) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.b.close()
}

func (s *solver) Push() { s.scopes = append(s.scopes, len(s.asserted)) }

func (s *solver) Pop() {
	if len(s.scopes) == 0 {
		panic("smt: Pop without Push")
	}
	n := s.scopes[len(s.scopes)-1]
	s.scopes = s.scopes[:len(s.scopes)-1]
	s.asserted = s.asserted[:n]
	if n == 0 {
		s.assertTab = nil
	}
}

func (s *solver) Assert(tab *sym.Table, t sym.Term) {
	if s.assertTab != nil && s.assertTab != tab {
		panic("smt: Assert with terms of two Tables")
	}
	if tab.Sort(t) != sym.Bool {
		panic(fmt.Sprintf("smt: Assert of non-Bool term %s", tab.String(t)))
	}
	s.assertTab = tab
	s.asserted = append(s.asserted, t)
}

func (s *solver) CheckAssert() (Result, sym.Model, error) {
	if s.assertTab == nil {
		s.stats.Queries++
		return Sat, sym.Model{}, nil
	}
	return s.Check(s.assertTab, s.asserted)
}

func (s *solver) Check(tab *sym.Table, terms []sym.Term) (Result, sym.Model, error) {
	if s.closed {
		return Unknown, sym.Model{}, fmt.Errorf("smt: Check on a closed solver")
	}
	s.stats.Queries++
	if s.tab != tab {
		s.tab = tab
		s.cache.clear()
	}
	set := make([]sym.Term, 0, len(terms))
	for _, t := range terms {
		if tab.Sort(t) != sym.Bool {
			return Unknown, sym.Model{}, fmt.Errorf("smt: check of non-Bool term %s", tab.String(t))
		}
		if v, ok := tab.IsBoolConst(t); ok {
			if !v {
				return Unsat, sym.Model{}, nil
			}
			continue
		}
		set = append(set, t)
	}
	slices.Sort(set)
	set = slices.Compact(set)

	var model sym.Model
	res := Sat
	for _, p := range split(tab, set) {
		r, vals, err := s.part(tab, p)
		if err != nil {
			return Unknown, sym.Model{}, err
		}
		switch r {
		case Unsat:
			return Unsat, sym.Model{}, nil
		case Unknown:
			res = Unknown
		case Sat:
			for i, id := range p.vars {
				model.Set(id, vals[i])
			}
		}
	}
	if res != Sat {
		return res, sym.Model{}, nil
	}
	return Sat, model, nil
}

// part decides one independent part, through the cache.
func (s *solver) part(tab *sym.Table, p part) (Result, []int64, error) {
	key := cacheKey(p.terms)
	if e, ok := s.cache.get(key); ok {
		s.stats.CacheHits++
		return e.res, e.vals, nil
	}
	start := time.Now()
	if !s.least {
		if res, vals, ok := s.order.solve(tab, p.terms, p.vars); ok {
			s.stats.Time += time.Since(start)
			s.stats.Ordered++
			s.cache.put(key, entry{res: res, vals: vals})
			return res, vals, nil
		}
	}
	out, err := s.b.solve(tab, p.terms, p.vars, s.least)
	s.stats.Time += time.Since(start)
	s.stats.Calls++
	s.stats.Solves += out.checks
	if err != nil {
		return Unknown, nil, err
	}
	if out.res == Sat && s.least && !out.least {
		s.stats.NotLeast++
	}
	if out.res != Unknown {
		s.cache.put(key, entry{res: out.res, vals: out.vals})
	}
	return out.res, out.vals, nil
}

// part is an independent part of a query: terms sorted by id, and the
// sorted variables they mention, which no other part mentions.
type part struct {
	terms []sym.Term
	vars  []int
}

// split partitions the sorted, distinct terms into independent parts,
// ordered by their first term. Each part's terms stay sorted.
func split(tab *sym.Table, terms []sym.Term) []part {
	if len(terms) == 1 {
		return []part{{terms: terms, vars: tab.Vars(terms[0])}}
	}
	// Union-find over term indices, joined through shared variables.
	parent := make([]int, len(terms))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := make(map[int]int) // variable -> index of a term that mentions it
	termVars := make([][]int, len(terms))
	for i, t := range terms {
		termVars[i] = tab.Vars(t)
		for _, v := range termVars[i] {
			if j, ok := owner[v]; ok {
				a, b := find(i), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			} else {
				owner[v] = i
			}
		}
	}
	// Roots are the smallest index in their class, so visiting terms in
	// order lists parts by first term.
	index := make(map[int]int)
	var parts []part
	for i, t := range terms {
		r := find(i)
		k, ok := index[r]
		if !ok {
			k = len(parts)
			index[r] = k
			parts = append(parts, part{})
		}
		parts[k].terms = append(parts[k].terms, t)
		parts[k].vars = append(parts[k].vars, termVars[i]...)
	}
	for k := range parts {
		slices.Sort(parts[k].vars)
		parts[k].vars = slices.Compact(parts[k].vars)
	}
	return parts
}
