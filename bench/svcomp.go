package bench

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// The SV-COMP pthread programs of the paper's Table 9. The paper ran
// JMC's Java ports; where a port keeps the C program's behaviour it is
// followed here (fib_bench, sigma, singleton, lazy01), and where it does
// not the C program is (bigshot, queue_ok). The C programs' plain shared
// variables, which SV-COMP reads as sequentially consistent memory, are
// weft atomics where goroutines race on them (a Var would be reported as a
// data race, which Go makes them) and Vars where locks or joins order
// every access.

// FibBench returns fib_bench as JMC ports it: two goroutines each take a
// lock five times, to add i to j or j to i; main, without waiting for
// them, checks i and j against 144, which fib_bench-1 (strict: i > 144)
// never exceeds and fib_bench-2 (i >= 144) reaches.
func FibBench(strict bool) func() {
	return func() {
		var mu sync.Mutex
		var i, j atomic.Int64
		i.Store(1)
		j.Store(1)
		step := func(dst, src *atomic.Int64) func() {
			return func() {
				for range 5 {
					mu.Lock()
					dst.Store(dst.Load() + src.Load())
					mu.Unlock()
				}
			}
		}
		weft.Go(step(&j, &i))
		weft.Go(step(&i, &j))
		over := func(x int64) bool { return x > 144 || !strict && x == 144 }
		ci, cj := over(i.Load()), over(j.Load())
		weft.Assert(!ci && !cj, "i or j reached 144")
	}
}

// Sigma returns sigma as JMC ports it: n goroutines each increment a
// shared index without synchronization and set the array cell it names;
// main checks that all n cells are set, which lost increments prevent.
func Sigma(n int) func() {
	return func() {
		var index atomic.Int64
		index.Store(-1)
		array := make([]atomic.Int64, n)
		fs := make([]func(), n)
		for k := range fs {
			fs[k] = func() {
				index.Store(index.Load() + 1)
				array[index.Load()].Store(1)
			}
		}
		parallel(fs...)
		var sum int64
		for k := range array {
			sum += array[k].Load()
		}
		weft.Assert(sum == int64(n), "sum = %d, want %d", sum, n)
	}
}

// Singleton returns singleton (or, wup, singleton_with-uninit-problems)
// as JMC ports them: a goroutine starts one that sets c to '0' and waits
// for it, then four that set c under a lock, three to 'X' and one to
// 'Y'; main checks that c is 'X' (or, wup, 'X' or 'Y').
func Singleton(wup bool) func() {
	return func() {
		var mu sync.Mutex
		var c weft.Var[byte]
		set := func(v byte) func() {
			return func() {
				mu.Lock()
				c.Store(v)
				mu.Unlock()
			}
		}
		g := weft.Go(func() {
			weft.Go(func() { c.Store('0') }).Join()
			parallel(set('X'), set('Y'), set('X'), set('X'))
		})
		g.Join()
		v := c.Load()
		weft.Assert(v == 'X' || wup && v == 'Y', "c = %q", v)
	}
}

// Lazy01 returns lazy01: under one lock, a goroutine adds 1 to data,
// another adds 2 and a third checks that data is below 3.
func Lazy01() func() {
	return func() {
		var mu sync.Mutex
		var data weft.Var[int]
		add := func(d int) func() {
			return func() {
				mu.Lock()
				data.Store(data.Load() + d)
				mu.Unlock()
			}
		}
		parallel(add(1), add(2), func() {
			mu.Lock()
			weft.Assert(data.Load() < 3, "data = %d", data.Load())
			mu.Unlock()
		})
	}
}

// bigBuf is bigshot's buffer.
type bigBuf struct{ s weft.Var[string] }

// BigShot returns SV-COMP's bigshot programs: a goroutine allocates a
// buffer v, another copies "Bigshot" into it if it is allocated. In
// bigshot_s (variant "s") and bigshot_s2 ("s2") main runs them one after
// the other, in bigshot_p ("p") at the same time, and checks that v is
// unallocated or starts with 'B' (s2: that it is allocated and starts
// with 'B'), which fails in bigshot_p when the copy comes first. JMC's
// port replaces the buffer by a string and its checks differ, so that its
// bigshot_p cannot fail.
func BigShot(variant string) func() {
	return func() {
		var v atomic.Pointer[bigBuf]
		alloc := func() { v.Store(&bigBuf{}) }
		copyTo := func() {
			if b := v.Load(); b != nil {
				b.s.Store("Bigshot")
			}
		}
		if variant == "p" {
			parallel(alloc, copyTo)
		} else {
			weft.Go(alloc).Join()
			weft.Go(copyTo).Join()
		}
		b := v.Load()
		if variant == "s2" {
			weft.Assert(b != nil && b.s.Load() != "" && b.s.Load()[0] == 'B', "v is not \"Bigshot\"")
			return
		}
		weft.Assert(b == nil || b.s.Load() != "" && b.s.Load()[0] == 'B', "v[0] is not 'B'")
	}
}

// QueueOK returns SV-COMP's queue_ok with n elements (SV-COMP's SIZE is
// 20): the producer, under the lock once, enqueues n symbolic values and
// stores them; the consumer, under the lock once, dequeues them and
// compares each with the stored one as C's "!dequeue(&queue) ==
// stored_elements[i]" does, which can never hold. Unlike JMC's ports
// (svQueue), a queue of n values is not empty.
func QueueOK(n int) func() {
	return func() {
		var mu sync.Mutex
		elem := make([]weft.Var[sym.Int], n+1)
		stored := make([]weft.Var[sym.Int], n)
		var head, tail weft.Var[int]
		var enqueue, dequeue weft.Var[bool]
		enqueue.Store(true)
		advance := func(i int) int {
			if i == n {
				return 1
			}
			return i + 1
		}
		producer := func() {
			mu.Lock()
			defer mu.Unlock()
			if !enqueue.Load() {
				return
			}
			for i := range n {
				x := sym.NewInt("value")
				t := tail.Load()
				elem[t].Store(x)
				tail.Store(advance(t))
				stored[i].Store(x)
			}
			enqueue.Store(false)
			dequeue.Store(true)
		}
		consumer := func() {
			mu.Lock()
			defer mu.Unlock()
			if !dequeue.Load() {
				return
			}
			for i := range n {
				if head.Load() == tail.Load() {
					continue
				}
				h := head.Load()
				x := elem[h].Load()
				head.Store(advance(h))
				y := stored[i].Load()
				// !x == y: (x == 0 and y == 1) or (x != 0 and y == 0).
				bad := x.Eq(sym.Const(0)).And(y.Eq(sym.Const(1))).Or(x.Ne(sym.Const(0)).And(y.Eq(sym.Const(0))))
				sym.Assert(bad.Not(), "!dequeue(&queue) == stored_elements[%d]", i)
			}
			dequeue.Store(false)
			enqueue.Store(true)
		}
		parallel(producer, consumer)
	}
}
