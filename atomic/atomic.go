// Package atomic provides modelled counterparts of sync/atomic: the types
// Int32, Int64, Uint32, Uint64, Uintptr, Bool, Pointer and Value, with the
// same methods, and the functions on plain variables (AddInt32,
// LoadPointer, CompareAndSwapUint64...), with the same signatures. Every
// operation is a visible operation of the checker and is sequentially
// consistent, as in Go. Zero values are ready to use.
//
// Values of the types must not be copied after first use. A variable that
// the functions access keeps its value, which plain reads see; a plain
// write to it must be ordered with its atomic accesses, as the Go memory
// model requires (such a data race is not reported: weft does not see
// plain memory). The functions keep the variable's modelled location in
// the running execution, by address (see funcs.go): a variable declared
// outside the body keeps its value from one execution to the next, as
// plain memory does.
package atomic

import (
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// word is an integer location of the given width in bits.
type word struct {
	o runtime.Obj
}

func (w *word) load(width uint8, what string) uint64 {
	return runtime.Op(&w.o, &event.Label{Kind: event.Load, OKind: event.Atomic, Width: width}, what).V.N
}

func (w *word) store(width uint8, v uint64, what string) {
	runtime.Op(&w.o, &event.Label{Kind: event.Store, OKind: event.Atomic, Width: width, A: event.Value{N: v}}, what)
}

func (w *word) rmw(width uint8, op event.RMWOp, a uint64, what string) uint64 {
	return runtime.Op(&w.o, &event.Label{Kind: event.RMW, Op: op, OKind: event.Atomic, Width: width, A: event.Value{N: a}}, what).V.N
}

func (w *word) cas(width uint8, old, new uint64, what string) bool {
	return runtime.Op(&w.o, &event.Label{Kind: event.RMW, Op: event.CAS, OKind: event.Atomic, Width: width, A: event.Value{N: old}, B: event.Value{N: new}}, what).OK
}

// noCopy lets go vet's copylocks check flag copies.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Int32 is an atomic int32.
type Int32 struct {
	_ noCopy
	w word
}

// Load atomically loads and returns the value stored in x.
func (x *Int32) Load() int32 { return int32(uint32(x.w.load(32, "Int32.Load"))) }

// Store atomically stores val into x.
func (x *Int32) Store(val int32) { x.w.store(32, uint64(uint32(val)), "Int32.Store") }

// Swap atomically stores new into x and returns the previous value.
func (x *Int32) Swap(new int32) (old int32) {
	return int32(uint32(x.w.rmw(32, event.Swap, uint64(uint32(new)), "Int32.Swap")))
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int32) CompareAndSwap(old, new int32) (swapped bool) {
	return x.w.cas(32, uint64(uint32(old)), uint64(uint32(new)), "Int32.CompareAndSwap")
}

// Add atomically adds delta to x and returns the new value.
func (x *Int32) Add(delta int32) (new int32) {
	return int32(uint32(x.w.rmw(32, event.Add, uint64(uint32(delta)), "Int32.Add"))) + delta
}

// And atomically performs a bitwise AND operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Int32) And(mask int32) (old int32) {
	return int32(uint32(x.w.rmw(32, event.And, uint64(uint32(mask)), "Int32.And")))
}

// Or atomically performs a bitwise OR operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Int32) Or(mask int32) (old int32) {
	return int32(uint32(x.w.rmw(32, event.Or, uint64(uint32(mask)), "Int32.Or")))
}

// Int64 is an atomic int64.
type Int64 struct {
	_ noCopy
	w word
}

// Load atomically loads and returns the value stored in x.
func (x *Int64) Load() int64 { return int64(x.w.load(64, "Int64.Load")) }

// Store atomically stores val into x.
func (x *Int64) Store(val int64) { x.w.store(64, uint64(val), "Int64.Store") }

// Swap atomically stores new into x and returns the previous value.
func (x *Int64) Swap(new int64) (old int64) {
	return int64(x.w.rmw(64, event.Swap, uint64(new), "Int64.Swap"))
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int64) CompareAndSwap(old, new int64) (swapped bool) {
	return x.w.cas(64, uint64(old), uint64(new), "Int64.CompareAndSwap")
}

// Add atomically adds delta to x and returns the new value.
func (x *Int64) Add(delta int64) (new int64) {
	return int64(x.w.rmw(64, event.Add, uint64(delta), "Int64.Add")) + delta
}

// And atomically performs a bitwise AND operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Int64) And(mask int64) (old int64) {
	return int64(x.w.rmw(64, event.And, uint64(mask), "Int64.And"))
}

// Or atomically performs a bitwise OR operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Int64) Or(mask int64) (old int64) {
	return int64(x.w.rmw(64, event.Or, uint64(mask), "Int64.Or"))
}

// Uint32 is an atomic uint32.
type Uint32 struct {
	_ noCopy
	w word
}

// Load atomically loads and returns the value stored in x.
func (x *Uint32) Load() uint32 { return uint32(x.w.load(32, "Uint32.Load")) }

// Store atomically stores val into x.
func (x *Uint32) Store(val uint32) { x.w.store(32, uint64(val), "Uint32.Store") }

// Swap atomically stores new into x and returns the previous value.
func (x *Uint32) Swap(new uint32) (old uint32) {
	return uint32(x.w.rmw(32, event.Swap, uint64(new), "Uint32.Swap"))
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint32) CompareAndSwap(old, new uint32) (swapped bool) {
	return x.w.cas(32, uint64(old), uint64(new), "Uint32.CompareAndSwap")
}

// Add atomically adds delta to x and returns the new value.
func (x *Uint32) Add(delta uint32) (new uint32) {
	return uint32(x.w.rmw(32, event.Add, uint64(delta), "Uint32.Add")) + delta
}

// And atomically performs a bitwise AND operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Uint32) And(mask uint32) (old uint32) {
	return uint32(x.w.rmw(32, event.And, uint64(mask), "Uint32.And"))
}

// Or atomically performs a bitwise OR operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Uint32) Or(mask uint32) (old uint32) {
	return uint32(x.w.rmw(32, event.Or, uint64(mask), "Uint32.Or"))
}

// Uint64 is an atomic uint64.
type Uint64 struct {
	_ noCopy
	w word
}

// Load atomically loads and returns the value stored in x.
func (x *Uint64) Load() uint64 { return x.w.load(64, "Uint64.Load") }

// Store atomically stores val into x.
func (x *Uint64) Store(val uint64) { x.w.store(64, val, "Uint64.Store") }

// Swap atomically stores new into x and returns the previous value.
func (x *Uint64) Swap(new uint64) (old uint64) {
	return x.w.rmw(64, event.Swap, new, "Uint64.Swap")
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint64) CompareAndSwap(old, new uint64) (swapped bool) {
	return x.w.cas(64, old, new, "Uint64.CompareAndSwap")
}

// Add atomically adds delta to x and returns the new value.
func (x *Uint64) Add(delta uint64) (new uint64) {
	return x.w.rmw(64, event.Add, delta, "Uint64.Add") + delta
}

// And atomically performs a bitwise AND operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Uint64) And(mask uint64) (old uint64) {
	return x.w.rmw(64, event.And, mask, "Uint64.And")
}

// Or atomically performs a bitwise OR operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Uint64) Or(mask uint64) (old uint64) {
	return x.w.rmw(64, event.Or, mask, "Uint64.Or")
}

// Uintptr is an atomic uintptr.
type Uintptr struct {
	_ noCopy
	w word
}

// ptrBits is the width of a uintptr.
const ptrBits = 32 << (^uintptr(0) >> 63)

// Load atomically loads and returns the value stored in x.
func (x *Uintptr) Load() uintptr { return uintptr(x.w.load(ptrBits, "Uintptr.Load")) }

// Store atomically stores val into x.
func (x *Uintptr) Store(val uintptr) { x.w.store(ptrBits, uint64(val), "Uintptr.Store") }

// Swap atomically stores new into x and returns the previous value.
func (x *Uintptr) Swap(new uintptr) (old uintptr) {
	return uintptr(x.w.rmw(ptrBits, event.Swap, uint64(new), "Uintptr.Swap"))
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uintptr) CompareAndSwap(old, new uintptr) (swapped bool) {
	return x.w.cas(ptrBits, uint64(old), uint64(new), "Uintptr.CompareAndSwap")
}

// Add atomically adds delta to x and returns the new value.
func (x *Uintptr) Add(delta uintptr) (new uintptr) {
	return uintptr(x.w.rmw(ptrBits, event.Add, uint64(delta), "Uintptr.Add")) + delta
}

// And atomically performs a bitwise AND operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Uintptr) And(mask uintptr) (old uintptr) {
	return uintptr(x.w.rmw(ptrBits, event.And, uint64(mask), "Uintptr.And"))
}

// Or atomically performs a bitwise OR operation on x using the bitmask
// provided as mask and returns the old value.
func (x *Uintptr) Or(mask uintptr) (old uintptr) {
	return uintptr(x.w.rmw(ptrBits, event.Or, uint64(mask), "Uintptr.Or"))
}

// Bool is an atomic boolean value.
type Bool struct {
	_ noCopy
	w word
}

func b32(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Load atomically loads and returns the value stored in x.
func (x *Bool) Load() bool { return x.w.load(32, "Bool.Load") != 0 }

// Store atomically stores val into x.
func (x *Bool) Store(val bool) { x.w.store(32, b32(val), "Bool.Store") }

// Swap atomically stores new into x and returns the previous value.
func (x *Bool) Swap(new bool) (old bool) {
	return x.w.rmw(32, event.Swap, b32(new), "Bool.Swap") != 0
}

// CompareAndSwap executes the compare-and-swap operation for the boolean
// value x.
func (x *Bool) CompareAndSwap(old, new bool) (swapped bool) {
	return x.w.cas(32, b32(old), b32(new), "Bool.CompareAndSwap")
}
