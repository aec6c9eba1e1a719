package runtime

import "testing"

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
