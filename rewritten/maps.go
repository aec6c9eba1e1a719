package rewritten

import (
	"cmp"
	"iter"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// Go ranges over a map in an order that its runtime draws at random each
// time. weft replays executions: a goroutine that sends on the channels of
// a map, or starts goroutines, in its order did something else in the
// replay than in the execution recorded, which weft reports as
// nondeterminism of the program. The rewrite ranges over a map in the
// order of its keys instead, the same in every execution: orders are not
// explored (a bug that only another order shows is not found).
//
// Keys are ordered by value: numbers, strings, booleans, and arrays,
// structs and interfaces of them, field by field (an interface by its
// dynamic type's name first); pointers by what they point to (see
// compareDeep). Two pointers to equal values are ordered by address,
// which differs from one execution to the next when allocations do: a map
// keyed by them can still be reported as nondeterministic.

// MapRange yields the keys and values of m in the order of its keys: for
// k, v := range m. As in Go, an entry deleted before its turn is not
// yielded, an entry's value is the one it has at its turn, and an entry
// added during the loop is not yielded (Go may yield it or not).
func MapRange[M ~map[K]V, K comparable, V any](m M) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		keys, nans := sortedKeys(m)
		for _, k := range keys {
			v, ok := m[k]
			if ok && !yield(k, v) {
				return
			}
		}
		// A NaN key is never found again: its entries are yielded with
		// the values they had when the loop started.
		for _, e := range nans {
			if !yield(e.k, e.v) {
				return
			}
		}
	}
}

// MapAll is maps.All in the order of MapRange.
func MapAll[M ~map[K]V, K comparable, V any](m M) iter.Seq2[K, V] { return MapRange(m) }

// MapKeys is maps.Keys in the order of MapRange.
func MapKeys[M ~map[K]V, K comparable, V any](m M) iter.Seq[K] {
	return func(yield func(K) bool) {
		for k := range MapRange(m) {
			if !yield(k) {
				return
			}
		}
	}
}

// MapValues is maps.Values in the order of MapRange.
func MapValues[M ~map[K]V, K comparable, V any](m M) iter.Seq[V] {
	return func(yield func(V) bool) {
		for _, v := range MapRange(m) {
			if !yield(v) {
				return
			}
		}
	}
}

// entry is an entry of a map whose key is NaN.
type entry[K comparable, V any] struct {
	k K
	v V
}

// sortedKeys returns the keys of m in order, and apart the entries whose
// key is not equal to itself (a NaN, or holds one).
func sortedKeys[M ~map[K]V, K comparable, V any](m M) ([]K, []entry[K, V]) {
	keys := make([]K, 0, len(m))
	var nans []entry[K, V]
	for k, v := range m {
		if k != k {
			nans = append(nans, entry[K, V]{k, v})
			continue
		}
		keys = append(keys, k)
	}
	sortKeys(keys)
	return keys, nans
}

// sortKeys sorts keys by value (see compareDeep). Keys that are strings or
// numbers, those of most maps, whatever their type's name, are compared as
// such: through reflect, eight keys took 2.4 µs and 34 allocations.
func sortKeys[K comparable](keys []K) {
	switch reflect.TypeFor[K]().Kind() {
	case reflect.String:
		sortAs[string](keys)
	case reflect.Int:
		sortAs[int](keys)
	case reflect.Int8:
		sortAs[int8](keys)
	case reflect.Int16:
		sortAs[int16](keys)
	case reflect.Int32:
		sortAs[int32](keys)
	case reflect.Int64:
		sortAs[int64](keys)
	case reflect.Uint:
		sortAs[uint](keys)
	case reflect.Uint8:
		sortAs[uint8](keys)
	case reflect.Uint16:
		sortAs[uint16](keys)
	case reflect.Uint32:
		sortAs[uint32](keys)
	case reflect.Uint64:
		sortAs[uint64](keys)
	case reflect.Uintptr:
		sortAs[uintptr](keys)
	case reflect.Float32:
		sortAs[float32](keys)
	case reflect.Float64:
		sortAs[float64](keys)
	default:
		slices.SortFunc(keys, func(a, b K) int {
			return compareDeep(reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem(), 0)
		})
	}
}

// sortAs sorts keys as values of T, the type underlying K.
func sortAs[T cmp.Ordered, K any](keys []K) {
	slices.SortFunc(keys, func(a, b K) int {
		return cmp.Compare(*(*T)(unsafe.Pointer(&a)), *(*T)(unsafe.Pointer(&b)))
	})
}

// pointerDepth bounds how many pointers compareDeep follows: far enough for
// a key that points to a struct that holds a name or a channel, not so far
// that a key into a large graph of objects costs much.
const pointerDepth = 3

// compareDeep orders a and b, of the same type, by value. It orders two
// pointers, which a map's keys often are (a set of *Client), by what they
// point to, which the program made the same in every execution, where
// their addresses differ: a weft channel by its ID, an object of weft's
// sync types by its index in the execution, a struct by its fields; and
// by address only when that is equal, or pointerDepth pointers away.
// Slices, maps and functions, which a pointer's target may hold, are
// ordered by their lengths and nil-ness.
func compareDeep(a, b reflect.Value, depth int) int {
	switch a.Kind() {
	case reflect.Bool:
		return cmp.Compare(b2i(a.Bool()), b2i(b.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return cmp.Or(cmp.Compare(real(x), real(y)), cmp.Compare(imag(x), imag(y)))
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Pointer:
		switch {
		case a.Pointer() == b.Pointer():
			return 0
		case a.IsNil() || b.IsNil():
			return cmp.Compare(b2i(!a.IsNil()), b2i(!b.IsNil()))
		case depth < pointerDepth:
			if c := compareDeep(a.Elem(), b.Elem(), depth+1); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Chan, reflect.UnsafePointer:
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Array:
		for i := range a.Len() {
			if c := compareDeep(a.Index(i), b.Index(i), depth); c != 0 {
				return c
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if c := compareDeep(a.Field(i), b.Field(i), depth); c != 0 {
				return c
			}
		}
	case reflect.Interface:
		switch {
		case a.IsNil() || b.IsNil():
			return cmp.Compare(b2i(!a.IsNil()), b2i(!b.IsNil()))
		case a.Elem().Type() != b.Elem().Type():
			ta, tb := a.Elem().Type(), b.Elem().Type()
			return cmp.Or(strings.Compare(ta.String(), tb.String()), strings.Compare(ta.PkgPath(), tb.PkgPath()))
		}
		return compareDeep(a.Elem(), b.Elem(), depth)
	case reflect.Slice:
		if c := cmp.Compare(a.Len(), b.Len()); c != 0 || depth >= pointerDepth {
			return c
		}
		for i := range a.Len() {
			if c := compareDeep(a.Index(i), b.Index(i), depth+1); c != 0 {
				return c
			}
		}
	case reflect.Map:
		return cmp.Compare(a.Len(), b.Len())
	case reflect.Func:
		return cmp.Compare(b2i(!a.IsNil()), b2i(!b.IsNil()))
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
