package smt

import (
	"slices"

	"weft.dev/weft/internal/sym"
)

// subterms returns the terms of the DAG below terms, including them, in
// increasing order. Terms are numbered after their operands, so this is a
// topological order: translating in it needs no recursion, and the order
// depends only on the terms, not on how they were listed.
func subterms(tab *sym.Table, terms []sym.Term) []sym.Term {
	seen := make(map[sym.Term]bool)
	stack := slices.Clone(terms)
	var order []sym.Term
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[t] {
			continue
		}
		seen[t] = true
		order = append(order, t)
		n := tab.Node(t)
		stack = append(stack, n.Args[:n.Op.Arity()]...)
	}
	slices.Sort(order)
	return order
}
