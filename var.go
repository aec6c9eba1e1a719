package weft

import (
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Var is a plain (non-atomic) shared variable. Its zero value holds T's zero
// value. Conflicting accesses (one of them a Store) that are not ordered by
// synchronization are a DataRace bug, as the Go memory model says.
//
// A Var must not be copied after first use.
type Var[T any] struct {
	_ noCopy
	o runtime.Obj
}

// Load returns the value of v.
func (v *Var[T]) Load() T {
	r := runtime.Op(&v.o, &event.Label{Kind: event.Load, OKind: event.VarObj}, "Var.Load")
	if r.V.P == nil {
		var zero T
		return zero
	}
	return r.V.P.(T)
}

// Store sets the value of v.
func (v *Var[T]) Store(x T) {
	runtime.Op(&v.o, &event.Label{Kind: event.Store, OKind: event.VarObj, A: event.Value{P: x}}, "Var.Store")
}

// noCopy lets go vet's copylocks check flag copies of the types that embed
// it.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
