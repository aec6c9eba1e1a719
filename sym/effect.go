package sym

import (
	"weft.dev/weft/internal/ic"
	isym "weft.dev/weft/internal/sym"
)

// Package ic analyses the effects that weft/sync's Monitor declares, which
// are functions over Ints: it runs them on terms of its own table through
// runEffect.
func init() { ic.Run = runEffect }

// runEffect is ic.Run: it calls the effect f, a func(state, args []Int)
// []Int, on Ints of the terms state and args of tab (the caller routes
// the goroutine's symbolic operations to tab: runtime.WithSymHook), and
// returns the terms of the state after it, then
// of its results.
func runEffect(f any, tab *isym.Table, state, args []isym.Term) []isym.Term {
	s, a := make([]Int, len(state)), make([]Int, len(args))
	for i, t := range state {
		s[i] = mkInt(tab, t)
	}
	for i, t := range args {
		a[i] = mkInt(tab, t)
	}
	r := f.(func(state, args []Int) []Int)(s, a)
	out := make([]isym.Term, 0, len(s)+len(r))
	for _, x := range s {
		out = append(out, x.term(tab))
	}
	for _, x := range r {
		out = append(out, x.term(tab))
	}
	return out
}
