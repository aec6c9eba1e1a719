package bench

import (
	"weft.dev/weft"
	"weft.dev/weft/sync"
)

// The programs of the QPOR paper's Table 1 and Fig. 1 (Nguyen et al., CAV
// 2018), as DPU's sources write them (cesaro/dpu, experiments/cav18/bench;
// OTHER-ENGINES.md §1.8 gives their shapes): pthread programs whose
// threads share variables under mutexes only, so that weft.Var under
// weft/sync is the faithful port, and pthread_exit in main is returning
// without joining.

// Dispatcher is dispatcher.c, DISP(s,r): s servers each copy in[id] to
// out[id] under their mutex; for each of r requests main starts a picker
// (it sets sid to 0..s-1 under k), reads sid under k, increments in[sid]
// under that server's mutex and joins the picker. The servers are not
// joined.
func Dispatcher(s, r int) func() {
	return func() {
		var k sync.Mutex
		var sid weft.Var[int]
		servers := make([]sync.Mutex, s)
		in := make([]weft.Var[int], s)
		out := make([]weft.Var[int], s)
		for id := range s {
			weft.Go(func() {
				servers[id].Lock()
				if v := in[id].Load(); v > 0 {
					out[id].Store(v)
				}
				servers[id].Unlock()
			})
		}
		for range r {
			p := weft.Go(func() {
				for x := range s {
					k.Lock()
					sid.Store(x)
					k.Unlock()
				}
			})
			k.Lock()
			idx := sid.Load()
			k.Unlock()
			servers[idx].Lock()
			in[idx].Store(in[idx].Load() + 1)
			servers[idx].Unlock()
			p.Join()
		}
	}
}

// Mpat is mpat.c, MPAT(k): for each of k pairs, a goroutine locks and
// unlocks ma[i], another does the same inside a critical section of mi.
// k!·2^k traces.
func Mpat(k int) func() {
	return func() {
		var mi sync.Mutex
		ma := make([]sync.Mutex, k)
		for x := range k {
			weft.Go(func() { ma[x].Lock(); ma[x].Unlock() })
			weft.Go(func() { mi.Lock(); ma[x].Lock(); ma[x].Unlock(); mi.Unlock() })
		}
	}
}

// MultiProdCon is multiprodcon.c, MPC(p,w): p producers each twice append
// their id to prodbuff under prodmut, then hand the work item to worker
// prodbuff mod w under its mutex; w workers each twice take a work item
// of theirs if there is one.
func MultiProdCon(p, w int) func() {
	return func() {
		var prodmut sync.Mutex
		var prodbuff weft.Var[int]
		mut := make([]sync.Mutex, w)
		workreq := make([]weft.Var[int], w)
		var gs []*weft.Goroutine
		for id := range w {
			gs = append(gs, weft.Go(func() {
				done := 0
				for range 2 {
					mut[id].Lock()
					have := workreq[id].Load() > 0
					if have {
						workreq[id].Store(workreq[id].Load() - 1)
					}
					mut[id].Unlock()
					if have {
						done++
					}
				}
			}))
		}
		limit := 1
		for range 2 * p {
			limit *= p
		}
		for id := range p {
			gs = append(gs, weft.Go(func() {
				var tmp int
				for range 2 {
					prodmut.Lock()
					prodbuff.Store(prodbuff.Load()*p + id)
					tmp = prodbuff.Load()
					prodmut.Unlock()
				}
				weft.Assert(tmp <= limit, "prodbuff = %d > %d", tmp, limit)
				dst := tmp % w
				mut[dst].Lock()
				workreq[dst].Store(workreq[dst].Load() + 1)
				mut[dst].Unlock()
			}))
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// Pi is pth_pi_mutex.c, PI(n): n goroutines each sum their slice of the
// arctan series locally (10 terms: local work is invisible to the
// explorers), then add it to the total under a mutex. n! traces.
func Pi(n int) func() {
	return func() {
		const terms = 10
		var mu sync.Mutex
		var sum weft.Var[float64]
		var gs []*weft.Goroutine
		for id := range n {
			gs = append(gs, weft.Go(func() {
				var mine float64
				for i := id * terms; i < (id+1)*terms; i++ {
					f := 1.0
					if i%2 == 1 {
						f = -1
					}
					mine += f / float64(2*i+1)
				}
				mu.Lock()
				sum.Store(sum.Load() + mine)
				mu.Unlock()
			}))
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// Poke is poke.c, POL(n,k): n writers each set a[id] under ma[id]; k
// times, main starts a chooser (it sets i to 1..n-1 under mi) and a reader
// (it reads i under mi, then clears a[i] under ma[i] and counts it in d)
// and joins both; at the end every a[x] is counted once.
func Poke(n, k int) func() {
	return func() {
		var mi sync.Mutex
		var i, d weft.Var[int]
		ma := make([]sync.Mutex, n)
		a := make([]weft.Var[int], n)
		var ws []*weft.Goroutine
		for id := range n {
			ws = append(ws, weft.Go(func() { ma[id].Lock(); a[id].Store(1); ma[id].Unlock() }))
		}
		for range k {
			c := weft.Go(func() {
				for x := 1; x < n; x++ {
					mi.Lock()
					i.Store(x)
					mi.Unlock()
				}
			})
			r := weft.Go(func() {
				mi.Lock()
				idx := i.Load()
				mi.Unlock()
				ma[idx].Lock()
				if a[idx].Load() == 1 {
					d.Store(d.Load() + 1)
					a[idx].Store(0)
				}
				ma[idx].Unlock()
			})
			c.Join()
			r.Join()
		}
		weft.Assert(d.Load() >= 0 && d.Load() <= n, "d = %d", d.Load())
		for _, w := range ws {
			w.Join()
		}
		for x := range n {
			d.Store(d.Load() + a[x].Load())
		}
		weft.Assert(d.Load() == n, "d = %d, want %d", d.Load(), n)
	}
}

// SSBExp is ssbexp.c, the program of the paper's Fig. 1 with its writes
// turned into critical sections: k writers each lock and unlock their
// mutex; a counter sets i to 1..k-1 under mi; main reads i under mi and
// locks writer i's mutex. 2k traces, on which SDPOR's reversals of main's
// lock with every writer blow up exponentially.
func SSBExp(k int) func() {
	return func() {
		var mi sync.Mutex
		var i weft.Var[int]
		ma := make([]sync.Mutex, k)
		var gs []*weft.Goroutine
		for x := range k {
			gs = append(gs, weft.Go(func() { ma[x].Lock(); ma[x].Unlock() }))
		}
		gs = append(gs, weft.Go(func() {
			for x := 1; x < k; x++ {
				mi.Lock()
				i.Store(x)
				mi.Unlock()
			}
		}))
		mi.Lock()
		idx := i.Load()
		mi.Unlock()
		ma[idx].Lock()
		ma[idx].Unlock()
		for _, g := range gs {
			g.Join()
		}
	}
}
