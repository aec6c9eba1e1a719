// Package ic synthesizes the independence constraints (ICs) of critical
// sections whose effects a program declares, as the CDPOR paper (Albert,
// Gómez-Zamalloa, Isabel, Rubio, CAV 2018, §4.1) synthesizes them with an
// SMT solver, for package cdpor to explore by.
//
// An effect (weft/sync's Monitor) is a Go function over symbolic integers
// that updates a small integer state in place, reading it and the
// section's arguments, and returns the section's results. Run on symbolic
// inputs, with every branch explored, it is the paper's transition
// system: a set of paths, each a condition on the inputs and the outputs
// (the new state, then the results) as terms. Composing two effects in
// both orders gives the paper's Def. 5, here with the results: the IC of
// effects a and b is
//
//	F(s, x, y) = ∨ (Ci ∧ Cj ∧ Si = Sj ∧ Ri = Rj)
//
// over the pre-state s and the arguments x of a and y of b, where i ranges
// over the paths of a then b from s, j over those of b then a, S is the
// final state and R the results of both sections. Where F holds, either
// order reaches the same state and gives each section the same results,
// so that the goroutines go on alike: condition (i2) of the paper's
// Def. 1. The solver classifies F: valid (the sections always commute),
// unsatisfiable (never), or a condition on the state and arguments.
//
// A condition is used only when it is transitively uniform (the paper's
// Def. 3): it must stay true whatever other sections run while the pair
// waits. The paper proves that with a static set of what each block may
// write; here every section that can change the state is declared (the
// state is the Monitor's, which only its effects touch), so the package
// proves instead that F is inductive: for every declared effect c and
// every path of c, F(s, x, y) ∧ C(s, z) ⇒ F(c(s, z), x, y), an SMT query
// per path. Then F, once true, is true in every state reachable from
// there, which is what Def. 3 asks. It subsumes the paper's Def. 4 with W
// the variables the declared effects write: an effect that writes none
// of F's variables preserves it, and one that writes them may too (a
// resolved flag that is only ever set). When F is not inductive, the IC is
// the largest disjunction of F's disjuncts that is (a greatest fixed
// point), as the paper checks each constraint of an IC on its own; when
// none is, the pair's condition is not used (Unproven): the paper's
// Example 4 is such a case.
//
// Each check has a Synthesizer of its own, which caches the analyses by
// the terms of the effects' paths (hash-consed in one table), so that a
// program that builds its monitor in every execution synthesizes once per
// check, and evaluating a condition at run time is evaluating a term, with
// no solver call.
package ic

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// Run runs the effect f (a func(state, args []sym.Int) []sym.Int of
// weft/sym) on the inputs state and args, terms of tab, and returns its
// outputs: the state after it, then its results. The caller routes the
// goroutine's symbolic operations to tab and decides its branches
// (runtime.WithSymHook). Package weft/sym sets it, since only it can make
// its values of terms.
var Run func(f any, tab *sym.Table, state, args []sym.Term) []sym.Term

// Effect is a declared effect: its function (see Run) and how many
// arguments it takes.
type Effect struct {
	F    any
	Args int
}

// Kind is what the synthesis found of a pair of effects.
type Kind uint8

// The kinds of pairs.
const (
	// Never: no state is known where the two orders agree (F is
	// unsatisfiable, or an effect could not be analysed).
	Never Kind = iota
	// Always: the two orders agree from every state (F is valid).
	Always
	// When: the orders agree where the IC holds, and every declared
	// effect preserves it: the IC is F, or the largest part of F made of
	// its disjuncts that the effects preserve.
	When
	// Unproven: the orders agree where F holds, but the solver could
	// show no part of it that every declared effect preserves; it is not
	// used.
	Unproven
)

func (k Kind) String() string {
	return [...]string{"never", "always", "when", "unproven"}[k]
}

// Pair is the IC of two effects a and b, a first.
type Pair struct {
	Kind Kind
	// IC is the condition, a Bool term over the state (variables 0 to
	// n-1, n the size of the state), a's arguments (variables from
	// Base(n, 0)) and b's (from Base(n, 1)): F, or for When the part of F
	// that the effects preserve.
	IC sym.Term
}

// Analysis is what the synthesis found of the effects of one monitor. A
// pair is synthesized when it is first asked for (Pair): an exploration
// meets few of the pairs of many declared effects, and each costs solver
// calls for F and for every declared effect's paths.
type Analysis struct {
	s     *synthesis // the effects, on the synthesizer's table
	pairs []Pair     // a*len(effects)+b
	known []bool     // the pairs synthesized so far
}

// maxArgs bounds the arguments of an effect: its variables are laid out
// in slots of that many.
const maxArgs = 1 << 10

// Base returns the first variable of the arguments in slot k (0: the first
// section of a pair, 1: the second, 2: the effect that the induction
// steps over) for a state of n integers.
func Base(n, k int) int { return n + k*maxArgs }

// maxPaths bounds the paths of a run of one effect, or of two composed,
// and maxBranches the branches of one path (a loop on a symbolic bound
// has paths of every length); an effect with more is not analysed.
const (
	maxPaths    = 256
	maxBranches = 64
)

// tooLong is the panic that ends a path of more than maxBranches.
type tooLong struct{}

// A Synthesizer synthesizes the analyses of one check's monitors with its
// own solver, and keeps them by the terms of their effects' paths
// (hash-consed in one table), so that a program that builds its monitor
// in every execution synthesizes once per check: ForCheck gives each check
// its own, which the parts of a parallel exploration share. Its analyses
// synthesize and evaluate their conditions on its table, one at a time
// (mu): the parts, each on a worker of its own, ask at once.
type Synthesizer struct {
	mu     sync.Mutex
	tab    *sym.Table
	solver smt.Solver
	cache  map[string]*Analysis
}

// NewSynthesizer returns a synthesizer with a table and a solver of its
// own.
func NewSynthesizer() (*Synthesizer, error) {
	s, err := smt.NewWith("builtin", smt.First)
	if err != nil {
		return nil, fmt.Errorf("the solver of the independence constraints: %w", err)
	}
	return &Synthesizer{tab: sym.NewTable(), solver: s, cache: map[string]*Analysis{}}, nil
}

// Close closes the synthesizer's solver.
func (z *Synthesizer) Close() error { return z.solver.Close() }

// Table returns the table of the analyses' terms.
func (z *Synthesizer) Table() *sym.Table { return z.tab }

// synthesizerKey names the synthesizer of a check (runtime.CheckLocal).
type synthesizerKey struct{}

// ForCheck returns the synthesizer of the running check, made at its first
// call in the check and closed when the check ends.
func ForCheck() (*Synthesizer, error) {
	v := runtime.CheckLocal(synthesizerKey{}, func() any {
		z, err := NewSynthesizer()
		if err != nil {
			return err
		}
		return z
	})
	if err, ok := v.(error); ok {
		return nil, err
	}
	return v.(*Synthesizer), nil
}

// Analyze returns the analysis of effects over a state of n integers,
// synthesizing it the first time these effects are met. It fails when an
// effect takes more arguments than the package handles.
func (z *Synthesizer) Analyze(n int, effects []Effect) (*Analysis, error) {
	if err := check(effects); err != nil {
		return nil, err
	}
	return z.analyze(n, effects), nil
}

// check fails when an effect takes more arguments than the package
// handles.
func check(effects []Effect) error {
	for _, e := range effects {
		if e.Args < 0 || e.Args > maxArgs {
			return fmt.Errorf("an effect takes %d arguments, more than %d", e.Args, maxArgs)
		}
	}
	return nil
}

// Declared is the effects of one monitor, analysed when an engine first
// asks (Analysis): only cdpor does, so that the other engines, which
// explore every order of the sections, pay nothing for the synthesis.
type Declared struct {
	z       *Synthesizer
	n       int
	effects []Effect
	a       *Analysis
}

// Declare returns the effects over a state of n integers, to be analysed
// by z when an engine asks. It fails as Analyze does.
func (z *Synthesizer) Declare(n int, effects []Effect) (*Declared, error) {
	if err := check(effects); err != nil {
		return nil, err
	}
	return &Declared{z: z, n: n, effects: effects}, nil
}

// Analysis returns the analysis of the effects, synthesizing it at the
// first call for these effects in the check.
func (d *Declared) Analysis() *Analysis {
	if d.a == nil {
		d.a = d.z.analyze(d.n, d.effects)
	}
	return d.a
}

// analyze is Analyze for effects that check accepts.
func (z *Synthesizer) analyze(n int, effects []Effect) *Analysis {
	z.mu.Lock()
	defer z.mu.Unlock()
	s := &synthesis{z: z, tab: z.tab, n: n, effects: effects}
	var a *Analysis
	// The effects run with the goroutine's symbolic operations going to
	// s, which decides their branches (see run).
	runtime.WithSymHook(s, func() {
		key := s.key()
		if a = z.cache[key]; a == nil {
			a = s.analyze()
			z.cache[key] = a
		}
	})
	return a
}

// Pair returns the IC of effects i and j, i first.
func (a *Analysis) Pair(i, j int) Pair {
	a.s.z.mu.Lock()
	defer a.s.z.mu.Unlock()
	return a.pair(i, j)
}

// pair is Pair, under the synthesizer's lock.
func (a *Analysis) pair(i, j int) Pair {
	k := i*len(a.s.effects) + j
	if !a.known[k] {
		runtime.WithSymHook(a.s, func() { a.pairs[k] = a.s.pair(i, j) })
		a.known[k] = true
	}
	return a.pairs[k]
}

// Commute reports whether sections of effects i (with arguments x) and j
// (arguments y) commute uniformly in the state s: their IC is valid, or
// it holds in s and every declared effect preserves it.
func (a *Analysis) Commute(i, j int, s, x, y []int64) bool {
	a.s.z.mu.Lock()
	defer a.s.z.mu.Unlock()
	p := a.pair(i, j)
	switch p.Kind {
	case Always:
		return true
	case When:
	default:
		return false
	}
	var m sym.Model
	for k, v := range s {
		m.Set(k, v)
	}
	for k, v := range x {
		m.Set(Base(a.s.n, 0)+k, v)
	}
	for k, v := range y {
		m.Set(Base(a.s.n, 1)+k, v)
	}
	return a.s.tab.EvalBool(p.IC, m)
}

// synthesis is the analysis of one set of effects in progress.
type synthesis struct {
	z       *Synthesizer
	tab     *sym.Table
	n       int
	effects []Effect
	// paths holds the paths of each effect on fresh inputs (arguments in
	// slot 0), opaque whether an effect could not be analysed.
	paths  [][]path
	opaque bool
	// decide decides the branches of the run in progress.
	decide func(sym.Term) bool
}

// path is one path of a run: its condition, its outputs (the state, then
// the results), and whether it panicked (then it has no outputs).
type path struct {
	cond   sym.Term
	out    []sym.Term
	panics bool
}

func (s *synthesis) vars(base, n int) []sym.Term {
	ts := make([]sym.Term, n)
	for i := range ts {
		ts[i] = s.tab.Var(base + i)
	}
	return ts
}

// key runs every effect on fresh inputs and returns its paths' terms,
// which determine the analysis.
func (s *synthesis) key() string {
	b := binary.AppendUvarint(nil, uint64(s.n))
	state := s.vars(0, s.n)
	for _, e := range s.effects {
		ps, ok := s.run(e, s.tab.True(), state, s.vars(Base(s.n, 0), e.Args))
		if !ok {
			s.opaque = true
		}
		s.paths = append(s.paths, ps)
		b = binary.AppendUvarint(b, uint64(e.Args))
		b = binary.AppendUvarint(b, uint64(len(ps)))
		for _, p := range ps {
			b = binary.AppendUvarint(b, uint64(p.cond)<<1|b2u(p.panics))
			b = binary.AppendUvarint(b, uint64(len(p.out)))
			for _, t := range p.out {
				b = binary.AppendUvarint(b, uint64(t))
			}
		}
	}
	b = append(b, b2u8(s.opaque))
	return string(b)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func b2u8(b bool) byte { return byte(b2u(b)) }

// run returns the paths of e from the inputs, under the condition pre,
// exploring each sequence of branch outcomes (the goroutine's symbolic
// operations go to s: see Analyze); ok is false when e could not
// be analysed (too many paths, or an operation an effect may not do).
func (s *synthesis) run(e Effect, pre sym.Term, state, args []sym.Term) (ps []path, ok bool) {
	todo := [][]bool{nil}
	for len(todo) > 0 {
		prefix := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if len(ps) >= maxPaths {
			return nil, false
		}
		p := path{cond: pre}
		var taken []bool
		s.decide = func(t sym.Term) bool {
			if len(taken) == maxBranches {
				panic(tooLong{})
			}
			v := true
			if len(taken) < len(prefix) {
				v = prefix[len(taken)]
			} else {
				todo = append(todo, append(append([]bool(nil), taken...), false))
			}
			taken = append(taken, v)
			if v {
				p.cond = s.tab.BAnd(p.cond, t)
			} else {
				p.cond = s.tab.BAnd(p.cond, s.tab.BNot(t))
			}
			return v
		}
		misuse := false
		func() {
			defer func() {
				if r := recover(); r != nil {
					_, misuse = r.(runtime.EffectMisuse)
					_, long := r.(tooLong)
					misuse = misuse || long
					p.panics = true
				}
			}()
			p.out = Run(e.F, s.tab, state, args)
		}()
		if misuse {
			return nil, false
		}
		if c, isConst := s.tab.IsBoolConst(p.cond); isConst && !c {
			continue
		}
		ps = append(ps, p)
	}
	return ps, true
}

// Table implements runtime.SymHook.
func (s *synthesis) Table() *sym.Table { return s.tab }

// Branch implements runtime.SymHook: the run in progress decides.
func (s *synthesis) Branch(t sym.Term) bool { return s.decide(t) }

// composed is a path of two effects run one after the other: its
// condition, the final state, and the results of the first and the second.
type composed struct {
	cond          sym.Term
	state         []sym.Term
	first, second []sym.Term
}

// compose returns the paths of effect a with arguments x then b with
// arguments y, from the state, leaving out those that panic.
func (s *synthesis) compose(a, b int, state, x, y []sym.Term) ([]composed, bool) {
	pa, ok := s.run(s.effects[a], s.tab.True(), state, x)
	if !ok {
		return nil, false
	}
	var cs []composed
	for _, p := range pa {
		if p.panics {
			continue
		}
		pb, ok := s.run(s.effects[b], p.cond, p.out[:s.n], y)
		if !ok || len(cs)+len(pb) > maxPaths {
			return nil, false
		}
		for _, q := range pb {
			if !q.panics {
				cs = append(cs, composed{cond: q.cond, state: q.out[:s.n], first: p.out[s.n:], second: q.out[s.n:]})
			}
		}
	}
	return cs, true
}

// ic returns the disjuncts of F for effects a (arguments x) and b
// (arguments y) from the state, those the constructors do not fold to
// false; none when a run could not be analysed.
func (s *synthesis) ic(a, b int, state, x, y []sym.Term) []sym.Term {
	tab := s.tab
	ab, ok1 := s.compose(a, b, state, x, y)
	ba, ok2 := s.compose(b, a, state, y, x)
	if !ok1 || !ok2 {
		return nil
	}
	var ds []sym.Term
	for _, p := range ab {
		for _, q := range ba {
			// q ran b first: its first results are b's.
			c := tab.BAnd(p.cond, q.cond)
			c = tab.BAnd(c, s.equal(p.state, q.state))
			c = tab.BAnd(c, s.equal(p.first, q.second))
			c = tab.BAnd(c, s.equal(p.second, q.first))
			if v, ok := tab.IsBoolConst(c); !ok || v {
				ds = append(ds, c)
			}
		}
	}
	return ds
}

// or returns the disjunction of ds.
func (s *synthesis) or(ds []sym.Term) sym.Term {
	f := s.tab.False()
	for _, d := range ds {
		f = s.tab.BOr(f, d)
	}
	return f
}

// equal returns the condition that two lists of terms are equal, false
// when their lengths differ.
func (s *synthesis) equal(xs, ys []sym.Term) sym.Term {
	if len(xs) != len(ys) {
		return s.tab.False()
	}
	c := s.tab.True()
	for i := range xs {
		c = s.tab.BAnd(c, s.tab.Eq(xs[i], ys[i]))
	}
	return c
}

// analyze returns the analysis of the effects, whose pairs Pair
// synthesizes when first asked for.
func (s *synthesis) analyze() *Analysis {
	n := len(s.effects) * len(s.effects)
	return &Analysis{s: s, pairs: make([]Pair, n), known: make([]bool, n)}
}

// pair synthesizes the IC of effects i and j, i first.
func (s *synthesis) pair(i, j int) Pair {
	if s.opaque {
		return Pair{Kind: Never}
	}
	state := s.vars(0, s.n)
	x, y := s.vars(Base(s.n, 0), s.effects[i].Args), s.vars(Base(s.n, 1), s.effects[j].Args)
	ds := s.ic(i, j, state, x, y)
	f := s.or(ds)
	p := Pair{IC: f}
	switch {
	case !s.holds(f):
		p.Kind = Never
	case !s.holds(s.tab.BNot(f)):
		p.Kind = Always
	default:
		p.Kind = Unproven
		if ind := s.inductive(ds); len(ind) > 0 {
			p.Kind, p.IC = When, s.or(ind)
		}
	}
	return p
}

// holds reports whether the conjunction of cs may hold: not proven
// unsatisfiable.
func (s *synthesis) holds(cs ...sym.Term) bool {
	r, _, err := s.z.solver.Check(s.tab, cs)
	return err != nil || r != smt.Unsat
}

// inductive returns the disjuncts of the largest inductive part of the
// disjunction of ds that is a disjunction of some of them: every path of
// every declared effect, with any arguments, from a state where one of
// them holds, leads to a state where one of them holds. It is the
// greatest fixed point: a disjunct is dropped when a path leads from it
// out of the disjunction of those left, until none is. The paper's ICs
// are a set of constraints, each checked for uniformity on its own (its
// Def. 4); a union of inductive conditions is inductive, and a condition
// that is inductive only with others (resolved, or equal arguments: each
// path from the second leads to the first) is kept by the fixed point.
func (s *synthesis) inductive(ds []sym.Term) []sym.Term {
	var steps []path
	for _, e := range s.effects {
		cs, ok := s.run(e, s.tab.True(), s.vars(0, s.n), s.vars(Base(s.n, 2), e.Args))
		if !ok {
			return nil
		}
		for _, c := range cs {
			// A path that panics ends the execution with the mutex
			// locked: no state follows.
			if !c.panics {
				steps = append(steps, c)
			}
		}
	}
	live := slices.Clone(ds)
	for changed := true; changed && len(live) > 0; {
		changed = false
		f := s.or(live)
		for k := 0; k < len(live); k++ {
			for _, c := range steps {
				if s.holds(live[k], c.cond, s.tab.BNot(s.tab.Subst(f, c.out[:s.n]))) {
					live = slices.Delete(live, k, k+1)
					k--
					changed = true
					break
				}
			}
		}
	}
	return live
}

// Section is what the Lock that starts a section of a declared effect
// tells the engine, in its label's A.P: the monitor's effects (nil
// outside a check), the effect, its arguments, and the monitor's state,
// which holds the section's pre-state when the Lock is performed (only the
// monitor's sections change it, with its mutex held).
type Section struct {
	Effects *Declared
	Effect  int
	Args    []int64
	State   []int64
}
