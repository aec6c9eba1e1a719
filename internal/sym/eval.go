package sym

import (
	"fmt"
	"slices"
	"strings"
)

// Model assigns values to variables; a variable without a value reads as 0.
// The zero Model is empty. Models share nothing after Clone, but copying a
// Model value shares its storage, as for slices.
type Model struct {
	vals []int64
}

// Get returns the value of variable id, or 0 if it has none.
func (m Model) Get(id int) int64 {
	if id < 0 || id >= len(m.vals) {
		return 0
	}
	return m.vals[id]
}

// Set gives variable id the value v.
func (m *Model) Set(id int, v int64) {
	if id < 0 {
		panic(fmt.Sprintf("sym: negative variable id %d", id))
	}
	if id >= len(m.vals) {
		if v == 0 {
			return
		}
		m.vals = append(m.vals, make([]int64, id+1-len(m.vals))...)
	}
	m.vals[id] = v
}

// Clone returns a copy of m that shares no storage with it.
func (m Model) Clone() Model {
	return Model{vals: slices.Clone(m.vals)}
}

// Equal reports whether m and o give every variable the same value.
func (m Model) Equal(o Model) bool {
	n := max(len(m.vals), len(o.vals))
	for id := range n {
		if m.Get(id) != o.Get(id) {
			return false
		}
	}
	return true
}

// String lists the variables with non-zero values, as {x0=1, x3=-2}.
func (m Model) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for id, v := range m.vals {
		if v == 0 {
			continue
		}
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "x%d=%d", id, v)
	}
	b.WriteByte('}')
	return b.String()
}

// nextEpoch starts a traversal: afterwards no term is marked.
func (t *Table) nextEpoch() uint32 {
	t.ensure()
	if len(t.mark) < len(t.nodes) {
		t.mark = append(t.mark, make([]uint32, len(t.nodes)-len(t.mark))...)
		t.vals = append(t.vals, make([]int64, len(t.nodes)-len(t.vals))...)
	}
	t.epoch++
	if t.epoch == 0 {
		clear(t.mark)
		t.epoch = 1
	}
	return t.epoch
}

// Eval returns the value of the Int term x under m. Bool terms evaluate to
// 1 (true) or 0 (false). Eval visits each node of x's DAG once, without
// recursion.
func (t *Table) Eval(x Term, m Model) int64 {
	t.node(x)
	ep := t.nextEpoch()
	stack := append(t.stack[:0], x)
	for len(stack) > 0 {
		y := stack[len(stack)-1]
		if t.mark[y] == ep {
			stack = stack[:len(stack)-1]
			continue
		}
		n := &t.nodes[y]
		// Push the operands that still need a value; y is computed once
		// they have one, which is when y is on top again.
		pending := false
		for _, a := range n.Args[:n.Op.Arity()] {
			if t.mark[a] != ep {
				stack = append(stack, a)
				pending = true
			}
		}
		if pending {
			continue
		}
		stack = stack[:len(stack)-1]
		var v int64
		switch n.Op {
		case OpFalse:
		case OpTrue:
			v = 1
		case OpConst:
			v = n.Value
		case OpVar:
			v = m.Get(int(n.Value))
		default:
			v = apply(n.Op, t.vals[n.Args[0]], t.vals[n.Args[1]], t.vals[n.Args[2]])
		}
		t.vals[y] = v
		t.mark[y] = ep
	}
	t.stack = stack
	return t.vals[x]
}

// EvalBool returns the value of the Bool term x under m.
func (t *Table) EvalBool(x Term, m Model) bool {
	t.want(Bool, "EvalBool", x)
	return t.Eval(x, m) != 0
}

// Vars returns the ids of the variables in x, sorted and distinct.
func (t *Table) Vars(x Term) []int {
	return t.AppendVars(nil, x)
}

// AppendVars appends the ids of the variables in the terms xs to dst and
// returns the result sorted and without duplicates. Like Vars, it visits
// each node of the DAG once.
func (t *Table) AppendVars(dst []int, xs ...Term) []int {
	for _, x := range xs {
		t.node(x)
	}
	ep := t.nextEpoch()
	stack := append(t.stack[:0], xs...)
	for len(stack) > 0 {
		y := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t.mark[y] == ep {
			continue
		}
		t.mark[y] = ep
		n := &t.nodes[y]
		if n.Op == OpVar {
			dst = append(dst, int(n.Value))
		}
		for _, a := range n.Args[:n.Op.Arity()] {
			if t.mark[a] != ep {
				stack = append(stack, a)
			}
		}
	}
	t.stack = stack
	slices.Sort(dst)
	return slices.Compact(dst)
}
