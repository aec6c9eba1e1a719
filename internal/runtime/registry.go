package runtime

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The registry of workers. Any number of checks run at once in a process,
// each with its own driver, executions and workers; a weft operation finds
// its execution from the goroutine that calls it: the worker it runs on,
// found by the identity self returns, then the goroutine the worker runs.
// A worker registers itself when its coroutine starts and withdraws when it
// ends, before the Go runtime can reuse its descriptor for another
// goroutine: a goroutine that is not in the registry is not weft's.
//
// Lookups are on the path of every operation: the table is open-addressed
// and read without locks. Only the goroutine of a key ever adds, reads or
// removes it, so a lookup never races with a change of its own entry;
// changes of other entries, and the growth of the table (a new table
// published whole), are serialized by the registry's mutex.

// slot is an entry of the table: key 0 is free, tomb a removed entry.
type slot struct {
	key atomic.Uintptr
	w   atomic.Pointer[worker]
}

// tomb is neither an address nor a goroutine's Go id (see self).
const tomb = ^uintptr(0)

type table struct {
	slots []slot // a power of two
	shift uint   // 64 - log2(len(slots))
	// Every operation of every check reads the table, which changes only
	// when it is replaced. Alone in its size class's 128 bytes, it shares
	// no cache line, nor the pair of lines that the cores fetch together,
	// with an object that a worker writes: a 32-byte table did with the
	// objects of whatever the allocator put beside it, which the
	// profiles of two workers showed as 0.5 to 2% of their time in hash.
	_ [128 - unsafe.Sizeof([]slot{}) - unsafe.Sizeof(uint(0))]byte
}

var workers struct {
	mu    sync.Mutex
	t     atomic.Pointer[table]
	live  atomic.Int32 // registered workers
	taken int          // slots in use or tombs, under mu
}

// hash spreads the descriptors' addresses (multiples of their size) over
// the table.
func (t *table) hash(key uintptr) uintptr {
	// The mask, a no-op since tables have 64 slots or more (regrow),
	// spares the shift the checks of a count of 64 or more, on the path
	// of every operation.
	return uintptr(uint64(key)*0x9E3779B97F4A7C15) >> (t.shift & 63)
}

// lookup returns the worker of the goroutine whose self is key, or nil.
func lookup(key uintptr) *worker {
	t := workers.t.Load()
	if t == nil {
		return nil
	}
	mask := uintptr(len(t.slots) - 1)
	for i := t.hash(key); ; i = (i + 1) & mask {
		switch t.slots[i].key.Load() {
		case key:
			return t.slots[i].w.Load()
		case 0:
			return nil
		}
	}
}

// first is lookup's first probe: the worker in key's first slot, or nil
// when key is not there. Most lookups end there; Op, on the path of most
// operations, calls it inlined and lookup only when it fails.
func first(key uintptr) *worker {
	if t := workers.t.Load(); t != nil {
		if s := &t.slots[t.hash(key)]; s.key.Load() == key {
			return s.w.Load()
		}
	}
	return nil
}

// register adds w, the worker of the calling goroutine, whose self is key.
func register(key uintptr, w *worker) {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	t := workers.t.Load()
	if t == nil || 4*(workers.taken+1) > 3*len(t.slots) {
		t = regrow(t)
		workers.t.Store(t)
	}
	mask := uintptr(len(t.slots) - 1)
	for i := t.hash(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if k := s.key.Load(); k == 0 || k == tomb {
			if k == 0 {
				workers.taken++
			}
			// The worker first: a lookup that finds the key finds it.
			s.w.Store(w)
			s.key.Store(key)
			workers.live.Add(1)
			return
		}
	}
}

// regrow returns a copy of t without its tombs, large enough for twice its
// live entries.
func regrow(t *table) *table {
	n := 64
	for 4*int(workers.live.Load()+1)*2 > 3*n {
		n *= 2
	}
	shift := uint(64)
	for m := n; m > 1; m >>= 1 {
		shift--
	}
	nt := &table{slots: make([]slot, n), shift: shift}
	workers.taken = 0
	if t == nil {
		return nt
	}
	mask := uintptr(n - 1)
	for i := range t.slots {
		k := t.slots[i].key.Load()
		if k == 0 || k == tomb {
			continue
		}
		j := nt.hash(k)
		for nt.slots[j].key.Load() != 0 {
			j = (j + 1) & mask
		}
		nt.slots[j].w.Store(t.slots[i].w.Load())
		nt.slots[j].key.Store(k)
		workers.taken++
	}
	return nt
}

// unregister removes the calling goroutine, whose self is key.
func unregister(key uintptr) {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	t := workers.t.Load()
	mask := uintptr(len(t.slots) - 1)
	for i := t.hash(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch s.key.Load() {
		case key:
			s.key.Store(tomb)
			s.w.Store(nil)
			workers.live.Add(-1)
			return
		case 0:
			return
		}
	}
}

// byID returns the worker whose goroutine has the Go id id, or nil. It is
// the slow path of the classification of stray goroutines.
func byID(id int64) *worker {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	t := workers.t.Load()
	if t == nil {
		return nil
	}
	for i := range t.slots {
		if w := t.slots[i].w.Load(); w != nil && w.id == id {
			return w
		}
	}
	return nil
}

// drivers returns the checks whose workers exist and that were not
// abandoned.
func drivers() []*driver {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	t := workers.t.Load()
	if t == nil {
		return nil
	}
	var ds []*driver
	for i := range t.slots {
		w := t.slots[i].w.Load()
		if w != nil && !w.d.abandoned.Load() && !slices.Contains(ds, w.d) {
			ds = append(ds, w.d)
		}
	}
	return ds
}

// driverByID returns the check whose id is id if it has workers, or nil.
func driverByID(id uint32) *driver {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	t := workers.t.Load()
	if t == nil {
		return nil
	}
	for i := range t.slots {
		if w := t.slots[i].w.Load(); w != nil && w.d.id == id {
			return w.d
		}
	}
	return nil
}

// bury adds the workers of d, which the watchdog abandons, to the
// graveyard.
func bury(d *driver) {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	t := workers.t.Load()
	if t == nil {
		return
	}
	graveyard.Lock()
	defer graveyard.Unlock()
	for i := range t.slots {
		if w := t.slots[i].w.Load(); w != nil && w.d == d {
			graveyard.ids[w.id] = true
		}
	}
}
