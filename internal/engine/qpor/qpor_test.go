package qpor_test

import (
	"fmt"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine/qpor"
	"weft.dev/weft/sync"
)

// ssbexp is the program of the paper's Fig. 1 as DPU's ssbexp.c writes it
// (writes replaced by critical sections): k writers each lock and unlock
// their mutex; a counter sets i to 1..k-1 under mi; main reads i under mi
// and locks the writer i's mutex. 2k traces, on which SDPOR's reversals
// of main's lock with every writer blow up.
func ssbexp(k int) func() {
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

// mpat is DPU's mpat.c: for each of k pairs, a goroutine locks and
// unlocks ma[i], another does the same inside a critical section of mi;
// main joins none. k!·2^k traces (the orders of the mi sections, times
// the order of each pair on ma[i]), none redundant for any k.
func mpat(k int) func() {
	return func() {
		var mi sync.Mutex
		ma := make([]sync.Mutex, k)
		for x := range k {
			weft.Go(func() { ma[x].Lock(); ma[x].Unlock() })
			weft.Go(func() { mi.Lock(); ma[x].Lock(); ma[x].Unlock(); mi.Unlock() })
		}
	}
}

// poke is DPU's poke.c, POL(n,k) in the paper: n writers each set a[id]
// under ma[id]; k times, main starts a chooser (sets i to 1..n-1 under mi)
// and a reader (reads i under mi, then clears a[i] under ma[i], counting
// it in d) and joins both; at the end every a[x] is counted once.
func poke(n, k int) func() {
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

// dispatcher is DPU's dispatcher.c, DISP(s,r) in the paper: s servers
// each copy in[id] to out[id] under their mutex; for each of r requests,
// main starts a picker (sets sid to 0..s-1 under k), reads sid under k,
// increments in[sid] under its server's mutex and joins the picker. The
// servers are not joined.
func dispatcher(s, r int) func() {
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

// TestCounts checks the trace counts of DPU's programs, which qpor
// completes each exactly once for every k, and the redundant (sleep-set
// blocked) executions: none when optimal, and as in the paper's Table 1,
// fewer as k grows, on the programs whose races are entangled (poke,
// dispatcher) but none for any k where they are not (mpat); ssbexp, the
// paper's Fig. 1, needs k = 2 in DPU, but qpor's order of exploration
// (the goroutine that moved last first) finds it optimally from k = 1.
func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      func()
		traces    int
		entangled bool // k = 1 leaves redundant executions
	}{
		{"ssbexp(2)", ssbexp(2), 4, false},
		{"ssbexp(4)", ssbexp(4), 8, false},
		{"ssbexp(6)", ssbexp(6), 12, false},
		{"mpat(2)", mpat(2), 8, false},
		{"mpat(3)", mpat(3), 48, false},
		{"mpat(4)", mpat(4), 384, false},
		{"poke(2,2)", poke(2, 2), 14, true},
		{"poke(4,2)", poke(4, 2), 60, true},
		{"dispatcher(3,2)", dispatcher(3, 2), 59, true},
		{"dispatcher(5,2)", dispatcher(5, 2), 137, true},
	} {
		prev := -1
		for _, k := range []int{1, 2, 3, 0} {
			eng := "qpor"
			if k > 0 {
				eng = fmt.Sprintf("qpor:k=%d", k)
			}
			res, err := weft.Explore(tc.body, weft.WithEngine(eng))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d complete, %d redundant, %v", tc.name, eng, res.Complete, res.Redundant, res.Elapsed)
			if res.Complete != tc.traces || len(res.Bugs) > 0 || !res.Exhaustive {
				t.Errorf("%s %s: %d complete executions, %d bugs, exhaustive %v; want %d traces", tc.name, eng, res.Complete, len(res.Bugs), res.Exhaustive, tc.traces)
			}
			switch {
			case k == 1 && tc.entangled != (res.Redundant > 0):
				t.Errorf("%s %s: %d redundant executions, want some: %v", tc.name, eng, res.Redundant, tc.entangled)
			case k == 0 && res.Redundant > 0:
				t.Errorf("%s %s: %d redundant executions, want none", tc.name, eng, res.Redundant)
			case prev >= 0 && res.Redundant > prev:
				t.Errorf("%s %s: %d redundant executions, more than with k-1 (%d)", tc.name, eng, res.Redundant, prev)
			}
			prev = res.Redundant
		}
	}
}

// TestUnsupported: channels and weft.Yield are a Misuse bug that says so,
// not an exploration that misses what they do.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		body       func()
	}{
		{"channel", "qpor does not model channels yet", func() {
			c := weft.MakeChan[int](1)
			g := weft.Go(func() { c.Send(1) })
			c.Recv()
			g.Join()
		}},
		{"yield", "qpor does not model weft.Yield yet", func() {
			var ready atomic.Bool
			weft.Go(func() { ready.Store(true) })
			for !ready.Load() {
				weft.Yield()
			}
		}},
	} {
		res, err := weft.Explore(tc.body, weft.WithEngine("qpor"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse || !strings.Contains(res.Bugs[0].Message, tc.want) {
			t.Errorf("%s: bugs %v, want one Misuse saying %q", tc.name, res.Bugs, tc.want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	for _, tc := range []struct {
		in   string
		k    int
		fail string // part of the error, "" for none
	}{
		{"k=1", 1, ""},
		{" k = 3 ", 3, ""},
		{"k=0", 0, "at least 1"},
		{"k=-2", 0, "at least 1"},
		{"k=x", 0, "whole number"},
		{"k", 0, "want key=value"},
		{"", 0, "want key=value"},
		{"depth=2", 0, `unknown key "depth"`},
		{"k=2,k=3", 3, ""},
	} {
		o, err := qpor.ParseOptions(tc.in)
		switch {
		case tc.fail == "" && (err != nil || o.K != tc.k):
			t.Errorf("ParseOptions(%q) = %+v, %v; want k=%d", tc.in, o, err, tc.k)
		case tc.fail != "" && (err == nil || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("ParseOptions(%q): error %v, want one saying %q", tc.in, err, tc.fail)
		}
	}
}
