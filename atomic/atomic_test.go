package atomic_test

import (
	stdatomic "sync/atomic"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// inCheck runs f once as the body of a check, so that weft's atomics work.
func inCheck(t *testing.T, f func()) {
	t.Helper()
	res, err := weft.Explore(f)
	if err != nil || len(res.Bugs) != 0 || res.Executions != 1 {
		t.Fatalf("Explore: %v %v", err, res.Bugs)
	}
}

// intOps is a sequence of operations on an integer, applied to both the
// standard library's type and weft's; every result must agree.
var intOps = []struct {
	name string
	op   string
	a, b int64
}{
	{"store", "store", 5, 0},
	{"add", "add", 7, 0},
	{"add negative", "add", -20, 0},
	{"swap", "swap", -1, 0},
	{"cas fails", "cas", 3, 9},
	{"cas ok", "cas", -1, 9},
	{"and", "and", 0b1010, 0},
	{"or", "or", 0b0101, 0},
	{"overflow", "store", 1<<31 - 1, 0},
	{"wrap", "add", 1, 0},
	{"big add", "add", 1 << 40, 0},
}

func TestInt32(t *testing.T) {
	var std stdatomic.Int32
	inCheck(t, func() {
		var w atomic.Int32
		for _, o := range intOps {
			var got, want any
			switch o.op {
			case "store":
				std.Store(int32(o.a))
				w.Store(int32(o.a))
			case "add":
				got, want = w.Add(int32(o.a)), std.Add(int32(o.a))
			case "swap":
				got, want = w.Swap(int32(o.a)), std.Swap(int32(o.a))
			case "cas":
				got, want = w.CompareAndSwap(int32(o.a), int32(o.b)), std.CompareAndSwap(int32(o.a), int32(o.b))
			case "and":
				got, want = w.And(int32(o.a)), std.And(int32(o.a))
			case "or":
				got, want = w.Or(int32(o.a)), std.Or(int32(o.a))
			}
			if got != want || w.Load() != std.Load() {
				t.Errorf("%s: got %v (value %d), want %v (value %d)", o.name, got, w.Load(), want, std.Load())
			}
		}
	})
}

func TestInt64(t *testing.T) {
	var std stdatomic.Int64
	inCheck(t, func() {
		var w atomic.Int64
		for _, o := range intOps {
			var got, want any
			switch o.op {
			case "store":
				std.Store(o.a)
				w.Store(o.a)
			case "add":
				got, want = w.Add(o.a), std.Add(o.a)
			case "swap":
				got, want = w.Swap(o.a), std.Swap(o.a)
			case "cas":
				got, want = w.CompareAndSwap(o.a, o.b), std.CompareAndSwap(o.a, o.b)
			case "and":
				got, want = w.And(o.a), std.And(o.a)
			case "or":
				got, want = w.Or(o.a), std.Or(o.a)
			}
			if got != want || w.Load() != std.Load() {
				t.Errorf("%s: got %v (value %d), want %v (value %d)", o.name, got, w.Load(), want, std.Load())
			}
		}
	})
}

func TestUint32(t *testing.T) {
	var std stdatomic.Uint32
	inCheck(t, func() {
		var w atomic.Uint32
		for _, o := range intOps {
			a, b := uint32(o.a), uint32(o.b)
			var got, want any
			switch o.op {
			case "store":
				std.Store(a)
				w.Store(a)
			case "add":
				got, want = w.Add(a), std.Add(a)
			case "swap":
				got, want = w.Swap(a), std.Swap(a)
			case "cas":
				got, want = w.CompareAndSwap(a, b), std.CompareAndSwap(a, b)
			case "and":
				got, want = w.And(a), std.And(a)
			case "or":
				got, want = w.Or(a), std.Or(a)
			}
			if got != want || w.Load() != std.Load() {
				t.Errorf("%s: got %v (value %d), want %v (value %d)", o.name, got, w.Load(), want, std.Load())
			}
		}
	})
}

func TestUint64AndUintptr(t *testing.T) {
	var std stdatomic.Uint64
	var stdp stdatomic.Uintptr
	inCheck(t, func() {
		var w atomic.Uint64
		var wp atomic.Uintptr
		for _, o := range intOps {
			a, b := uint64(o.a), uint64(o.b)
			var got, want, gotp, wantp any
			switch o.op {
			case "store":
				std.Store(a)
				w.Store(a)
				stdp.Store(uintptr(a))
				wp.Store(uintptr(a))
			case "add":
				got, want = w.Add(a), std.Add(a)
				gotp, wantp = wp.Add(uintptr(a)), stdp.Add(uintptr(a))
			case "swap":
				got, want = w.Swap(a), std.Swap(a)
				gotp, wantp = wp.Swap(uintptr(a)), stdp.Swap(uintptr(a))
			case "cas":
				got, want = w.CompareAndSwap(a, b), std.CompareAndSwap(a, b)
				gotp, wantp = wp.CompareAndSwap(uintptr(a), uintptr(b)), stdp.CompareAndSwap(uintptr(a), uintptr(b))
			case "and":
				got, want = w.And(a), std.And(a)
				gotp, wantp = wp.And(uintptr(a)), stdp.And(uintptr(a))
			case "or":
				got, want = w.Or(a), std.Or(a)
				gotp, wantp = wp.Or(uintptr(a)), stdp.Or(uintptr(a))
			}
			if got != want || w.Load() != std.Load() || gotp != wantp || wp.Load() != stdp.Load() {
				t.Errorf("%s: got %v/%v, want %v/%v", o.name, got, gotp, want, wantp)
			}
		}
	})
}

func TestBool(t *testing.T) {
	var std stdatomic.Bool
	inCheck(t, func() {
		var w atomic.Bool
		steps := []func() (any, any){
			func() (any, any) { return w.Load(), std.Load() },
			func() (any, any) { w.Store(true); std.Store(true); return w.Load(), std.Load() },
			func() (any, any) { return w.Swap(false), std.Swap(false) },
			func() (any, any) { return w.CompareAndSwap(true, true), std.CompareAndSwap(true, true) },
			func() (any, any) { return w.CompareAndSwap(false, true), std.CompareAndSwap(false, true) },
			func() (any, any) { return w.Load(), std.Load() },
		}
		for i, s := range steps {
			if got, want := s(); got != want {
				t.Errorf("step %d: got %v, want %v", i, got, want)
			}
		}
	})
}

func TestPointer(t *testing.T) {
	a, b := new(int), new(int)
	var std stdatomic.Pointer[int]
	inCheck(t, func() {
		var w atomic.Pointer[int]
		steps := []func() (any, any){
			func() (any, any) { return w.Load(), std.Load() },
			func() (any, any) { return w.CompareAndSwap(nil, a), std.CompareAndSwap(nil, a) },
			func() (any, any) { return w.CompareAndSwap(nil, b), std.CompareAndSwap(nil, b) },
			func() (any, any) { return w.Swap(b), std.Swap(b) },
			func() (any, any) { w.Store(nil); std.Store(nil); return w.Load(), std.Load() },
		}
		for i, s := range steps {
			if got, want := s(); got != want {
				t.Errorf("step %d: got %v, want %v", i, got, want)
			}
		}
	})
}

// panics returns what f panics with.
func panics(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

func TestValue(t *testing.T) {
	var std stdatomic.Value
	inCheck(t, func() {
		var w atomic.Value
		steps := []struct {
			name string
			f    func() (any, any)
		}{
			{"empty load", func() (any, any) { return w.Load(), std.Load() }},
			{"cas on empty with old", func() (any, any) { return w.CompareAndSwap(1, 2), std.CompareAndSwap(1, 2) }},
			{"cas on empty", func() (any, any) { return w.CompareAndSwap(nil, 2), std.CompareAndSwap(nil, 2) }},
			{"store", func() (any, any) { w.Store(3); std.Store(3); return w.Load(), std.Load() }},
			{"swap", func() (any, any) { return w.Swap(4), std.Swap(4) }},
			{"cas", func() (any, any) { return w.CompareAndSwap(4, 5), std.CompareAndSwap(4, 5) }},
			{"store nil", func() (any, any) {
				return panics(func() { w.Store(nil) }) != nil, panics(func() { std.Store(nil) }) != nil
			}},
			{"store other type", func() (any, any) {
				return panics(func() { w.Store("x") }) != nil, panics(func() { std.Store("x") }) != nil
			}},
			{"cas other types", func() (any, any) {
				return panics(func() { w.CompareAndSwap(5, "x") }) != nil, panics(func() { std.CompareAndSwap(5, "x") }) != nil
			}},
			{"unchanged", func() (any, any) { return w.Load(), std.Load() }},
		}
		for _, s := range steps {
			if got, want := s.f(); got != want {
				t.Errorf("%s: got %v, want %v", s.name, got, want)
			}
		}
	})
}

// TestAddIsAtomic checks that concurrent Adds never lose an update, in any
// interleaving, while a Load-then-Store increment does.
func TestAddIsAtomic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inc     func(*atomic.Int64)
		wantBug bool
	}{
		{"add", func(x *atomic.Int64) { x.Add(1) }, false},
		{"cas loop", func(x *atomic.Int64) {
			for {
				v := x.Load()
				if x.CompareAndSwap(v, v+1) {
					return
				}
			}
		}, false},
		{"load store", func(x *atomic.Int64) { x.Store(x.Load() + 1) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := weft.Explore(func() {
				var x atomic.Int64
				gs := []*weft.Goroutine{weft.Go(func() { tc.inc(&x) }), weft.Go(func() { tc.inc(&x) })}
				tc.inc(&x)
				for _, g := range gs {
					g.Join()
				}
				weft.Assert(x.Load() == 3, "x = %d", x.Load())
			}, weft.WithMaxSteps(100))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Bugs) > 0; got != tc.wantBug {
				t.Errorf("bug found: %v, want %v (%v)", got, tc.wantBug, res.Bugs)
			}
		})
	}
}
