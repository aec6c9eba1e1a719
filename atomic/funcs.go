package atomic

import (
	"fmt"
	goatomic "sync/atomic"
	"unsafe"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// The functions of sync/atomic (AddInt32, LoadPointer...) work on
// variables of plain Go, which weft does not see. Outside any check
// (package initialization, TestMain), they are sync/atomic's own, so that
// the variable holds what they wrote when a check first uses it. The running execution
// keeps, per address (runtime.Shadow), a cell: the modelled location that
// the functions operate on in that execution. The value stays in the
// variable itself: every write is written through, so that plain reads
// of the variable (after a WaitGroup.Wait, say) see it.
//
// A modelled location starts at zero, a variable at whatever it holds
// when it is first used atomically (a reference count starts at 1). The
// location therefore holds the variable's value relative to that base,
// the value it had when the cell was made: v - base for integers (so that
// Add stays one read-modify-write), and for pointers the zero value when
// the pointer is the base. Both are bijections, so CompareAndSwap compares
// what it should. When the variable holds another value than the cell
// last wrote or saw, a plain write came in between: the cell starts over,
// with a new location whose base is that value. In a program without data
// races, such a write is ordered after every atomic access before it and
// before every one after it, so that no access needs to see both the old
// location and the new one, and every execution makes the same cells.
//
// Stores are swaps in the model. Every write to a cell's location then
// reads the one before it, so that the engines perform them in the order
// of coherence, and the last value written through is the location's
// latest (a load may be performed after a later write: it does not write
// through).

// integer is the types of the integer functions.
type integer interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~uintptr
}

// cell is the modelled location of a variable in one execution.
type cell struct {
	o     runtime.Obj
	addr  unsafe.Pointer // the variable
	width uint8          // of the accesses: 32 or 64 bits; 0 for a pointer
	// base is the value of the variable when the location was made, last
	// the value the cell wrote through last (or saw, when made).
	base, last   uint64
	baseP, lastP unsafe.Pointer
}

// intCell returns the cell of the integer at addr for the function what,
// whose value is cur.
func intCell[T integer](addr *T, cur uint64, what string) *cell {
	width := uint8(unsafe.Sizeof(*addr) * 8)
	c, fresh := runtime.Shadow[cell](unsafe.Pointer(addr), what)
	switch {
	case fresh:
		c.width, c.addr = width, unsafe.Pointer(addr)
	case c.width != width:
		mixed(c, width, what)
	case cur == c.last:
		return c
	}
	// A new location: on first use, or after a plain write.
	c.o, c.base, c.last = runtime.Obj{}, cur, cur
	return c
}

// mixed reports accesses of different sizes to one variable.
func mixed(c *cell, width uint8, what string) {
	size := func(w uint8) string {
		if w == 0 {
			return "a pointer"
		}
		return fmt.Sprintf("%d bits", w)
	}
	runtime.Fail(engine.Misuse, fmt.Sprintf("sync/atomic: %s of %s on a variable accessed as %s before", what, size(width), size(c.width)))
}

// mask truncates n to width bits.
func mask(width uint8, n uint64) uint64 {
	if width == 32 {
		return n & 0xffffffff
	}
	return n
}

// bits returns v as the zero-extended bits of its width.
func bits[T integer](v T) uint64 { return mask(uint8(unsafe.Sizeof(v)*8), uint64(v)) }

// do performs the operation lab on the cell's location. The plain accesses
// of the variable race with it (see runtime.DoAtomic).
func (c *cell) do(lab event.Label, what string) event.Result {
	lab.OKind, lab.Width = event.Atomic, c.width
	size := uintptr(c.width / 8)
	if size == 0 {
		size = unsafe.Sizeof(uintptr(0))
	}
	return runtime.DoAtomic(&c.o, lab, what, c.addr, size)
}

// enc is what the location holds for value v, dec the value it means.
func (c *cell) enc(v uint64) uint64 { return mask(c.width, v-c.base) }
func (c *cell) dec(n uint64) uint64 { return mask(c.width, c.base+n) }

// note describes, in a traced execution, the operation just performed with
// the variable's values rather than the location's: text is called only
// then. Its arguments (the location's name, where the value came from)
// would cost every operation of every execution a few allocations and
// formattings for a text that only a report shows.
func (c *cell) note(text func() string) {
	if runtime.Tracing() {
		runtime.NoteDone(text())
	}
}

func from(r event.Result) string {
	if r.From < 0 {
		return "initial"
	}
	return fmt.Sprintf("from #%d", r.From+1)
}

func (c *cell) name() string { return c.o.Name(event.Atomic) }

func load[T integer](addr *T, what string) T {
	if runtime.Outside() {
		if unsafe.Sizeof(*addr) == 4 {
			return T(goatomic.LoadUint32((*uint32)(unsafe.Pointer(addr))))
		}
		return T(goatomic.LoadUint64((*uint64)(unsafe.Pointer(addr))))
	}
	c := intCell(addr, bits(*addr), what)
	r := c.do(event.Label{Kind: event.Load}, what)
	v := T(c.dec(r.V.N))
	c.note(func() string { return fmt.Sprintf("%s %s = %v (%s)", what, c.name(), v, from(r)) })
	return v
}

// swap stores v and returns the old value: Store and Swap.
func swap[T integer](addr *T, v T, what string) (old T) {
	if runtime.Outside() {
		if unsafe.Sizeof(*addr) == 4 {
			return T(goatomic.SwapUint32((*uint32)(unsafe.Pointer(addr)), uint32(v)))
		}
		return T(goatomic.SwapUint64((*uint64)(unsafe.Pointer(addr)), uint64(v)))
	}
	c := intCell(addr, bits(*addr), what)
	r := c.do(event.Label{Kind: event.RMW, Op: event.Swap, A: event.Value{N: c.enc(bits(v))}}, what)
	*addr, c.last = v, bits(v)
	old = T(c.dec(r.V.N))
	c.note(func() string { return fmt.Sprintf("%s %s = %v (was %v, %s)", what, c.name(), v, old, from(r)) })
	return old
}

func add[T integer](addr *T, delta T, what string) (new T) {
	if runtime.Outside() {
		if unsafe.Sizeof(*addr) == 4 {
			return T(goatomic.AddUint32((*uint32)(unsafe.Pointer(addr)), uint32(delta)))
		}
		return T(goatomic.AddUint64((*uint64)(unsafe.Pointer(addr)), uint64(delta)))
	}
	c := intCell(addr, bits(*addr), what)
	r := c.do(event.Label{Kind: event.RMW, Op: event.Add, A: event.Value{N: bits(delta)}}, what)
	old := T(c.dec(r.V.N))
	new = old + delta
	*addr, c.last = new, bits(new)
	c.note(func() string {
		return fmt.Sprintf("%s %s %v = %v (was %v, %s)", what, c.name(), delta, new, old, from(r))
	})
	return new
}

func cas[T integer](addr *T, old, new T, what string) (swapped bool) {
	if runtime.Outside() {
		if unsafe.Sizeof(*addr) == 4 {
			return goatomic.CompareAndSwapUint32((*uint32)(unsafe.Pointer(addr)), uint32(old), uint32(new))
		}
		return goatomic.CompareAndSwapUint64((*uint64)(unsafe.Pointer(addr)), uint64(old), uint64(new))
	}
	c := intCell(addr, bits(*addr), what)
	r := c.do(event.Label{Kind: event.RMW, Op: event.CAS, A: event.Value{N: c.enc(bits(old))}, B: event.Value{N: c.enc(bits(new))}}, what)
	if r.OK {
		*addr, c.last = new, bits(new)
	}
	c.note(func() string {
		return fmt.Sprintf("%s %s %v→%v %s (was %v, %s)", what, c.name(), old, new, okText(r.OK), T(c.dec(r.V.N)), from(r))
	})
	return r.OK
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "failed"
}

// bitwise is And (or, false) and Or (or, true). A location whose base is
// zero holds the variable's value and has the operation itself; on
// another base the mask does not carry over, and a compare-and-swap loop
// does it, as a program without And and Or would.
func bitwise[T integer](addr *T, m T, or bool, what string) (old T) {
	if runtime.Outside() {
		switch {
		case unsafe.Sizeof(*addr) == 4 && or:
			return T(goatomic.OrUint32((*uint32)(unsafe.Pointer(addr)), uint32(m)))
		case unsafe.Sizeof(*addr) == 4:
			return T(goatomic.AndUint32((*uint32)(unsafe.Pointer(addr)), uint32(m)))
		case or:
			return T(goatomic.OrUint64((*uint64)(unsafe.Pointer(addr)), uint64(m)))
		}
		return T(goatomic.AndUint64((*uint64)(unsafe.Pointer(addr)), uint64(m)))
	}
	c := intCell(addr, bits(*addr), what)
	apply := func(v T) T {
		if or {
			return v | m
		}
		return v & m
	}
	if c.base == 0 {
		op := event.And
		if or {
			op = event.Or
		}
		r := c.do(event.Label{Kind: event.RMW, Op: op, A: event.Value{N: bits(m)}}, what)
		old = T(r.V.N)
		*addr, c.last = apply(old), bits(apply(old))
		c.note(func() string {
			return fmt.Sprintf("%s %s %v = %v (was %v, %s)", what, c.name(), m, apply(old), old, from(r))
		})
		return old
	}
	r := c.do(event.Label{Kind: event.Load}, what)
	cur := r.V.N
	c.note(func() string { return fmt.Sprintf("%s %s: reads %v (%s)", what, c.name(), T(c.dec(cur)), from(r)) })
	for {
		old = T(c.dec(cur))
		r := c.do(event.Label{Kind: event.RMW, Op: event.CAS, A: event.Value{N: cur}, B: event.Value{N: c.enc(bits(apply(old)))}}, what)
		if r.OK {
			*addr, c.last = apply(old), bits(apply(old))
			c.note(func() string {
				return fmt.Sprintf("%s %s %v = %v (was %v, %s)", what, c.name(), m, apply(old), old, from(r))
			})
			return old
		}
		cur = r.V.N
	}
}

// ptrCell returns the cell of the pointer at addr for the function what.
func ptrCell(addr *unsafe.Pointer, what string) *cell {
	cur := *addr
	c, fresh := runtime.Shadow[cell](unsafe.Pointer(addr), what)
	switch {
	case fresh:
		c.addr = unsafe.Pointer(addr)
	case c.width != 0:
		mixed(c, 0, what)
	case cur == c.lastP:
		return c
	}
	c.o, c.baseP, c.lastP = runtime.Obj{}, cur, cur
	return c
}

// encP is what the location holds for pointer p: the zero value for the
// base, else p, nil included (an unsafe.Pointer in an interface is not a
// nil interface).
func (c *cell) encP(p unsafe.Pointer) event.Value {
	if p == c.baseP {
		return event.Value{}
	}
	return event.Value{P: p}
}

func (c *cell) decP(v event.Value) unsafe.Pointer {
	if v.P == nil {
		return c.baseP
	}
	return v.P.(unsafe.Pointer)
}

func (c *cell) doP(lab event.Label, what string) event.Result {
	lab.OKind = event.Atomic
	return runtime.DoAtomic(&c.o, lab, what, c.addr, unsafe.Sizeof(uintptr(0)))
}

// LoadPointer atomically loads *addr.
func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	const what = "LoadPointer"
	if runtime.Outside() {
		return goatomic.LoadPointer(addr)
	}
	c := ptrCell(addr, what)
	r := c.doP(event.Label{Kind: event.Load}, what)
	c.note(func() string { return fmt.Sprintf("%s %s (%s)", what, c.name(), from(r)) })
	return c.decP(r.V)
}

// StorePointer atomically stores val into *addr.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	swapPointer(addr, val, "StorePointer")
}

// SwapPointer atomically stores new into *addr and returns the previous
// *addr value.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	return swapPointer(addr, new, "SwapPointer")
}

func swapPointer(addr *unsafe.Pointer, new unsafe.Pointer, what string) unsafe.Pointer {
	if runtime.Outside() {
		return goatomic.SwapPointer(addr, new)
	}
	c := ptrCell(addr, what)
	r := c.doP(event.Label{Kind: event.RMW, Op: event.Swap, A: c.encP(new)}, what)
	*addr, c.lastP = new, new
	c.note(func() string { return fmt.Sprintf("%s %s (%s)", what, c.name(), from(r)) })
	return c.decP(r.V)
}

// CompareAndSwapPointer executes the compare-and-swap operation for an
// unsafe.Pointer value.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	const what = "CompareAndSwapPointer"
	if runtime.Outside() {
		return goatomic.CompareAndSwapPointer(addr, old, new)
	}
	c := ptrCell(addr, what)
	r := c.doP(event.Label{Kind: event.RMW, Op: event.CAS, A: c.encP(old), B: c.encP(new)}, what)
	if r.OK {
		*addr, c.lastP = new, new
	}
	c.note(func() string { return fmt.Sprintf("%s %s %s (%s)", what, c.name(), okText(r.OK), from(r)) })
	return r.OK
}
