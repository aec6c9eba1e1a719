// Package concolic is what the engines share about symbolic values: the
// outcomes of the operations on them (NewInt, a branch, Choose), the
// condition under which each outcome is taken, and the path of one
// execution, whose model changes only when an outcome disagrees with it.
//
// A value is concolic: it carries its expression (a sym.Term) and has a
// concrete value under the execution's current model. A branch takes, by
// default, the outcome the model gives, which needs no solver; the other
// outcome is taken with a model the solver finds for the path condition
// plus that outcome. Every value computed so far stays consistent with the
// new model, because the model satisfies every condition taken before.
package concolic

import (
	"fmt"

	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// Solver is the part of smt.Solver the engines use.
type Solver interface {
	Check(tab *sym.Table, terms []sym.Term) (smt.Result, sym.Model, error)
}

// Config is the concolic configuration of an exploration.
type Config struct {
	Table  *sym.Table
	Solver Solver
	// Domain, when set, makes every NewInt an explicit choice among the
	// values Domain[0]..Domain[1] instead of a symbolic input (ExEn).
	Domain *[2]int64
}

// Outcomes returns how many outcomes a symbolic operation has: a branch 2
// (1 if pinned), Choose one per index plus "out of range", NewInt one, or
// the size of the explicit domain.
func (c *Config) Outcomes(l *event.Label) int {
	switch l.Kind {
	case event.SymEval:
		if l.Arg == 1 {
			return 1
		}
		return 2
	case event.SymChoose:
		return int(l.B.N) + 1
	case event.SymNew:
		if d := c.Domain; d != nil {
			return int(d[1]-d[0]) + 1
		}
	}
	return 1
}

// Solved reports whether the operation's outcomes are decided by the model
// and the solver (branches and Choose), rather than by an explicit choice.
func Solved(l *event.Label) bool { return l.Kind == event.SymEval || l.Kind == event.SymChoose }

// Cond returns the condition under which the operation takes outcome o.
func (c *Config) Cond(l *event.Label, o int) sym.Term {
	tab := c.Table
	t := sym.Term(l.A.N)
	switch l.Kind {
	case event.SymEval:
		if l.Arg == 1 || o == 1 {
			return t
		}
		return tab.BNot(t)
	case event.SymChoose:
		n := int64(l.B.N)
		if int64(o) < n {
			return tab.Eq(t, tab.Const(int64(o)))
		}
		return tab.BOr(tab.Lt(t, tab.Const(0)), tab.Ge(t, tab.Const(n)))
	}
	panic(fmt.Sprintf("weft: internal error: %v has no condition", l.Kind))
}

// Default returns the outcome the model m gives the operation.
func (c *Config) Default(l *event.Label, m sym.Model) int {
	t := sym.Term(l.A.N)
	switch l.Kind {
	case event.SymEval:
		if l.Arg == 1 || c.Table.EvalBool(t, m) {
			return 1
		}
		return 0
	case event.SymChoose:
		v, n := c.Table.Eval(t, m), int64(l.B.N)
		if v >= 0 && v < n {
			return int(v)
		}
		return int(n)
	}
	return 0
}

// Result returns what the operation returns to its goroutine for outcome
// o under model m: a branch its truth (OK), Choose its index (V.N), NewInt
// the variable's value (V.N).
func (c *Config) Result(l *event.Label, o int, m sym.Model) event.Result {
	r := event.Result{From: -1}
	switch l.Kind {
	case event.SymEval:
		r.OK = o == 1
	case event.SymChoose:
		r.V.N = uint64(o)
	case event.SymNew:
		if d := c.Domain; d != nil {
			r.V.N = uint64(d[0] + int64(o))
		} else {
			r.V.N = uint64(m.Get(int(l.Arg)))
		}
	}
	return r
}

// Path is the concolic state of one execution of an interleaving engine:
// the model and the conditions taken so far.
type Path struct {
	*Config
	Model sym.Model
	conds []sym.Term
}

// Reset starts a new execution with the all-zero model.
func (p *Path) Reset() {
	p.Model = sym.Model{}
	p.conds = p.conds[:0]
}

// Options returns the outcomes the operation can take on this path, the
// one the model gives first. A branch's other outcome is included only if
// the solver finds it feasible.
func (p *Path) Options(l *event.Label, dst []int) ([]int, error) {
	if !Solved(l) {
		for o := range p.Outcomes(l) {
			dst = append(dst, o)
		}
		return dst, nil
	}
	def := p.Default(l, p.Model)
	dst = append(dst, def)
	for o := range p.Outcomes(l) {
		if o == def {
			continue
		}
		ok, _, err := p.feasible(l, o)
		if err != nil {
			return dst, err
		}
		if ok {
			dst = append(dst, o)
		}
	}
	return dst, nil
}

// feasible asks the solver for a model of the path plus outcome o.
func (p *Path) feasible(l *event.Label, o int) (bool, sym.Model, error) {
	q := append(p.conds[:len(p.conds):len(p.conds)], p.Cond(l, o))
	res, m, err := p.Solver.Check(p.Table, q)
	if err != nil {
		return false, m, err
	}
	return res == smt.Sat, m, nil
}

// Take makes the operation take outcome o, changing the model when o is
// not the one it gives, and returns the operation's result.
func (p *Path) Take(l *event.Label, o int) (event.Result, error) {
	if Solved(l) {
		if o != p.Default(l, p.Model) {
			ok, m, err := p.feasible(l, o)
			if err != nil {
				return event.Result{}, err
			}
			if !ok {
				return event.Result{}, fmt.Errorf("outcome %d of %s is infeasible", o, p.Table.String(sym.Term(l.A.N)))
			}
			p.Model = m
		}
		p.conds = append(p.conds, p.Cond(l, o))
	}
	return p.Result(l, o, p.Model), nil
}
