package runtime

import (
	"testing"
	"time"
)

func TestGoid(t *testing.T) {
	for range 4 {
		c := make(chan [2]int64)
		go func() { c <- [2]int64{goid(), selfID()} }()
		if ids := <-c; ids[0] != ids[1] {
			t.Fatalf("goid() = %d, runtime.Stack says %d", ids[0], ids[1])
		}
	}
}

func TestRegistry(t *testing.T) {
	// Keys as descriptors' addresses are, many more than the table holds
	// at first, and removed in another order than added.
	const n = 1000
	ws := make([]*worker, n)
	key := func(i int) uintptr { return uintptr(0xc000100000 + 448*i) }
	before := workers.live.Load()
	for i := range n {
		ws[i] = &worker{d: &driver{}, id: int64(i)}
		register(key(i), ws[i])
	}
	for i := 0; i < n; i += 2 {
		unregister(key(i))
	}
	for i := range n {
		want := ws[i]
		if i%2 == 0 {
			want = nil
		}
		if got := lookup(key(i)); got != want {
			t.Fatalf("lookup(key %d) = %p, want %p", i, got, want)
		}
	}
	if w := byID(7); w != ws[7] {
		t.Errorf("byID(7) = %p, want %p", w, ws[7])
	}
	for i := 1; i < n; i += 2 {
		unregister(key(i))
	}
	if got := workers.live.Load(); got != before {
		t.Errorf("%d workers registered after all were removed, %d before", got, before)
	}
}

// BenchmarkLookup measures how an operation finds its worker: the cost
// that running adds to every operation, with a hundred other workers
// registered.
func BenchmarkLookup(b *testing.B) {
	for i := range 100 {
		register(uintptr(0xc000100000+448*i), &worker{})
		defer unregister(uintptr(0xc000100000 + 448*i))
	}
	w := &worker{}
	key := self()
	register(key, w)
	defer unregister(key)
	for b.Loop() {
		if lookup(self()) != w {
			b.Fatal("lost")
		}
	}
}

// TestOrphan: a goroutine that is not a worker and whose creator ended is
// the stray of the only check running; of none when no check runs (it
// ends quietly, as an abandoned one), nor when several do.
func TestOrphan(t *testing.T) {
	type result struct {
		o owner
		d *driver
	}
	orphan := func() result {
		for {
			c := make(chan result)
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				go func() {
					<-ended
					time.Sleep(time.Millisecond)
					o, d := whose()
					c <- result{o, d}
				}()
			}()
			// The creator may still be in the dump: then the goroutine is
			// the test's.
			if r := <-c; r.o != ownerOutside {
				return r
			}
		}
	}
	if r := orphan(); r.o != ownerAbandoned {
		t.Errorf("no check running: whose() = %d, want ownerAbandoned", r.o)
	}
	d1, d2 := &driver{id: 1}, &driver{id: 2}
	register(0xc000200000, &worker{d: d1})
	defer unregister(0xc000200000)
	if r := orphan(); r.o != ownerCheck || r.d != d1 {
		t.Errorf("one check running: whose() = %d, %p; want ownerCheck, %p", r.o, r.d, d1)
	}
	register(0xc000300000, &worker{d: d2})
	defer unregister(0xc000300000)
	if r := orphan(); r.o != ownerUnknown {
		t.Errorf("two checks running: whose() = %d, want ownerUnknown", r.o)
	}
}
