package rewritten

import (
	"iter"
	"unsafe"

	"weft.dev/weft/internal/runtime"
)

// The accesses of plain memory that more than one goroutine can reach
// (package variables, variables that function literals capture or whose
// address is taken, fields and elements reached through pointers and
// slices, maps) go through these, which check them for data races against
// happens-before. They do not schedule: plain memory is not interleaved
// (see weft/internal/runtime's Access for why that is sound). Outside a
// check they only access the memory.

// Read returns *p: a read of the variable at p.
func Read[T any](p *T) T {
	runtime.Access(unsafe.Pointer(p), unsafe.Sizeof(*p), false)
	return *p
}

// Write returns p, for a store into the variable at p that happens before
// the goroutine's next synchronizing operation: *Write(&x) = v, where v
// calls nothing; *Write(&x) += v; *Write(&x)++.
func Write[T any](p *T) *T {
	runtime.Access(unsafe.Pointer(p), unsafe.Sizeof(*p), true)
	return p
}

// Set returns the function that stores its argument into the variable at
// p: x = f() becomes Set(&x)(f()), the store checked when it happens, after
// f (whose synchronization may order it).
func Set[T any](p *T) func(T) {
	return func(v T) {
		runtime.Access(unsafe.Pointer(p), unsafe.Sizeof(*p), true)
		*p = v
	}
}

// Set2 is Set for two variables: a, b = f().
func Set2[A, B any](a *A, b *B) func(A, B) {
	return func(va A, vb B) {
		Set(a)(va)
		Set(b)(vb)
	}
}

// Set3 is Set for three variables.
func Set3[A, B, C any](a *A, b *B, c *C) func(A, B, C) {
	return func(va A, vb B, vc C) {
		Set(a)(va)
		Set(b)(vb)
		Set(c)(vc)
	}
}

// mapHeader is the address that stands for the whole of map m.
func mapHeader[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// MapRead returns m, read: m[k], v, ok := m[k], range m, len(m). A map is
// checked as one variable, as Go's race detector does.
func MapRead[M ~map[K]V, K comparable, V any](m M) M {
	runtime.Access(mapHeader(m), 1, false)
	return m
}

// MapWrite returns m, written: m[k] = v, delete(m, k), clear(m).
func MapWrite[M ~map[K]V, K comparable, V any](m M) M {
	runtime.Access(mapHeader(m), 1, true)
	return m
}

// Elems yields the indexes and elements of s, each element read when its
// iteration starts: for i, v := range s.
func Elems[S ~[]E, E any](s S) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i := range s {
			if !yield(i, Read(&s[i])) {
				return
			}
		}
	}
}
