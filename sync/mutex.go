// Package sync provides modelled counterparts of the standard library's
// sync package: Mutex, RWMutex, WaitGroup, Once, Cond, Locker, Map and
// Pool, and OnceFunc, OnceValue and OnceValues; and Monitor, critical
// sections whose effects weft can analyse (see Monitor). Swapping the import
// ("sync" for "weft.dev/weft/sync") is all it takes to put existing code
// under the checker. Zero values are ready to use, and values must not be
// copied after first use.
//
// The semantics are Go's, including what programs depend on: a goroutine may
// unlock a mutex that another goroutine locked; RWMutex is writer-preferring
// (RWMutex, WaitGroup and Once follow the standard library's algorithms
// operation for operation); Cond.Signal wakes one waiter, and every choice
// of waiter is explored. Misuse that the standard library panics or aborts
// on (unlock of an unlocked mutex, a negative WaitGroup counter) is reported
// as a Misuse bug with a trace. Map and Pool say what of them is
// modelled: every Map operation but Clear is atomic, Range visits the keys
// stored before it; a Pool's Get may miss, or take any item put. Outside
// any check (package initialization, TestMain), a Mutex, an RWMutex and a
// Once are the standard library's, each execution of a check starting
// them afresh; the other types are only for checks.
package sync

import (
	"fmt"
	"math"
	gosync "sync"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// A Locker represents an object that can be locked and unlocked.
type Locker interface {
	Lock()
	Unlock()
}

// noCopy lets go vet's copylocks check flag copies.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Mutex is a mutual exclusion lock. The zero value is an unlocked mutex.
type Mutex struct {
	_ noCopy
	o runtime.Obj
	// plain is the mutex outside any check (package initialization,
	// TestMain), where nothing is modelled: code that weft test rewrote
	// runs there as plain Go. Each execution starts with m unlocked.
	plain gosync.Mutex
}

// Lock locks m, blocking until it is available.
func (m *Mutex) Lock() {
	if _, in := runtime.TryDo(&m.o, event.Label{Kind: event.Lock, OKind: event.Mutex}, "Mutex.Lock"); !in {
		m.plain.Lock()
	}
}

// LockCommuting is Lock, and declares that the critical section it starts,
// up to the calling goroutine's Unlock of m, commutes with every other
// section of m started by LockCommuting with the same class (a number from
// 1 to 1<<31 - 1): run one after the other in either order, from any
// state, two such sections leave the same state, nothing the goroutines do
// afterwards depends on their order, and what they touch other goroutines
// touch only in sections of m, or before or after all of them (a read
// after joining the goroutines that run them). Adding the partial sums of
// workers to a total that is read only at the end is such a section.
//
// The cdpor engine explores one order of such sections where the others
// explore them all (see the package documentation of weft's
// internal/engine/cdpor); to the other engines it is Lock. The declaration
// is a claim that weft does not check: where it is false, cdpor misses the
// executions that show the order. A Monitor's sections are the checked
// alternative: weft finds with its solver when they commute.
func (m *Mutex) LockCommuting(class int) {
	if class < 1 || class > math.MaxInt32 {
		msg := fmt.Sprintf("Mutex.LockCommuting(%d): the class must be from 1 to %d", class, math.MaxInt32)
		if runtime.Outside() {
			panic("weft/sync: " + msg)
		}
		runtime.Fail(engine.Misuse, msg)
	}
	l := event.Label{Kind: event.Lock, OKind: event.Mutex, A: event.Value{N: uint64(class)}}
	if _, in := runtime.TryDo(&m.o, l, "Mutex.LockCommuting"); !in {
		m.plain.Lock()
	}
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	r, in := runtime.TryDo(&m.o, event.Label{Kind: event.TryLock, OKind: event.Mutex}, "Mutex.TryLock")
	if !in {
		return m.plain.TryLock()
	}
	return r.OK
}

// Unlock unlocks m. Unlocking a mutex that is not locked is a Misuse bug.
func (m *Mutex) Unlock() {
	if _, in := runtime.TryDo(&m.o, event.Label{Kind: event.Unlock, OKind: event.Mutex}, "Mutex.Unlock"); !in {
		m.plain.Unlock()
	}
}

// sema is a counting semaphore, the runtime_Semacquire/Semrelease pair that
// the standard library builds RWMutex and WaitGroup on.
type sema struct{ o runtime.Obj }

func (s *sema) acquire() {
	runtime.Do(&s.o, event.Label{Kind: event.SemAcquire, OKind: event.Sem}, "semacquire")
}

func (s *sema) release() {
	runtime.Do(&s.o, event.Label{Kind: event.SemRelease, OKind: event.Sem}, "semrelease")
}
