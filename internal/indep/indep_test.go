package indep

import (
	"testing"
	"weft.dev/weft/internal/engine"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/event"
)

// op describes an operation for the table: goroutine, label, outcome and
// the value of its object before it.
type op struct {
	g      int32
	l      event.Label
	alt    int32
	old    event.Value
	with   int32
	silent bool
}

// offer makes o a silent step (with: the partner plus one).
func offer(o op, with int32) op {
	o.silent, o.with = true, with
	return o
}

// taking makes o take the offer of goroutine g.
func taking(o op, g int32) op {
	o.with = g + 1
	return o
}

func (o op) event() Event {
	e := Of(o.g, &o.l, o.alt, o.with, o.old)
	e.Silent = o.silent
	return e
}

func mem(g int32, k event.Kind, ok event.ObjKind, obj int32) op {
	return op{g: g, l: event.Label{Kind: k, OKind: ok, Obj: obj}}
}

func cas(g int32, obj int32, expect, old uint64) op {
	return op{g: g, l: event.Label{Kind: event.RMW, Op: event.CAS, OKind: event.Atomic, Obj: obj, A: event.Value{N: expect}, B: event.Value{N: 9}}, old: event.Value{N: old}}
}

func ch(g int32, k event.Kind, c chans.ID) op {
	return op{g: g, l: event.Label{Kind: k, OKind: event.Chan, Obj: 0, B: event.Value{N: uint64(c)}}}
}

func sel(g int32, cs ...chans.ID) op {
	var cases []chans.Case
	for _, c := range cs {
		cases = append(cases, chans.Case{Chan: c})
	}
	return op{g: g, l: event.Label{Kind: event.Select, OKind: event.Chan, Obj: 0, A: event.Value{P: cases}}}
}

func ctl(g int32, k event.Kind, arg int32) op {
	return op{g: g, l: event.Label{Kind: k, Obj: -1, Arg: arg}}
}

func TestDependent(t *testing.T) {
	const (
		g1, g2, g3 = 1, 2, 3
		x, y       = 4, 5
	)
	locked := event.Value{N: 1}
	tests := []struct {
		name string
		a, b op
		want bool
	}{
		{"same goroutine, different objects", mem(g1, event.Load, event.Atomic, x), mem(g1, event.Load, event.Atomic, y), true},
		{"two loads commute", mem(g1, event.Load, event.Atomic, x), mem(g2, event.Load, event.Atomic, x), false},
		{"two Var loads commute", mem(g1, event.Load, event.VarObj, x), mem(g2, event.Load, event.VarObj, x), false},
		{"load and store of one location", mem(g1, event.Load, event.Atomic, x), mem(g2, event.Store, event.Atomic, x), true},
		{"two stores of one location", mem(g1, event.Store, event.VarObj, x), mem(g2, event.Store, event.VarObj, x), true},
		{"stores of different locations", mem(g1, event.Store, event.Atomic, x), mem(g2, event.Store, event.Atomic, y), false},
		{"two adds of one location", op{g: g1, l: event.Label{Kind: event.RMW, Op: event.Add, OKind: event.Atomic, Obj: x}}, op{g: g2, l: event.Label{Kind: event.RMW, Op: event.Add, OKind: event.Atomic, Obj: x}}, true},
		{"two failing CASes commute", cas(g1, x, 1, 0), cas(g2, x, 2, 0), false},
		{"failing CAS and load commute", cas(g1, x, 1, 0), mem(g2, event.Load, event.Atomic, x), false},
		{"succeeding CAS and load", cas(g1, x, 0, 0), mem(g2, event.Load, event.Atomic, x), true},
		{"failing CAS and store", cas(g1, x, 1, 0), mem(g2, event.Store, event.Atomic, x), true},
		{"locks of one mutex", mem(g1, event.Lock, event.Mutex, x), mem(g2, event.Lock, event.Mutex, x), true},
		{"locks of different mutexes", mem(g1, event.Lock, event.Mutex, x), mem(g2, event.Lock, event.Mutex, y), false},
		{"unlock and lock of one mutex", op{g: g1, l: event.Label{Kind: event.Unlock, OKind: event.Mutex, Obj: x}, old: locked}, mem(g2, event.Lock, event.Mutex, x), true},
		{"two failing TryLocks commute", op{g: g1, l: event.Label{Kind: event.TryLock, OKind: event.Mutex, Obj: x}, old: locked}, op{g: g2, l: event.Label{Kind: event.TryLock, OKind: event.Mutex, Obj: x}, old: locked}, false},
		{"succeeding TryLock and failing TryLock", mem(g1, event.TryLock, event.Mutex, x), op{g: g2, l: event.Label{Kind: event.TryLock, OKind: event.Mutex, Obj: x}, old: locked}, true},
		{"two semaphore releases", mem(g1, event.SemRelease, event.Sem, x), mem(g2, event.SemRelease, event.Sem, x), true},
		{"two Cond waits commute", mem(g1, event.NotifyWait, event.Notify, x), mem(g2, event.NotifyWait, event.Notify, x), false},
		{"Cond wait and signal", mem(g1, event.NotifyWait, event.Notify, x), mem(g2, event.NotifyOne, event.Notify, x), true},
		{"spawn and the child's operation", ctl(g1, event.Spawn, g2), mem(g2, event.Load, event.Atomic, x), true},
		{"spawn and another goroutine's operation", ctl(g1, event.Spawn, g2), mem(g3, event.Store, event.Atomic, x), false},
		{"join and the end of the joined", ctl(g1, event.Join, g2), ctl(g2, event.End, 0), true},
		{"join and another end", ctl(g1, event.Join, g2), ctl(g3, event.End, 0), false},
		{"send and receive on one channel", ch(g1, event.ChanSend, 7), ch(g2, event.ChanRecv, 7), true},
		{"send and receive on different channels", ch(g1, event.ChanSend, 7), ch(g2, event.ChanRecv, 8), false},
		{"two lens commute", ch(g1, event.ChanLen, 7), ch(g2, event.ChanLen, 7), false},
		{"len and send", ch(g1, event.ChanLen, 7), ch(g2, event.ChanSend, 7), true},
		{"select and a close of one of its channels", sel(g1, 7, 8), ch(g2, event.ChanClose, 8), true},
		{"select and a close of another channel", sel(g1, 7, 8), ch(g2, event.ChanClose, 9), false},
		{"nil channels are no channel", ch(g1, event.ChanSend, chans.Nil), ch(g2, event.ChanRecv, chans.Nil), false},
		{"an offer and a send on its channel", offer(ch(g1, event.ChanSend, 7), 0), ch(g2, event.ChanSend, 7), false},
		{"an offer and a select's default", offer(ch(g1, event.ChanSend, 7), 0), sel(g2, 7), false},
		{"an offer and the receive that takes it", offer(ch(g1, event.ChanSend, 7), 0), taking(ch(g2, event.ChanRecv, 7), g1), true},
		{"a handed wait and its taker", offer(ch(g1, event.ChanWait, 7), g2+1), taking(ch(g2, event.ChanRecv, 7), g1), true},
		{"a handed wait and its taker's next operation", offer(ch(g1, event.ChanWait, 7), g2+1), ch(g2, event.ChanLen, 7), false},
		{"a handed wait and its taker's offer", offer(ch(g1, event.ChanWait, 7), g2+1), offer(ch(g2, event.Select, 7), 0), false},
		{"a handed wait and a close", offer(ch(g1, event.ChanWait, 7), g2+1), ch(g3, event.ChanClose, 7), false},
		{"make and a send", ch(g1, event.ChanMake, 3), ch(g2, event.ChanSend, 3), false},
		{"two symbolic branches commute", ctl(g1, event.SymEval, 0), ctl(g2, event.SymEval, 0), false},
		{"a branch and a store commute", ctl(g1, event.SymEval, 0), mem(g2, event.Store, event.Atomic, x), false},
		{"Yield's wait and a write", ctl(g1, event.Block, event.Await), mem(g2, event.Store, event.Atomic, y), true},
		{"Yield's wait and a send", ctl(g1, event.Block, event.Await), ch(g2, event.ChanSend, 7), false},
		{"Yield's wait and a load", ctl(g1, event.Block, event.Await), mem(g2, event.Load, event.Atomic, y), false},
		{"Assume's block and a write", ctl(g1, event.Block, 0), mem(g2, event.Store, event.Atomic, y), false},
	}
	for _, tt := range tests {
		a, b := tt.a.event(), tt.b.event()
		if got := Dependent(&a, &b); got != tt.want {
			t.Errorf("%s: Dependent = %v, want %v", tt.name, got, tt.want)
		}
		if got := Dependent(&b, &a); got != tt.want {
			t.Errorf("%s (swapped): Dependent = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTrace checks that swapping adjacent independent events keeps the
// hash and swapping dependent ones changes it.
func TestTrace(t *testing.T) {
	w := mem(1, event.Store, event.Atomic, 0).event()
	r := mem(2, event.Load, event.Atomic, 0).event()
	r3 := mem(3, event.Load, event.Atomic, 0).event()
	o := mem(3, event.Store, event.Atomic, 1).event()
	hash := func(evs ...Event) uint64 {
		var tr Trace
		for _, e := range evs {
			tr.Add(e)
		}
		return tr.Hash()
	}
	if hash(w, r, o) != hash(w, o, r) {
		t.Error("swapping a load and an independent store changed the trace")
	}
	if hash(w, r, r3) != hash(w, r3, r) {
		t.Error("swapping two loads changed the trace")
	}
	if hash(w, r) == hash(r, w) {
		t.Error("swapping a store and a load of its location kept the trace")
	}
	var tr Trace
	tr.Add(w)
	tr.Add(r)
	tr.Reset()
	tr.Add(r)
	tr.Add(w)
	if tr.Len() != 2 || tr.Hash() != hash(r, w) {
		t.Error("Reset did not start a new interleaving")
	}
}

// TestLocal checks the classes of bug endings that Trace.Ending gives
// interleavings: a failure's local configuration ignores what it does not
// depend on, wherever it falls, and tells apart the orders of what it
// does; a deadlock's class is the whole trace.
func TestLocal(t *testing.T) {
	const (
		g1, g2 = 1, 2
		x, y   = 4, 5
	)
	fail := ctl(g2, event.Fail, int32(engine.AssertionFailed))
	storeX, storeY, loadX := mem(g1, event.Store, event.Atomic, x), mem(g2, event.Store, event.Atomic, y), mem(g2, event.Load, event.Atomic, x)
	g1StoreY := mem(g1, event.Store, event.Atomic, y)
	tests := []struct {
		name string
		kind engine.BugKind
		a, b []op
		same bool
	}{
		{"independent store before or after", engine.AssertionFailed, []op{storeX, storeY, fail}, []op{storeY, fail, storeX}, true},
		{"independent store between", engine.AssertionFailed, []op{storeY, storeX, fail}, []op{storeY, fail}, true},
		{"the load reads before or after the store", engine.AssertionFailed, []op{storeX, loadX, fail}, []op{loadX, storeX, fail}, false},
		{"another goroutine stores y before or after", engine.AssertionFailed, []op{g1StoreY, storeY, fail}, []op{storeY, g1StoreY, fail}, false},
		{"a deadlock is the whole trace", engine.Deadlock, []op{storeX, storeY}, []op{storeY}, false},
		{"a deadlock's independent events commute", engine.Deadlock, []op{storeX, storeY}, []op{storeY, storeX}, true},
	}
	for _, tt := range tests {
		var h [2]uint64
		for i, ops := range [2][]op{tt.a, tt.b} {
			var tr Trace
			for _, o := range ops {
				tr.Add(o.event())
			}
			h[i] = tr.Ending(tt.kind, g2)
		}
		if (h[0] == h[1]) != tt.same {
			t.Errorf("%s: same class %v, want %v", tt.name, h[0] == h[1], tt.same)
		}
	}
}
