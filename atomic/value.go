package atomic

import (
	"reflect"
	"unsafe"

	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Pointer is an atomic pointer of type *T.
type Pointer[T any] struct {
	_ noCopy
	o runtime.Obj
}

// ptr boxes p so that a nil pointer equals the zero value of the location.
func ptr[T any](p *T) event.Value {
	if p == nil {
		return event.Value{}
	}
	return event.Value{P: unsafe.Pointer(p)}
}

func unptr[T any](v event.Value) *T {
	if v.P == nil {
		return nil
	}
	return (*T)(v.P.(unsafe.Pointer))
}

// Load atomically loads and returns the value stored in x.
func (x *Pointer[T]) Load() *T {
	return unptr[T](runtime.Op(&x.o, &event.Label{Kind: event.Load, OKind: event.Atomic}, "Pointer.Load").V)
}

// Store atomically stores val into x.
func (x *Pointer[T]) Store(val *T) {
	runtime.Op(&x.o, &event.Label{Kind: event.Store, OKind: event.Atomic, A: ptr(val)}, "Pointer.Store")
}

// Swap atomically stores new into x and returns the previous value.
func (x *Pointer[T]) Swap(new *T) (old *T) {
	return unptr[T](runtime.Op(&x.o, &event.Label{Kind: event.RMW, Op: event.Swap, OKind: event.Atomic, A: ptr(new)}, "Pointer.Swap").V)
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Pointer[T]) CompareAndSwap(old, new *T) (swapped bool) {
	return runtime.Op(&x.o, &event.Label{Kind: event.RMW, Op: event.CAS, OKind: event.Atomic, A: ptr(old), B: ptr(new)}, "Pointer.CompareAndSwap").OK
}

// Value provides an atomic load and store of a consistently typed value.
// The zero value returns nil from Load. Once Store has been called, a Value
// must not be copied, and every value stored must have the same dynamic
// type, as with sync/atomic.Value.
type Value struct {
	_ noCopy
	o runtime.Obj
}

// Load returns the value set by the most recent Store, or nil if there has
// been no call to Store for this Value.
func (v *Value) Load() (val any) {
	return runtime.Op(&v.o, &event.Label{Kind: event.Load, OKind: event.Atomic}, "Value.Load").V.P
}

// Store sets the value of the Value v to val. All calls to Store for a given
// Value must use values of the same concrete type: a value of another type,
// or Store(nil), panics, as with sync/atomic.Value.
func (v *Value) Store(val any) {
	if val == nil {
		panic("sync/atomic: store of nil value into Value")
	}
	runtime.Op(&v.o, &event.Label{Kind: event.RMW, Op: event.Swap, OKind: event.Atomic, Typed: true, A: event.Value{P: val}}, "Value.Store")
}

// Swap stores new into Value and returns the previous value. It returns nil
// if the Value is empty. It panics as Store does.
func (v *Value) Swap(new any) (old any) {
	if new == nil {
		panic("sync/atomic: swap of nil value into Value")
	}
	return runtime.Op(&v.o, &event.Label{Kind: event.RMW, Op: event.Swap, OKind: event.Atomic, Typed: true, A: event.Value{P: new}}, "Value.Swap").V.P
}

// CompareAndSwap executes the compare-and-swap operation for the Value. It
// panics as sync/atomic.Value.CompareAndSwap does: for a nil new value, for
// old and new of different types, and when comparing uncomparable values.
func (v *Value) CompareAndSwap(old, new any) (swapped bool) {
	if new == nil {
		panic("sync/atomic: compare and swap of nil value into Value")
	}
	if old != nil && !sameType(old, new) {
		panic("sync/atomic: compare and swap of inconsistently typed values")
	}
	return runtime.Op(&v.o, &event.Label{Kind: event.RMW, Op: event.CAS, OKind: event.Atomic, Typed: true, A: event.Value{P: old}, B: event.Value{P: new}}, "Value.CompareAndSwap").OK
}

// sameType reports whether a and b have the same dynamic type.
func sameType(a, b any) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }
