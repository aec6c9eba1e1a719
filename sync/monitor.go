package sync

import (
	"fmt"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/ic"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/sym"
)

// Monitor is a small integer state guarded by a mutex, which only the
// effects declared with it (Declare) read and change, each in a critical
// section of its own (Effect.Do). An effect is written over symbolic
// integers, so that weft can analyse it: the cdpor engine synthesizes,
// with an SMT solver, the condition under which two sections give the
// same state and results in either order, and explores one order of them
// where it holds (see the package documentation of weft's
// internal/engine/cdpor). The other engines see a mutex and explore every
// order. The section runs the effect itself on the state, so that what
// weft analyses is what the program does. A monitor is made in the check
// (each execution its own): unlike a Mutex, one made outside would carry
// its state from one execution to the next.
//
// A register that the first of several goroutines resolves is a Monitor
// of two integers (resolved, value) with one effect: if not resolved,
// resolve with the argument; return the value. Two resolutions commute
// once it is resolved, or when their arguments are equal.
type Monitor struct {
	mu       Mutex
	state    []int64
	effects  []*Effect
	declared *ic.Declared // made at the first Do, when every effect is declared
	started  bool
}

// NewMonitor returns a monitor whose state is the integers state.
func NewMonitor(state ...int64) *Monitor {
	return &Monitor{state: append([]int64(nil), state...)}
}

// An Effect is an effect declared with a Monitor.
type Effect struct {
	m    *Monitor
	i    int
	args int
	f    func(state, args []sym.Int) []sym.Int
}

// Declare declares an effect of m that takes args arguments: f updates
// the state in place, reading it and the arguments, and returns the
// section's results. f may compute with the operations of package sym and
// branch on their conditions (Bool.Eval), and must compute only from the
// state, the arguments and constants: no weft operation, no new input, no
// concrete value of a symbolic one (weft runs it on symbolic inputs of
// its own to analyse it, and on constants to run it). Every effect is
// declared before the first Do of any: the analysis covers them all.
func (m *Monitor) Declare(args int, f func(state, args []sym.Int) []sym.Int) *Effect {
	if m.started {
		misuse("Monitor.Declare after the monitor's first Effect.Do")
	}
	e := &Effect{m: m, i: len(m.effects), args: args, f: f}
	m.effects = append(m.effects, e)
	return e
}

// misuse reports a Misuse bug, or panics outside a check.
func misuse(msg string) {
	if runtime.Outside() {
		panic("weft/sync: " + msg)
	}
	runtime.Fail(engine.Misuse, msg)
}

// Do runs the effect on the monitor's state in a critical section of its
// mutex, with the arguments args, and returns the section's results.
func (e *Effect) Do(args ...int64) []int64 {
	m := e.m
	if len(args) != e.args {
		misuse(fmt.Sprintf("Effect.Do with %d arguments, declared with %d", len(args), e.args))
	}
	if !m.started {
		m.started = true
		if !runtime.Outside() {
			es := make([]ic.Effect, len(m.effects))
			for i, d := range m.effects {
				es[i] = ic.Effect{F: d.f, Args: d.args}
			}
			z, err := ic.ForCheck()
			if err != nil {
				misuse(err.Error())
			}
			d, err := z.Declare(len(m.state), es)
			if err != nil {
				misuse(err.Error())
			}
			m.declared = d
		}
	}
	sec := &ic.Section{Effects: m.declared, Effect: e.i, Args: args, State: m.state}
	l := event.Label{Kind: event.Lock, OKind: event.Mutex, A: event.Value{P: sec}}
	if _, in := runtime.TryDo(&m.mu.o, l, "Effect.Do"); !in {
		m.mu.plain.Lock()
	}
	s, a := make([]sym.Int, len(m.state)), make([]sym.Int, len(args))
	for i, v := range m.state {
		s[i] = sym.Const(v)
	}
	for i, v := range args {
		a[i] = sym.Const(v)
	}
	r := e.f(s, a)
	for i, x := range s {
		m.state[i] = x.Concrete()
	}
	res := make([]int64, len(r))
	for i, x := range r {
		res[i] = x.Concrete()
	}
	m.mu.Unlock()
	return res
}
