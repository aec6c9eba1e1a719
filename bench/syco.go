package bench

import (
	"slices"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// The programs of the CDPOR paper's evaluation (Albert et al., CAV 2018,
// §5; the tool SYCO) in their Go shape. The paper's programs are ABS actor
// programs whose sources are not public (OTHER-ENGINES.md §2.6): an actor's
// method runs as one atomic block, which in Go is a critical section of
// the actor's mutex, and a task is a goroutine. The shapes below follow
// the paper's one-line descriptions; each section whose order the program
// never observes is declared with sync.Mutex.LockCommuting, the paper's
// user-declared IC, so that cdpor explores one order of them.

// PiSum is the paper's Pi (distributed workers): n workers each compute a
// partial sum of the Leibniz series, in integers (float addition does not
// commute), and add it to a shared total in a commuting section; the body
// checks the total at the end.
func PiSum(n int) func() {
	return func() {
		const terms = 10
		var mu sync.Mutex
		var sum weft.Var[int64]
		var gs []*weft.Goroutine
		var want int64
		for id := range n {
			want += leibniz(id*terms, (id+1)*terms)
			gs = append(gs, weft.Go(func() {
				mine := leibniz(id*terms, (id+1)*terms)
				mu.LockCommuting(1)
				sum.Store(sum.Load() + mine)
				mu.Unlock()
			}))
		}
		for _, g := range gs {
			g.Join()
		}
		weft.Assert(sum.Load() == want, "sum %d, want %d", sum.Load(), want)
	}
}

// leibniz returns the terms from..to-1 of the Leibniz series for π/4 in
// units of 1e-12.
func leibniz(from, to int) int64 {
	var s int64
	for i := from; i < to; i++ {
		t := int64(1e12) / int64(2*i+1)
		if i%2 == 1 {
			t = -t
		}
		s += t
	}
	return s
}

// Registration is the paper's Reg (a concurrent registration system): n
// clients register distinct ids with a server, whose register method
// marks the id and counts it, once per id, in a commuting section; the
// body checks that every id is registered once.
func Registration(n int) func() {
	return func() {
		var mu sync.Mutex
		registered := make([]weft.Var[bool], n)
		var count weft.Var[int]
		var gs []*weft.Goroutine
		for id := range n {
			gs = append(gs, weft.Go(func() {
				mu.LockCommuting(1)
				if !registered[id].Load() {
					registered[id].Store(true)
					count.Store(count.Load() + 1)
				}
				mu.Unlock()
			}))
		}
		for _, g := range gs {
			g.Join()
		}
		weft.Assert(count.Load() == n, "%d registrations, want %d", count.Load(), n)
	}
}

// MergeSortRuns is the paper's MS (a concurrent merge sort): n workers each
// sort a chunk of the input and merge it into the shared sorted result in
// a commuting section (merging sorted runs gives one result in any
// order); the body checks the result.
func MergeSortRuns(n int) func() {
	return func() {
		const chunk = 3
		var mu sync.Mutex
		var result weft.Var[[]int]
		var gs []*weft.Goroutine
		for w := range n {
			gs = append(gs, weft.Go(func() {
				run := make([]int, chunk)
				for i := range run {
					run[i] = (w*7 + i*5) % (n * chunk) // a permutation's piece
				}
				slices.Sort(run)
				mu.LockCommuting(1)
				result.Store(mergeRuns(result.Load(), run))
				mu.Unlock()
			}))
		}
		for _, g := range gs {
			g.Join()
		}
		r := result.Load()
		weft.Assert(len(r) == n*chunk && slices.IsSorted(r), "merged %v", r)
	}
}

// mergeRuns returns the merge of the sorted slices a and b, in a new slice.
func mergeRuns(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// Database is the paper's DBP (a concurrent database): n transactions each
// move an amount between two of three accounts in a commuting section
// (transfers commute), while q auditors read the total in sections that
// are not declared, and check that transfers keep it; auditors observe the
// order of transfers relative to them, so cdpor explores each placement
// of the audits among the transfers.
func Database(n, q int) func() {
	return func() {
		const accounts, initial = 3, 100
		var mu sync.Mutex
		balance := make([]weft.Var[int], accounts)
		mu.Lock()
		for i := range balance {
			balance[i].Store(initial)
		}
		mu.Unlock()
		var gs []*weft.Goroutine
		for t := range n {
			gs = append(gs, weft.Go(func() {
				from, to := t%accounts, (t+1)%accounts
				mu.LockCommuting(1)
				balance[from].Store(balance[from].Load() - 10*(t+1))
				balance[to].Store(balance[to].Load() + 10*(t+1))
				mu.Unlock()
			}))
		}
		for range q {
			gs = append(gs, weft.Go(func() {
				mu.Lock()
				total := 0
				for i := range balance {
					total += balance[i].Load()
				}
				mu.Unlock()
				weft.Assert(total == accounts*initial, "total %d", total)
			}))
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// Fig1 is the working example of the paper's Fig. 1 (its code is an image
// our copy lacks, reconstructed in OTHER-ENGINES.md §2.3): three
// goroutines run one atomic block each under one mutex, from z = x = -2:
// p: x = x+1; q: if z >= 0 { z = x }; r: x = x+1; z = z+1. p and r
// always commute (the paper's I_{p,r} = {true}), and are declared so; q
// commutes with p only when z <= -1, and with r only when z >= 0, z = x or
// z < -1, constraints on the state that a declaration cannot make.
func Fig1() func() {
	return func() {
		var mu sync.Mutex
		var x, z weft.Var[int]
		mu.Lock()
		x.Store(-2)
		z.Store(-2)
		mu.Unlock()
		p := weft.Go(func() {
			mu.LockCommuting(1)
			x.Store(x.Load() + 1)
			mu.Unlock()
		})
		q := weft.Go(func() {
			mu.Lock()
			if z.Load() >= 0 {
				z.Store(x.Load())
			}
			mu.Unlock()
		})
		r := weft.Go(func() {
			mu.LockCommuting(1)
			x.Store(x.Load() + 1)
			z.Store(z.Load() + 1)
			mu.Unlock()
		})
		p.Join()
		q.Join()
		r.Join()
	}
}

// SameValue is the example of the paper's related work: from x = 0, p and
// q write 5 to x and r reads it, each a single atomic operation. The two
// writes commute (the built-in IC of stores of one value).
func SameValue() func() {
	return func() {
		var x atomic.Int64
		p := weft.Go(func() { x.Store(5) })
		q := weft.Go(func() { x.Store(5) })
		x.Load()
		p.Join()
		q.Join()
	}
}

// The programs below declare their critical sections as the effects of a
// sync.Monitor, over symbolic integers, and cdpor synthesizes their ICs
// with the SMT solver (the paper's §4.1) instead of taking a declaration:
// a pair commutes always, never, or in the states where a condition
// holds that every declared effect preserves (see the package
// documentation of weft's internal/ic).

// Fig1Synth is Fig1 with the blocks declared as effects on the state
// (x, z): the solver finds that p and r always commute, and the
// conditions of the paper's Fig. 1 for q with p (z <= -1) and with r
// (z >= 0, z = x or z < -1), which it cannot show uniform: r writes z and
// p writes x. cdpor explores what Fig1's declaration gives it.
func Fig1Synth() func() {
	return func() {
		m := sync.NewMonitor(-2, -2) // x, z
		p := m.Declare(0, func(s, _ []sym.Int) []sym.Int {
			s[0] = s[0].Add(sym.Const(1))
			return nil
		})
		q := m.Declare(0, func(s, _ []sym.Int) []sym.Int {
			if s[1].Ge(sym.Const(0)).Eval() {
				s[1] = s[0]
			}
			return nil
		})
		r := m.Declare(0, func(s, _ []sym.Int) []sym.Int {
			s[0], s[1] = s[0].Add(sym.Const(1)), s[1].Add(sym.Const(1))
			return nil
		})
		gs := []*weft.Goroutine{weft.Go(func() { p.Do() }), weft.Go(func() { q.Do() }), weft.Go(func() { r.Do() })}
		for _, g := range gs {
			g.Join()
		}
	}
}

// BoundedBuffer is the paper's BB (a producer-consumer interaction) with
// the buffer's contents reduced to their count: p producers each put an
// item into a buffer of capacity c, and q consumers each get one; a put
// on a full buffer drops its item, a get from an empty one misses, and
// the body checks the counts. Two puts always commute, and two gets; a
// put and a get commute when the buffer is neither full nor empty (the
// paper's IC), which the solver finds but cannot show uniform, since
// puts fill the buffer and gets empty it: cdpor explores the orders of
// the sections up to the order of adjacent puts and of adjacent gets
// (14 of 24 for two of each, 230 of 720 for three), where the others
// explore (p+q)!. (The
// paper's CDPOR uses that IC to add sleep sequences without uniformity,
// its lines 11 and 12, which weft does not have.)
func BoundedBuffer(p, q, c int) func() {
	return func() {
		m := sync.NewMonitor(0, 0, 0) // items, dropped, missed
		put := m.Declare(0, func(s, _ []sym.Int) []sym.Int {
			if s[0].Lt(sym.Const(int64(c))).Eval() {
				s[0] = s[0].Add(sym.Const(1))
			} else {
				s[1] = s[1].Add(sym.Const(1))
			}
			return nil
		})
		get := m.Declare(0, func(s, _ []sym.Int) []sym.Int {
			if s[0].Gt(sym.Const(0)).Eval() {
				s[0] = s[0].Sub(sym.Const(1))
			} else {
				s[2] = s[2].Add(sym.Const(1))
			}
			return nil
		})
		read := m.Declare(0, func(s, _ []sym.Int) []sym.Int { return []sym.Int{s[0], s[1], s[2]} })
		var gs []*weft.Goroutine
		for range p {
			gs = append(gs, weft.Go(func() { put.Do() }))
		}
		for range q {
			gs = append(gs, weft.Go(func() { get.Do() }))
		}
		for _, g := range gs {
			g.Join()
		}
		s := read.Do()
		weft.Assert(s[0] == int64(p)-s[1]-int64(q)+s[2] && s[0] >= 0 && s[0] <= int64(c), "items %d, dropped %d, missed %d", s[0], s[1], s[2])
	}
}

// Resolve has n goroutines resolve a register (a promise, a first error)
// with their ids, each in a section that resolves it if it is not yet
// and returns its value. Which goroutine resolves first decides every
// result; once it is resolved, two sections give the same results in
// either order, and nothing unresolves it: a condition on the state that
// the solver shows uniform. cdpor explores n executions, one per winner,
// where the others explore n!.
func Resolve(n int) func() {
	return func() {
		m := sync.NewMonitor(0, 0) // resolved, value
		resolve := m.Declare(1, func(s, a []sym.Int) []sym.Int {
			if s[0].Eq(sym.Const(0)).Eval() {
				s[0], s[1] = sym.Const(1), a[0]
			}
			return []sym.Int{s[1]}
		})
		var gs []*weft.Goroutine
		for id := range n {
			gs = append(gs, weft.Go(func() {
				v := resolve.Do(int64(id + 1))[0]
				weft.Assert(v >= 1 && v <= int64(n), "resolved to %d", v)
			}))
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// Quota has n clients take a ticket from a quota of k, each in a section
// that takes one if any is left and says whether it did. Two takes agree
// in either order when at least two tickets are left (but that does not
// last) and when none is (which does): cdpor explores the orders of the
// k takes that get a ticket, n!/(n-k)!, where the others explore n!.
func Quota(n, k int) func() {
	return func() {
		m := sync.NewMonitor(int64(k)) // tickets left
		take := m.Declare(0, func(s, _ []sym.Int) []sym.Int {
			if s[0].Gt(sym.Const(0)).Eval() {
				s[0] = s[0].Sub(sym.Const(1))
				return []sym.Int{sym.Const(1)}
			}
			return []sym.Int{sym.Const(0)}
		})
		got := make([]weft.Var[int64], n) // by client, so that they stay independent
		var gs []*weft.Goroutine
		for i := range n {
			gs = append(gs, weft.Go(func() { got[i].Store(take.Do()[0]) }))
		}
		var taken int64
		for i, g := range gs {
			g.Join()
			taken += got[i].Load()
		}
		weft.Assert(taken == int64(min(n, k)), "%d tickets taken, want %d", taken, min(n, k))
	}
}
