package smt

import (
	"math"
	"slices"

	"weft.dev/weft/internal/sym"
)

// orderKey maps values to unsigned keys in the order of least models:
// non-negative values map to themselves and negative values v to
// 2^63 + ^v, so that 0 < 1 < ... < MaxInt64 < -1 < -2 < ... < MinInt64
// compares like the keys.
func orderKey(v int64) uint64 {
	if v >= 0 {
		return uint64(v)
	}
	return 1<<63 | uint64(^v)
}

// keysBelow returns the signed range of the values whose key is below k,
// for 0 < k: [0, k-1] while k <= 2^63, and [-(k-2^63), MaxInt64] above.
func keysBelow(k uint64) (lo, hi int64) {
	if k <= 1<<63 {
		return 0, int64(k - 1)
	}
	return -int64(k - 1<<63), math.MaxInt64
}

// constraint restricts the variable with index v in a part's sorted
// variables to the signed range [lo, hi].
type constraint struct {
	v      int
	lo, hi int64
}

// session is a backend's view of one part while its least model is
// computed. Fixed constraints accumulate; a trial holds for one check.
type session interface {
	// check decides the part under the fixed constraints and, if trial is
	// not nil, *trial. On Sat it returns the values of the part's
	// variables in the model found.
	check(trial *constraint) (Result, []int64, error)
	// fix permanently adds c.
	fix(c constraint) error
}

// probeKeys returns the sorted keys of the values next to the constants
// in terms and to their negations. Least values are often such neighbors,
// as they sit at the boundary of a comparison with a constant, so
// leastModel probes them first.
func probeKeys(tab *sym.Table, terms []sym.Term) []uint64 {
	var keys []uint64
	for _, t := range subterms(tab, terms) {
		if c, ok := tab.IsConst(t); ok {
			for _, v := range []int64{c, -c} {
				keys = append(keys, orderKey(v-1), orderKey(v), orderKey(v+1))
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// maxVarChecks bounds the satisfiability checks spent on the least value
// of one variable. A least value next to 0 or to a constant of the formula
// takes a handful; one that is a large number unrelated to the formula's
// constants can take about 2*64, and some 64-bit nonlinear formulas make
// every check slow. The bound keeps such parts from costing more than a
// few dozen plain solves; their model is then the best one found, which is
// still deterministic (see the package documentation).
const maxVarChecks = 16

// outcome is the decision of a part.
type outcome struct {
	res    Result
	vals   []int64 // on Sat, the values of the part's variables
	checks int     // satisfiability checks made
	least  bool    // on Sat, whether vals is known to be the least model
}

// firstModel decides the part behind s and keeps the first model found:
// one check. The model depends only on the part, since sessions are fresh
// and built in a canonical order, but may differ between backends.
func firstModel(s session) (outcome, error) {
	res, vals, err := s.check(nil)
	return outcome{res: res, vals: vals, checks: 1}, err
}

// leastModel decides the part behind s, which has n variables, and
// computes its least model with at most maxVarChecks checks per variable,
// using the probe keys from probeKeys.
//
// Variables are settled in order, each by a search over the keys of its
// values with the earlier variables fixed. The key of the current model
// bounds the least key from above, and every satisfiable check lowers the
// bound to the key of the model it finds, often well below the bound asked
// for. The first check asks whether any smaller key exists at all, which
// settles variables that the others determine (such as y in x*y == c once
// x is fixed) and models that are already least. Then come a check of the
// value 0, of the sign, a binary search over the probe keys, and an
// exponential search upward from the lower bound followed by a binary
// search.
func leastModel(s session, n int, probes []uint64) (outcome, error) {
	out := outcome{checks: 1}
	res, cur, err := s.check(nil)
	if err != nil || res != Sat {
		out.res = res
		return out, err
	}
	out.res, out.vals = Sat, cur
	for v := range n {
		// Invariant: no model has a key below lo, and cur is a model
		// with key hi.
		lo, hi := uint64(0), orderKey(cur[v])
		budget := out.checks + maxVarChecks
		// below checks for a model with a key below k, 0 < k <= hi, and
		// maintains the invariant. It reports Unknown when the budget is
		// spent.
		below := func(k uint64) (Result, error) {
			if out.checks >= budget {
				return Unknown, nil
			}
			out.checks++
			a, b := keysBelow(k)
			r, m, err := s.check(&constraint{v: v, lo: a, hi: b})
			switch {
			case err != nil:
				return Unknown, err
			case r == Sat:
				cur, hi = m, orderKey(m[v])
			case r == Unsat:
				lo = k
			}
			return r, nil
		}
		r := Unsat
		if hi > 0 {
			r, err = below(hi)
		}
		if r == Sat && hi > 0 {
			r, err = below(1)
		}
		if r == Unsat && hi >= 1<<63 && lo < 1<<63 {
			r, err = below(1 << 63)
		}
		for r != Unknown && err == nil {
			i, _ := slices.BinarySearch(probes, lo)
			j, _ := slices.BinarySearch(probes, hi)
			if i >= j {
				break
			}
			r, err = below(probes[(i+j)/2] + 1)
		}
		for step := uint64(1); r != Unknown && err == nil && lo < hi && step <= hi-lo; step *= 2 {
			if r, err = below(lo + step); r == Sat {
				break
			}
		}
		for r != Unknown && err == nil && lo < hi {
			r, err = below(lo + (hi-lo)/2 + 1)
		}
		out.vals = cur
		if err != nil {
			return out, err
		}
		if r == Unknown {
			// The budget is spent, or the backend gave up: cur is a model,
			// but maybe not the least.
			return out, nil
		}
		if err := s.fix(constraint{v: v, lo: cur[v], hi: cur[v]}); err != nil {
			return out, err
		}
	}
	out.least = true
	return out, nil
}
