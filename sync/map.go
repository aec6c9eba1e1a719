package sync

import (
	"fmt"

	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Map is like a Go map[any]any but is safe for concurrent use by multiple
// goroutines, as the standard library's sync.Map. The zero Map is empty
// and ready for use. A Map must not be copied after first use.
//
// What is modelled: each key is an atomic location of its own, so that
// operations on different keys are independent and those on one key
// are explored in every order; every operation is sequentially
// consistent, and a write synchronizes before the operations that observe
// it, as the Go memory model says of sync.Map. A key's location is
// absent until first stored, then holds a value or "deleted". A counter,
// one more location, counts the keys stored for the first time, in order:
// Range reads it, then visits those keys in that order (sync.Map's order
// is unspecified: weft explores this one), each with its value at the
// time Range reaches it. So Range visits every key stored before it
// started and not deleted since, and no key twice; a key stored or
// deleted while it runs may or may not be visited, as sync.Map's
// documentation allows. Clear deletes the keys one at a time: unlike
// sync.Map's, a Store that runs during a Clear may survive it.
type Map struct {
	_     noCopy
	count runtime.Obj // of the keys stored for the first time
	st    runtime.Local[mapState]
}

// mapState is what a Map knows, in one execution, of its keys: their
// locations, and the keys in the order the counter counted them.
type mapState struct {
	locs map[any]*runtime.Obj
	keys []any
}

// A key's location holds its value in an entry, nothing (the zero Value)
// until the key is first stored, and tombstone once deleted.
type entry struct{ v any }

var tombstone = event.Value{N: 1}

func present(v event.Value) (any, bool) {
	e, ok := v.P.(entry)
	return e.v, ok
}

func (m *Map) state(what string) *mapState {
	st := m.st.Get(what)
	if st.locs == nil {
		st.locs = map[any]*runtime.Obj{}
	}
	return st
}

// loc returns the location of key; a key that is not comparable panics
// here, as with sync.Map.
func (m *Map) loc(st *mapState, key any) *runtime.Obj {
	o := st.locs[key]
	if o == nil {
		o = new(runtime.Obj)
		st.locs[key] = o
	}
	return o
}

func (m *Map) do(o *runtime.Obj, lab event.Label, what string) event.Result {
	lab.OKind = event.Atomic
	return runtime.Do(o, lab, what)
}

// stored counts key once a write found its location absent: only the
// write that ends that state does, so the keys are counted once each, in
// the order of the counter's coherence.
func (m *Map) stored(st *mapState, key any, old event.Value, what string) {
	if old != (event.Value{}) {
		return
	}
	n := m.do(&m.count, event.Label{Kind: event.RMW, Op: event.Add, Width: 64, A: event.Value{N: 1}}, what).V.N
	if n != uint64(len(st.keys)) {
		panic(fmt.Sprintf("weft: internal error: Map key #%d counted as #%d", len(st.keys), n))
	}
	st.keys = append(st.keys, key)
	note("%s: key %v counted (#%d)", what, key, n)
}

// note describes, in a traced execution, the operation just performed.
func note(format string, args ...any) {
	if runtime.Tracing() {
		runtime.NoteDone(fmt.Sprintf(format, args...))
	}
}

// Load returns the value stored in the map for a key, or nil if no value
// is present. The ok result indicates whether value was found in the map.
func (m *Map) Load(key any) (value any, ok bool) {
	st := m.state("Map.Load")
	r := m.do(m.loc(st, key), event.Label{Kind: event.Load}, "Map.Load")
	value, ok = present(r.V)
	note("Map.Load(%v) = %v, %v", key, value, ok)
	return value, ok
}

// Store sets the value for a key.
func (m *Map) Store(key, value any) {
	m.swap(key, value, "Map.Store")
}

// Swap swaps the value for a key and returns the previous value if any.
// The loaded result reports whether the key was present.
func (m *Map) Swap(key, value any) (previous any, loaded bool) {
	return m.swap(key, value, "Map.Swap")
}

func (m *Map) swap(key, value any, what string) (previous any, loaded bool) {
	st := m.state(what)
	r := m.do(m.loc(st, key), event.Label{Kind: event.RMW, Op: event.Swap, A: event.Value{P: entry{value}}}, what)
	previous, loaded = present(r.V)
	note("%s(%v, %v) (previous %v, %v)", what, key, value, previous, loaded)
	m.stored(st, key, r.V, what)
	return previous, loaded
}

// LoadOrStore returns the existing value for the key if present.
// Otherwise, it stores and returns the given value. The loaded result is
// true if the value was loaded, false if stored.
func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) {
	const what = "Map.LoadOrStore"
	st := m.state(what)
	o := m.loc(st, key)
	// One compare-and-swap when the key was never stored; another when a
	// Delete came in between.
	old := event.Value{}
	for {
		r := m.do(o, event.Label{Kind: event.RMW, Op: event.CAS, A: old, B: event.Value{P: entry{value}}}, what)
		if r.OK {
			note("%s(%v, %v) stores", what, key, value)
			m.stored(st, key, old, what)
			return value, false
		}
		if v, ok := present(r.V); ok {
			note("%s(%v, %v) loads %v", what, key, value, v)
			return v, true
		}
		old = r.V
	}
}

// LoadAndDelete deletes the value for a key, returning the previous value
// if any. The loaded result reports whether the key was present.
func (m *Map) LoadAndDelete(key any) (value any, loaded bool) {
	return m.loadAndDelete(key, "Map.LoadAndDelete")
}

// Delete deletes the value for a key.
func (m *Map) Delete(key any) {
	m.loadAndDelete(key, "Map.Delete")
}

// loadAndDelete writes only over a value, so that a key that was never
// stored stays absent and uncounted: deleting it only reads.
func (m *Map) loadAndDelete(key any, what string) (value any, loaded bool) {
	st := m.state(what)
	o := m.loc(st, key)
	r := m.do(o, event.Label{Kind: event.Load}, what)
	for {
		v, ok := present(r.V)
		if !ok {
			note("%s(%v): absent", what, key)
			return nil, false
		}
		if r = m.do(o, event.Label{Kind: event.RMW, Op: event.CAS, A: r.V, B: tombstone}, what); r.OK {
			note("%s(%v) deletes %v", what, key, v)
			return v, true
		}
	}
}

// CompareAndSwap swaps the old and new values for key if the value stored
// in the map is equal to old. The old value must be of a comparable type.
func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) {
	return m.compareAnd(key, old, event.Value{P: entry{new}}, "Map.CompareAndSwap")
}

// CompareAndDelete deletes the entry for key if its value is equal to
// old. The old value must be of a comparable type.
func (m *Map) CompareAndDelete(key, old any) (deleted bool) {
	return m.compareAnd(key, old, tombstone, "Map.CompareAndDelete")
}

// compareAnd is CompareAndSwap and CompareAndDelete. Comparing two values
// of the same uncomparable type panics, as with sync.Map: the model's
// compare-and-swap raises that panic in the program.
func (m *Map) compareAnd(key, old any, new event.Value, what string) bool {
	st := m.state(what)
	r := m.do(m.loc(st, key), event.Label{Kind: event.RMW, Op: event.CAS, A: event.Value{P: entry{old}}, B: new}, what)
	note("%s(%v, %v): %v", what, key, old, r.OK)
	return r.OK
}

// Range calls f sequentially for each key and value present in the map.
// If f returns false, range stops the iteration. See Map for which keys
// and values it sees when the map changes meanwhile.
func (m *Map) Range(f func(key, value any) bool) {
	const what = "Map.Range"
	st := m.state(what)
	n := m.do(&m.count, event.Label{Kind: event.Load, Width: 64}, what).V.N
	note("%s: %d keys", what, n)
	keys := st.keys[:n:n] // f may store more
	for _, k := range keys {
		r := m.do(m.loc(st, k), event.Label{Kind: event.Load}, what)
		v, ok := present(r.V)
		note("%s: key %v = %v, %v", what, k, v, ok)
		if ok && !f(k, v) {
			return
		}
	}
}

// Clear deletes all the entries: those Range would visit, one at a time.
func (m *Map) Clear() {
	const what = "Map.Clear"
	st := m.state(what)
	n := m.do(&m.count, event.Label{Kind: event.Load, Width: 64}, what).V.N
	for _, k := range st.keys[:n:n] {
		m.loadAndDelete(k, what)
	}
}
