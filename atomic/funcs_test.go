package atomic_test

import (
	"fmt"
	"strings"
	stdatomic "sync/atomic"
	"testing"
	"unsafe"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// TestIntFuncs applies the same operations with sync/atomic's functions to
// one variable and with weft's to another, from the same initial value and
// with plain writes in between, and compares every result and the
// variables, read plainly.
func TestIntFuncs(t *testing.T) {
	for _, start := range []int64{0, 1, -7, 1 << 40} {
		for _, tc := range []struct {
			name string
			run  func(t *testing.T, start int64)
		}{
			{"int32", runInts[int32]},
			{"int64", runInts[int64]},
			{"uint32", runInts[uint32]},
			{"uint64", runInts[uint64]},
			{"uintptr", runInts[uintptr]},
		} {
			t.Run(tc.name, func(t *testing.T) { tc.run(t, start) })
		}
	}
}

// ops are the functions of sync/atomic on one integer type, the standard
// library's or weft's.
type ops[T interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~uintptr
}] struct {
	load  func(*T) T
	store func(*T, T)
	swap  func(*T, T) T
	cas   func(*T, T, T) bool
	add   func(*T, T) T
	and   func(*T, T) T
	or    func(*T, T) T
}

func opsOf[T interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~uintptr
}]() (std, w ops[T]) {
	switch any(T(0)).(type) {
	case int32:
		std = any(ops[int32]{stdatomic.LoadInt32, stdatomic.StoreInt32, stdatomic.SwapInt32, stdatomic.CompareAndSwapInt32, stdatomic.AddInt32, stdatomic.AndInt32, stdatomic.OrInt32}).(ops[T])
		w = any(ops[int32]{atomic.LoadInt32, atomic.StoreInt32, atomic.SwapInt32, atomic.CompareAndSwapInt32, atomic.AddInt32, atomic.AndInt32, atomic.OrInt32}).(ops[T])
	case int64:
		std = any(ops[int64]{stdatomic.LoadInt64, stdatomic.StoreInt64, stdatomic.SwapInt64, stdatomic.CompareAndSwapInt64, stdatomic.AddInt64, stdatomic.AndInt64, stdatomic.OrInt64}).(ops[T])
		w = any(ops[int64]{atomic.LoadInt64, atomic.StoreInt64, atomic.SwapInt64, atomic.CompareAndSwapInt64, atomic.AddInt64, atomic.AndInt64, atomic.OrInt64}).(ops[T])
	case uint32:
		std = any(ops[uint32]{stdatomic.LoadUint32, stdatomic.StoreUint32, stdatomic.SwapUint32, stdatomic.CompareAndSwapUint32, stdatomic.AddUint32, stdatomic.AndUint32, stdatomic.OrUint32}).(ops[T])
		w = any(ops[uint32]{atomic.LoadUint32, atomic.StoreUint32, atomic.SwapUint32, atomic.CompareAndSwapUint32, atomic.AddUint32, atomic.AndUint32, atomic.OrUint32}).(ops[T])
	case uint64:
		std = any(ops[uint64]{stdatomic.LoadUint64, stdatomic.StoreUint64, stdatomic.SwapUint64, stdatomic.CompareAndSwapUint64, stdatomic.AddUint64, stdatomic.AndUint64, stdatomic.OrUint64}).(ops[T])
		w = any(ops[uint64]{atomic.LoadUint64, atomic.StoreUint64, atomic.SwapUint64, atomic.CompareAndSwapUint64, atomic.AddUint64, atomic.AndUint64, atomic.OrUint64}).(ops[T])
	case uintptr:
		std = any(ops[uintptr]{stdatomic.LoadUintptr, stdatomic.StoreUintptr, stdatomic.SwapUintptr, stdatomic.CompareAndSwapUintptr, stdatomic.AddUintptr, stdatomic.AndUintptr, stdatomic.OrUintptr}).(ops[T])
		w = any(ops[uintptr]{atomic.LoadUintptr, atomic.StoreUintptr, atomic.SwapUintptr, atomic.CompareAndSwapUintptr, atomic.AddUintptr, atomic.AndUintptr, atomic.OrUintptr}).(ops[T])
	}
	return std, w
}

func runInts[T interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~uintptr
}](t *testing.T, start int64) {
	std, w := opsOf[T]()
	inCheck(t, func() {
		s, v := T(start), T(start)
		for _, o := range append(intOps, struct {
			name string
			op   string
			a, b int64
		}{"plain write", "plain", 12, 0}, intOps[1], intOps[6], intOps[7]) {
			a, b := T(o.a), T(o.b)
			var got, want any
			switch o.op {
			case "plain":
				s, v = a, a
			case "store":
				std.store(&s, a)
				w.store(&v, a)
			case "add":
				got, want = w.add(&v, a), std.add(&s, a)
			case "swap":
				got, want = w.swap(&v, a), std.swap(&s, a)
			case "cas":
				got, want = w.cas(&v, a, b), std.cas(&s, a, b)
			case "and":
				got, want = w.and(&v, a), std.and(&s, a)
			case "or":
				got, want = w.or(&v, a), std.or(&s, a)
			}
			if got != want || v != s || w.load(&v) != std.load(&s) {
				t.Errorf("from %d, %s: got %v (value %d), want %v (value %d)", start, o.name, got, v, want, s)
			}
		}
	})
}

func TestPointerFuncs(t *testing.T) {
	a, b := unsafe.Pointer(new(int)), unsafe.Pointer(new(int))
	for _, start := range []unsafe.Pointer{nil, a} {
		inCheck(t, func() {
			s, v := start, start
			steps := []struct {
				name string
				f    func() (any, any)
			}{
				{"load", func() (any, any) { return atomic.LoadPointer(&v), stdatomic.LoadPointer(&s) }},
				{"cas nil to b", func() (any, any) {
					return atomic.CompareAndSwapPointer(&v, nil, b), stdatomic.CompareAndSwapPointer(&s, nil, b)
				}},
				{"cas a to b", func() (any, any) {
					return atomic.CompareAndSwapPointer(&v, a, b), stdatomic.CompareAndSwapPointer(&s, a, b)
				}},
				{"swap to nil", func() (any, any) { return atomic.SwapPointer(&v, nil), stdatomic.SwapPointer(&s, nil) }},
				{"cas nil to a", func() (any, any) {
					return atomic.CompareAndSwapPointer(&v, nil, a), stdatomic.CompareAndSwapPointer(&s, nil, a)
				}},
				{"plain write", func() (any, any) { v, s = b, b; return nil, nil }},
				{"store nil", func() (any, any) {
					atomic.StorePointer(&v, nil)
					stdatomic.StorePointer(&s, nil)
					return atomic.LoadPointer(&v), stdatomic.LoadPointer(&s)
				}},
				{"swap to b", func() (any, any) { return atomic.SwapPointer(&v, b), stdatomic.SwapPointer(&s, b) }},
			}
			for _, st := range steps {
				if got, want := st.f(); got != want || v != s {
					t.Errorf("from %v, %s: got %v (value %v), want %v (value %v)", start, st.name, got, v, want, s)
				}
			}
		})
	}
}

// explore runs body with each engine and returns the results.
func explore(t *testing.T, body func()) map[string]weft.Result {
	t.Helper()
	out := map[string]weft.Result{}
	for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor"} {
		res, err := weft.Explore(body, weft.WithEngine(eng), weft.WithAllBugs())
		if err != nil {
			t.Fatal(err)
		}
		out[eng] = res
	}
	return out
}

// TestFuncsConcurrent checks programs on plain variables under every
// engine: the bugs found, and the outcomes seen through plain reads.
func TestFuncsConcurrent(t *testing.T) {
	tests := []struct {
		name string
		// body runs the program and returns what a plain read of its
		// variable sees at the end.
		body     func() int64
		outcomes []int64 // every outcome
		// bad is the outcome that the program's assertion fails on, as
		// every engine must find, if any.
		bad string
	}{
		{"add", func() int64 {
			var n int32
			g := weft.Go(func() { atomic.AddInt32(&n, 1) })
			atomic.AddInt32(&n, 1)
			g.Join()
			return int64(n)
		}, []int64{2}, ""},
		{"lost update", func() int64 {
			var n int32
			inc := func() { atomic.StoreInt32(&n, atomic.LoadInt32(&n)+1) }
			g := weft.Go(inc)
			inc()
			g.Join()
			return int64(n)
		}, []int64{1, 2}, "1"},
		{"stores race", func() int64 {
			var n int64
			g := weft.Go(func() { atomic.StoreInt64(&n, 1) })
			atomic.StoreInt64(&n, 2)
			g.Join()
			return n
		}, []int64{1, 2}, ""},
		{"reference count from one", func() int64 {
			refs := int32(1)
			var freed atomic.Int32
			release := func() {
				if atomic.AddInt32(&refs, -1) == 0 {
					freed.Add(1)
				}
			}
			atomic.AddInt32(&refs, 1) // a second owner
			g := weft.Go(release)
			release()
			g.Join()
			weft.Assert(freed.Load() == 1, "freed %d times", freed.Load())
			return int64(refs)
		}, []int64{0}, ""},
		{"plain reset between phases", func() int64 {
			var n uint64
			phase := func() {
				g := weft.Go(func() { atomic.AddUint64(&n, 1) })
				atomic.AddUint64(&n, 1)
				g.Join()
			}
			phase()
			weft.Assert(n == 2, "first phase: n = %d", n)
			n = 10 // ordered after the first phase, before the second
			phase()
			weft.Assert(atomic.LoadUint64(&n) == 12, "second phase: n = %d", n)
			return int64(n)
		}, []int64{12}, ""},
		{"or from a non-zero base", func() int64 {
			flags := uint32(0b100)
			g := weft.Go(func() { atomic.OrUint32(&flags, 0b001) })
			atomic.OrUint32(&flags, 0b010)
			g.Join()
			return int64(flags)
		}, []int64{0b111}, ""},
		{"pointer published once", func() int64 {
			var p unsafe.Pointer
			var inits atomic.Int32
			get := func() {
				if atomic.LoadPointer(&p) == nil {
					inits.Add(1)
					atomic.StorePointer(&p, unsafe.Pointer(new(int)))
				}
			}
			g := weft.Go(get)
			get()
			g.Join()
			return int64(inits.Load())
		}, []int64{1, 2}, "2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen map[int64]bool
			body := func() {
				v := tc.body()
				seen[v] = true
				weft.Assert(fmt.Sprint(v) != tc.bad, "bad outcome %d", v)
			}
			for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor"} {
				seen = map[int64]bool{}
				// One worker: body records its outcomes in a map.
				res, err := weft.Explore(body, weft.WithEngine(eng), weft.WithAllBugs(), weft.WithWorkers(1))
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for v := range seen {
					got = append(got, v)
				}
				if !sameSet(got, tc.outcomes) {
					t.Errorf("%s: outcomes %v, want %v", eng, got, tc.outcomes)
				}
				var msgs []string
				for _, b := range res.Bugs {
					msgs = append(msgs, b.Kind.String()+": "+b.Message)
				}
				want := ""
				if tc.bad != "" {
					want = "assertion failed: bad outcome " + tc.bad
				}
				if strings.Join(msgs, "\n") != want {
					t.Errorf("%s: bugs %q, want %q", eng, msgs, want)
				}
				if !res.Exhaustive {
					t.Errorf("%s: not exhaustive", eng)
				}
			}
		})
	}
}

func sameSet(a, b []int64) bool {
	m := map[int64]bool{}
	for _, v := range a {
		m[v] = true
	}
	for _, v := range b {
		if !m[v] {
			return false
		}
	}
	return len(m) == len(b)
}

// TestFuncsCountAsTypes checks that a program on a plain variable explores
// as many executions, with the same outcomes, as the same program on an
// atomic.Int32 set to the variable's initial value, with each engine.
func TestFuncsCountAsTypes(t *testing.T) {
	plain := func(outcomes map[string]bool) func() {
		return func() {
			n := int32(5)
			var rs [3]int32
			gs := []*weft.Goroutine{
				weft.Go(func() { atomic.StoreInt32(&n, 1); rs[0] = atomic.LoadInt32(&n) }),
				weft.Go(func() {
					if atomic.CompareAndSwapInt32(&n, 5, 7) {
						rs[1] = 1
					}
					rs[1] += atomic.AddInt32(&n, 2) * 10
				}),
				weft.Go(func() { rs[2] = atomic.SwapInt32(&n, 3); atomic.AddInt32(&n, 8) }),
			}
			for _, g := range gs {
				g.Join()
			}
			outcomes[fmt.Sprint(rs, n)] = true
		}
	}
	typed := func(outcomes map[string]bool) func() {
		return func() {
			var n atomic.Int32
			n.Store(5)
			var rs [3]int32
			gs := []*weft.Goroutine{
				weft.Go(func() { n.Store(1); rs[0] = n.Load() }),
				weft.Go(func() {
					if n.CompareAndSwap(5, 7) {
						rs[1] = 1
					}
					rs[1] += n.Add(2) * 10
				}),
				weft.Go(func() { rs[2] = n.Swap(3); n.Add(8) }),
			}
			for _, g := range gs {
				g.Join()
			}
			outcomes[fmt.Sprint(rs, n.Load())] = true
		}
	}
	for _, eng := range []string{"condpor", "sdpor", "mpor", "qpor"} {
		// One worker: the bodies record their outcomes in maps.
		po, to := map[string]bool{}, map[string]bool{}
		p, err := weft.Explore(plain(po), weft.WithEngine(eng), weft.WithWorkers(1))
		if err != nil || len(p.Bugs) > 0 {
			t.Fatal(err, p.Bugs)
		}
		ty, err := weft.Explore(typed(to), weft.WithEngine(eng), weft.WithWorkers(1))
		if err != nil || len(ty.Bugs) > 0 {
			t.Fatal(err, ty.Bugs)
		}
		if p.Executions != ty.Executions || fmt.Sprint(po) != fmt.Sprint(to) {
			t.Errorf("%s: %d executions and %d outcomes on a plain variable, %d and %d on an atomic.Int32", eng, p.Executions, len(po), ty.Executions, len(to))
		}
	}
}

// TestFuncsPerExecution checks that a variable outside the body starts each
// execution from the value it holds then, not from the previous
// execution's location.
func TestFuncsPerExecution(t *testing.T) {
	var n int64
	res, err := weft.Explore(func() {
		n = 5
		g := weft.Go(func() { atomic.AddInt64(&n, 1) })
		atomic.AddInt64(&n, 1)
		g.Join()
		weft.Assert(atomic.LoadInt64(&n) == 7, "n = %d", n)
	}, weft.WithWorkers(1)) // n, outside the body, is every execution's
	if err != nil || len(res.Bugs) > 0 || res.Executions != 2 {
		t.Errorf("%v %v, %d executions", err, res.Bugs, res.Executions)
	}
}

func TestFuncsMixedSizes(t *testing.T) {
	res, err := weft.Explore(func() {
		var n int64
		atomic.AddInt64(&n, 1)
		atomic.LoadInt32((*int32)(unsafe.Pointer(&n)))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "sync/atomic: LoadInt32 of 32 bits on a variable accessed as 64 bits before"
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse || res.Bugs[0].Message != want {
		t.Errorf("bugs %v, want a misuse %q", res.Bugs, want)
	}
}

// TestFuncsTrace checks that a report shows the variable's values, not
// the location's.
func TestFuncsTrace(t *testing.T) {
	res, err := weft.Explore(func() {
		refs := int32(1)
		atomic.AddInt32(&refs, -1)
		weft.Assert(atomic.LoadInt32(&refs) == 1, "refs = %d", refs)
	})
	if err != nil || len(res.Bugs) != 1 {
		t.Fatalf("%v %v", err, res.Bugs)
	}
	report := res.Bugs[0].Error()
	for _, want := range []string{"AddInt32 atomic#0 -1 = 0 (was 1, initial)", "LoadInt32 atomic#0 = 0 (from #1)"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}
