package runtime

import (
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/sym"
)

// SymTable returns the expression table of the running check.
func SymTable() *sym.Table {
	x, _ := running("weft/sym")
	return x.concolic().Table
}

func (x *execution) concolic() *concolic.Config {
	c := x.d.cfg.Concolic
	if c == nil {
		panic("weft: internal error: symbolic values in an exploration configured without them")
	}
	return c
}

// Explicit reports whether symbolic inputs are enumerated over an explicit
// domain (the ExEn baseline) instead of being symbolic.
func Explicit() bool {
	x, _ := running("weft/sym")
	return x.concolic().Domain != nil
}

// SymNew creates a symbolic input and returns its variable id
// and its value under the current model. A symbolic input is not a visible
// operation: its identity is its rank among its goroutine's inputs, and
// nothing is explored until a branch on it. With an explicit domain, it is
// a choice of the value, explored like any other.
func SymNew() (id int, v int64) {
	x, g := running("sym.NewInt")
	vid := x.d.names.varID(g.ID, g.vars)
	g.vars++
	if x.concolic().Domain == nil {
		return int(vid), x.model().Get(int(vid))
	}
	r := g.op(&event.Label{Kind: event.SymNew, Obj: -1, Arg: vid})
	return int(vid), int64(r.V.N)
}

// SymValue returns the value of the Int term t under the current model.
func SymValue(t sym.Term) int64 {
	x, _ := running("weft/sym")
	return x.concolic().Table.Eval(t, x.model())
}

// SymTruth returns the value of the Bool term t under the current model.
func SymTruth(t sym.Term) bool {
	x, _ := running("weft/sym")
	return x.concolic().Table.EvalBool(t, x.model())
}

func (x *execution) model() sym.Model {
	if m := x.exec.Model; m != nil {
		return *m
	}
	return sym.Model{}
}

// SymEval branches on the Bool term t and returns the outcome the
// execution takes. A pinned condition must hold: it records a concrete
// value, without exploring the other outcome.
func SymEval(t sym.Term, pinned bool) bool {
	_, g := running("Bool.Eval")
	l := event.Label{Kind: event.SymEval, Obj: -1, A: event.Value{N: uint64(t)}}
	if pinned {
		l.Arg = 1
	}
	return g.op(&l).OK
}

// SymChoose returns the index in [0, n) that the Int term t takes in this
// execution, or n when it is out of range.
func SymChoose(t sym.Term, n int) int {
	_, g := running("sym.Choose")
	return int(g.op(&event.Label{Kind: event.SymChoose, Obj: -1, A: event.Value{N: uint64(t)}, B: event.Value{N: uint64(n)}}).V.N)
}
