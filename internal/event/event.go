// Package event is the vocabulary shared by the runtime, the engines and the
// reports: the kinds of visible operations a modelled goroutine performs, the
// labels that describe one pending operation, and the values it reads and
// writes.
//
// A label is built by the goroutine that is about to perform the operation
// and handed to the engine, which decides when it runs and what it returns.
// Labels are small values copied on the hot path: they carry no pointers but
// the optional P field of a Value.
package event

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Kind is the kind of a visible operation.
type Kind uint8

// The visible operations. Var and atomic accesses share Load, Store and RMW;
// Label.OKind tells them apart.
const (
	Invalid    Kind = iota
	Load            // read of a Var or an atomic
	Store           // write of a Var or an atomic
	RMW             // atomic read-modify-write (Swap, CompareAndSwap, Add, And, Or)
	Lock            // Mutex.Lock: blocks while the mutex is held
	Unlock          // Mutex.Unlock
	TryLock         // Mutex.TryLock
	SemAcquire      // internal semaphore: blocks while the count is zero
	SemRelease      // internal semaphore: increments the count
	NotifyAdd       // Cond.Wait, first half: take a ticket in the notify list
	NotifyWait      // Cond.Wait, second half: block until the ticket is notified
	NotifyOne       // Cond.Signal
	NotifyAll       // Cond.Broadcast
	Spawn           // weft.Go: Arg is the child's goroutine id
	Join            // Goroutine.Join: Arg is the goroutine waited for
	End             // the goroutine's function returned
	Block           // Assume(false): the goroutine blocks forever
	SymNew          // sym.NewInt: Arg is the variable's id
	SymEval         // a branch on a symbolic condition: A.N is the sym.Term; Arg 1 pins it true
	SymChoose       // sym.Choose: A.N is the Int sym.Term, B.N the number of indices
	ChanMake        // weft.MakeChan: B.N is the capacity
	ChanSend        // Chan.Send: A is the value
	ChanRecv        // Chan.Recv
	ChanClose       // Chan.Close
	ChanLen         // Chan.Len
	ChanWait        // the wait of a send, receive or select that could not complete at once
	Select          // weft.Select: A.P holds the cases, Arg 1 means it has a default
	// Fail is the step in which a goroutine fails (a panic, a failed
	// assert, t.FailNow): Arg is the engine.BugKind. It is a step of its
	// own because the real scheduler may run other goroutines between a
	// goroutine's last operation and its failure.
	Fail
	numKinds
)

var kindNames = [numKinds]string{
	Invalid:    "invalid",
	Load:       "load",
	Store:      "store",
	RMW:        "rmw",
	Lock:       "lock",
	Unlock:     "unlock",
	TryLock:    "trylock",
	SemAcquire: "acquire",
	SemRelease: "release",
	NotifyAdd:  "cond-enter",
	NotifyWait: "cond-wait",
	NotifyOne:  "signal",
	NotifyAll:  "broadcast",
	Spawn:      "go",
	Join:       "join",
	End:        "end",
	Block:      "assume-blocked",
	SymNew:     "symbolic",
	SymEval:    "branch",
	SymChoose:  "choose",
	ChanMake:   "make",
	ChanSend:   "send",
	ChanRecv:   "recv",
	ChanClose:  "close",
	ChanLen:    "len",
	ChanWait:   "chan-wait",
	Select:     "select",
	Fail:       "fail",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// RMWOp says what a read-modify-write computes from the old value.
type RMWOp uint8

// The read-modify-write operations of sync/atomic.
const (
	Swap RMWOp = iota // new = A
	CAS               // if old == A { new = B }
	Add               // new = old + A
	And               // new = old & A
	Or                // new = old | A
)

func (op RMWOp) String() string {
	switch op {
	case Swap:
		return "swap"
	case CAS:
		return "cas"
	case Add:
		return "add"
	case And:
		return "and"
	case Or:
		return "or"
	}
	return fmt.Sprintf("rmw(%d)", op)
}

// ObjKind is the kind of a modelled object (a location of the execution).
type ObjKind uint8

// The kinds of objects.
const (
	NoObj  ObjKind = iota
	VarObj         // weft.Var: plain memory, races are bugs
	Atomic         // weft/atomic values
	Mutex          // weft/sync.Mutex
	Sem            // the semaphores inside RWMutex and WaitGroup
	Notify         // the notify list inside sync.Cond
	Chan           // the channels of an execution (weft.Chan)
	// The locations an engine may keep the state of a channel in: whether
	// it is closed, the count of its sends or receives, the offer of a
	// waiting goroutine (see package chans).
	ChanClosed
	ChanCount
	ChanOffer
	numObjKinds
)

var objKindNames = [numObjKinds]string{"none", "var", "atomic", "mutex", "sema", "cond", "chan", "chan-closed", "chan-count", "chan-offer"}

func (k ObjKind) String() string {
	if k < numObjKinds {
		return objKindNames[k]
	}
	return fmt.Sprintf("obj(%d)", k)
}

// Value is what a location holds. Integers (atomics, and Vars of scalar type)
// use N, zero-extended to the access width; everything else uses P.
type Value struct {
	N uint64
	P any
}

// Equal reports whether two values are equal. It panics, as Go's == does,
// when P holds an uncomparable dynamic type.
func (v Value) Equal(w Value) bool { return v.N == w.N && v.P == w.P }

func (v Value) String() string {
	if v.P != nil {
		return fmt.Sprint(v.P)
	}
	return fmt.Sprint(v.N)
}

// Label describes one visible operation of a goroutine. Its first four
// fields fill its first eight bytes, which SameKind compares at once.
type Label struct {
	Kind  Kind
	Op    RMWOp   // for RMW
	OKind ObjKind // kind of Obj
	Typed bool    // atomic.Value: a value of another dynamic type is a panic
	Arg   int32   // goroutine id for Spawn and Join
	Width uint8   // bits of an atomic integer access (32 or 64); 0 otherwise
	Obj   int32   // object index in the execution, or -1
	A, B  Value   // store value; RMW operands
}

// SameOp reports whether two labels describe the same operation on the same
// object, ignoring the values written.
func (l *Label) SameOp(m *Label) bool { return l.SameKind(m) && l.Obj == m.Obj }

// SameKind reports whether two labels describe the same operation, on
// objects of the same kind, ignoring which objects and the values written:
// their Kind, Op, OKind, Typed and Arg are equal. A replay compares a
// recorded operation with the one the program performs again, for most of
// the operations it replays: one comparison of eight bytes, where the
// fields one by one took 21 instructions.
func (l *Label) SameKind(m *Label) bool {
	return *(*uint64)(unsafe.Pointer(l)) == *(*uint64)(unsafe.Pointer(m))
}

// Mask truncates n to the label's access width.
func (l *Label) Mask(n uint64) uint64 {
	if l.Width == 32 {
		return n & 0xffffffff
	}
	return n
}

// Result is what a performed operation returns to its goroutine.
type Result struct {
	V     Value // value read (Load), old value (RMW), value received
	OK    bool  // CompareAndSwap and TryLock succeeded; a receive got a value
	From  int32 // the step that wrote V (-1: the initial value), when known
	Panic any   // when non-nil the goroutine panics with it, as Go would
	Case  int32 // the select case taken
	Wait  bool  // a channel operation could not complete: a ChanWait follows
}

// Await is the Arg of the Block of a goroutine that waits at the end of a
// spin-loop iteration that only read (weft.Yield).
const Await = 1

// ReadOnly reports whether the operation l, with result r, only read
// shared memory: a load, or a CompareAndSwap or TryLock that failed. A
// spin-loop iteration made of such operations changes nothing, and is
// repeated identically until another goroutine writes (see weft.Yield).
func ReadOnly(l *Label, r *Result) bool {
	switch l.Kind {
	case Load:
		return true
	case RMW:
		return l.Op == CAS && !r.OK
	case TryLock:
		return !r.OK
	}
	return false
}

// Chan reports whether operations of kind k act on channels, whose
// objects are channel IDs in the label (B.N, or the cases in A.P).
func (k Kind) Chan() bool {
	switch k {
	case ChanMake, ChanSend, ChanRecv, ChanClose, ChanLen, ChanWait, Select:
		return true
	}
	return false
}

// Updates reports whether operations of kind k read a location and, when
// the value read allows it, write it in the same atomic step.
func (k Kind) Updates() bool {
	switch k {
	case RMW, Lock, TryLock, Unlock, SemAcquire, SemRelease, NotifyAdd, NotifyOne, NotifyAll,
		ChanMake, ChanSend, ChanRecv, ChanClose, ChanWait, Select:
		return true
	}
	return false
}

// notifyList is the value of a condition variable's notify list: the next
// ticket to hand out, and the tickets taken but not yet notified, oldest
// first. Values are never modified: an update makes a new one.
type notifyList struct {
	next    uint64
	pending []uint64
}

func listOf(v Value) *notifyList {
	if l, ok := v.P.(*notifyList); ok {
		return l
	}
	return &notifyList{}
}

// Alternatives returns how many outcomes the operation has on a location
// holding v: Cond.Signal wakes any one of the waiters, every other
// operation has one outcome.
func (l *Label) Alternatives(v Value) int {
	if l.Kind == NotifyOne {
		return max(1, len(listOf(v).pending))
	}
	return 1
}

// Blocks reports whether a blocking operation (Lock, SemAcquire) cannot
// proceed on a location holding v: the goroutine waits until it changes.
func (l *Label) Blocks(v Value) bool {
	switch l.Kind {
	case Lock:
		return v.N != 0
	case SemAcquire:
		return v.N == 0
	case NotifyWait:
		for _, t := range listOf(v).pending {
			if t == l.A.N {
				return true
			}
		}
	}
	return false
}

// Update computes what an updating operation does on a location holding
// old: the value it writes, whether it writes at all (a failed
// CompareAndSwap or TryLock only reads), and the result its goroutine sees.
// Mutexes hold 0 when unlocked and 1 when locked; semaphores hold their
// count. For operations with several outcomes, it is outcome 0.
func (l *Label) Update(old Value) (nv Value, writes bool, res Result) {
	return l.UpdateAlt(old, 0)
}

// UpdateAlt is Update with outcome alt of Alternatives(old).
func (l *Label) UpdateAlt(old Value, alt int) (nv Value, writes bool, res Result) {
	res = Result{V: old, From: -1}
	switch l.Kind {
	case NotifyAdd:
		ol := listOf(old)
		res.V = Value{N: ol.next}
		pending := append(append(make([]uint64, 0, len(ol.pending)+1), ol.pending...), ol.next)
		return Value{P: &notifyList{next: ol.next + 1, pending: pending}}, true, res
	case NotifyOne:
		ol := listOf(old)
		if len(ol.pending) == 0 {
			return old, true, res
		}
		pending := append(append(make([]uint64, 0, len(ol.pending)-1), ol.pending[:alt]...), ol.pending[alt+1:]...)
		return Value{P: &notifyList{next: ol.next, pending: pending}}, true, res
	case NotifyAll:
		return Value{P: &notifyList{next: listOf(old).next}}, true, res
	case Lock:
		return Value{N: 1}, true, res
	case Unlock:
		// Of an unlocked mutex, it only reads: a misuse, which its
		// caller reports.
		return Value{}, old.N != 0, res
	case TryLock:
		if old.N != 0 {
			return old, false, res
		}
		res.OK = true
		return Value{N: 1}, true, res
	case SemAcquire:
		return Value{N: old.N - 1}, true, res
	case SemRelease:
		return Value{N: old.N + 1}, true, res
	}
	if l.Typed {
		v := l.A
		if l.Op == CAS {
			v = l.B
		}
		if old.P != nil && reflect.TypeOf(old.P) != reflect.TypeOf(v.P) {
			res.Panic = "sync/atomic: store of inconsistently typed value into Value"
			return old, false, res
		}
	}
	switch l.Op {
	case Swap:
		nv = l.A
	case CAS:
		eq, p := safeEqual(old, l.A)
		if p != nil {
			res.Panic = p
			return old, false, res
		}
		if !eq {
			return old, false, res
		}
		nv = l.B
	case Add:
		nv = Value{N: old.N + l.A.N}
	case And:
		nv = Value{N: old.N & l.A.N}
	case Or:
		nv = Value{N: old.N | l.A.N}
	}
	nv.N = l.Mask(nv.N)
	res.OK = true
	return nv, true, res
}

// safeEqual compares two values, turning the panic of an uncomparable
// dynamic type into a value for the goroutine to raise.
func safeEqual(a, b Value) (eq bool, p any) {
	defer func() { p = recover() }()
	return a.Equal(b), nil
}
