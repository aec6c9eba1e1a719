package runtime

import (
	"fmt"
	"sync"
	"sync/atomic"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/sym"
)

// A SymHook takes the symbolic operations of one goroutine in place of the
// running check: package ic runs the effects that a program declares on
// symbolic inputs of its own table, deciding each branch itself, to
// synthesize their independence constraints. Under a hook, the operations
// that need a check (a new input, a concrete value, Choose) panic with an
// EffectMisuse.
type SymHook interface {
	// Table is the table the goroutine's symbolic values are terms of.
	Table() *sym.Table
	// Branch returns the outcome of a branch on the Bool term t.
	Branch(t sym.Term) bool
}

// EffectMisuse is the panic of a symbolic operation that an effect may not
// perform (see SymHook).
type EffectMisuse string

func (e EffectMisuse) Error() string {
	return fmt.Sprintf("weft: %s in a declared effect: an effect computes only on its state and arguments", string(e))
}

// symHooks holds the hooks by goroutine (self), and how many there are, so
// that the operations of checks pay one atomic load when there are none.
var symHooks struct {
	n atomic.Int32
	m sync.Map
}

// WithSymHook runs f with the calling goroutine's symbolic operations
// taken by h.
func WithSymHook(h SymHook, f func()) {
	key := self()
	symHooks.m.Store(key, h)
	symHooks.n.Add(1)
	defer func() {
		symHooks.m.Delete(key)
		symHooks.n.Add(-1)
	}()
	f()
}

// symHook returns the calling goroutine's hook, or nil.
func symHook() SymHook {
	if symHooks.n.Load() == 0 {
		return nil
	}
	if h, ok := symHooks.m.Load(self()); ok {
		return h.(SymHook)
	}
	return nil
}

// SymTable returns the expression table of the running check.
func SymTable() *sym.Table {
	if h := symHook(); h != nil {
		return h.Table()
	}
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
	if symHook() != nil {
		return false
	}
	x, _ := running("weft/sym")
	return x.concolic().Domain != nil
}

// SymNew creates a symbolic input and returns its variable id
// and its value under the current model. A symbolic input is not a visible
// operation: its identity is its rank among its goroutine's inputs, and
// nothing is explored until a branch on it. With an explicit domain, it is
// a choice of the value, explored like any other.
func SymNew() (id int, v int64) {
	if symHook() != nil {
		panic(EffectMisuse("sym.NewInt"))
	}
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
	if symHook() != nil {
		panic(EffectMisuse("the concrete value of a symbolic value"))
	}
	x, _ := running("weft/sym")
	return x.concolic().Table.Eval(t, x.model())
}

// SymTruth returns the value of the Bool term t under the current model.
func SymTruth(t sym.Term) bool {
	if symHook() != nil {
		panic(EffectMisuse("the concrete value of a symbolic condition"))
	}
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
	if h := symHook(); h != nil {
		if pinned {
			panic(EffectMisuse("Int.Concrete"))
		}
		return h.Branch(t)
	}
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
	if symHook() != nil {
		panic(EffectMisuse("sym.Choose"))
	}
	_, g := running("sym.Choose")
	return int(g.op(&event.Label{Kind: event.SymChoose, Obj: -1, A: event.Value{N: uint64(t)}, B: event.Value{N: uint64(n)}}).V.N)
}
