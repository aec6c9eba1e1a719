package weft

import (
	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Chan is a modelled channel, buffered or not, with Go's semantics: FIFO,
// blocking sends and receives, close, and select. A nil *Chan behaves like
// Go's nil channel: Send and Recv block forever, it is never ready in
// Select, and Close panics.
//
// Make channels with MakeChan inside the body; a channel belongs to the
// execution that made it. A channel made outside any check (a package
// variable of code that weft test rewrote, made at package initialization)
// is made again, empty, by each execution that uses it; outside a check it
// cannot be used.
type Chan[T any] struct {
	id  chans.ID
	cap int // fixed by MakeChan, so Cap needs no operation
	// lazy holds, for a channel made outside any check, the channel of
	// each execution, made at its first use there.
	lazy *runtime.Local[lazyChan]
}

type lazyChan struct {
	id   chans.ID
	made bool
}

// MakeChan returns a new channel with the given buffer capacity:
// make(chan T, capacity) under the checker.
func MakeChan[T any](capacity int) *Chan[T] {
	if capacity < 0 {
		panic("makechan: size out of range")
	}
	if runtime.Outside() {
		return &Chan[T]{cap: capacity, lazy: new(runtime.Local[lazyChan])}
	}
	return &Chan[T]{id: makeChan(capacity), cap: capacity}
}

func makeChan(capacity int) chans.ID {
	r := runtime.ChanOp(event.Label{Kind: event.ChanMake, B: event.Value{N: uint64(capacity)}}, "weft.MakeChan")
	return chans.ID(int64(r.V.N))
}

func (c *Chan[T]) chanID() chans.ID {
	if c == nil {
		return chans.Nil
	}
	if c.lazy != nil {
		return c.lazyID()
	}
	return c.id
}

// lazyID returns the channel of the running execution of a channel made
// outside any check, making it on first use. Two goroutines may both find
// it unmade, as making it is an operation, after which another goroutine
// may run: the first to have made one sets it, and the other's stays
// unused.
func (c *Chan[T]) lazyID() chans.ID {
	l := c.lazy.Get("Chan (made outside any check)")
	if !l.made {
		id := makeChan(c.cap)
		if !l.made {
			l.id, l.made = id, true
		}
	}
	return l.id
}

func idValue(id chans.ID) event.Value { return event.Value{N: uint64(int64(id))} }

// waitFor is the wait of an operation of kind k on channel id that could
// not complete at once; the label says what it waits for, for reports.
func waitFor(k event.Kind, id chans.ID) event.Label {
	return event.Label{Kind: event.ChanWait, Arg: int32(k), B: idValue(id)}
}

// Send sends x on c: c <- x. Sending on a closed channel panics.
func (c *Chan[T]) Send(x T) {
	r := runtime.ChanOp(event.Label{Kind: event.ChanSend, A: event.Value{P: x}, B: idValue(c.chanID())}, "Chan.Send")
	if r.Wait {
		runtime.ChanOp(waitFor(event.ChanSend, c.chanID()), "Chan.Send")
	}
}

// Recv receives from c: v, ok := <-c. ok is false when the value is the
// zero value returned because c is closed and drained.
func (c *Chan[T]) Recv() (T, bool) {
	r := runtime.ChanOp(event.Label{Kind: event.ChanRecv, B: idValue(c.chanID())}, "Chan.Recv")
	if r.Wait {
		r = runtime.ChanOp(waitFor(event.ChanRecv, c.chanID()), "Chan.Recv")
	}
	return unbox[T](r.V), r.OK
}

func unbox[T any](v event.Value) T {
	if v.P == nil {
		var zero T
		return zero
	}
	return v.P.(T)
}

// Close closes c. Closing a closed or nil channel panics.
func (c *Chan[T]) Close() {
	runtime.ChanOp(event.Label{Kind: event.ChanClose, B: idValue(c.chanID())}, "Chan.Close")
}

// Len returns the number of values buffered in c: len(c).
func (c *Chan[T]) Len() int {
	if c == nil {
		runtime.Check("Chan.Len")
		return 0
	}
	return int(runtime.ChanOp(event.Label{Kind: event.ChanLen, B: idValue(c.chanID())}, "Chan.Len").V.N)
}

// Cap returns the buffer capacity of c: cap(c). It is 0 for a nil channel.
func (c *Chan[T]) Cap() int {
	if c == nil {
		return 0
	}
	return c.cap
}

// SelectCase is one case of a Select.
type SelectCase struct {
	c        chans.Case
	deflt    bool
	received func(v event.Value, ok bool)
}

// SendCase returns the case "c <- x" of a Select.
func (c *Chan[T]) SendCase(x T) SelectCase {
	return SelectCase{c: chans.Case{Chan: c.chanID(), Send: true, V: event.Value{P: x}}}
}

// RecvCase returns the case "v, ok := <-c" of a Select; v and ok may be
// nil, and are set when the case is chosen.
func (c *Chan[T]) RecvCase(v *T, ok *bool) SelectCase {
	return SelectCase{c: chans.Case{Chan: c.chanID()}, received: func(x event.Value, k bool) {
		if v != nil {
			*v = unbox[T](x)
		}
		if ok != nil {
			*ok = k
		}
	}}
}

// Default returns the default case of a Select.
func Default() SelectCase { return SelectCase{deflt: true} }

// Select performs a select statement over cases and returns the index of
// the case taken: one of the ready cases (the checker explores each), the
// default case when none is ready, or, without a default, the first case
// to become ready.
//
//	switch weft.Select(c.RecvCase(&v, &ok), d.SendCase(5), weft.Default()) {
//	case 0: // v, ok := <-c
//	case 1: // d <- 5
//	case 2: // default
//	}
func Select(cases ...SelectCase) int {
	var cs []chans.Case
	index := make([]int, 0, len(cases)) // chans case -> index in cases
	deflt := -1
	for i, k := range cases {
		if k.deflt {
			if deflt >= 0 {
				panic("weft.Select: multiple defaults")
			}
			deflt = i
			continue
		}
		cs = append(cs, k.c)
		index = append(index, i)
	}
	l := event.Label{Kind: event.Select, A: event.Value{P: cs}}
	if deflt >= 0 {
		l.Arg = 1
	}
	r := runtime.ChanOp(l, "weft.Select")
	if r.Wait {
		w := waitFor(event.Select, chans.Nil)
		w.A = l.A // the wait may itself take a case that becomes ready
		r = runtime.ChanOp(w, "weft.Select")
	}
	if int(r.Case) == len(cs) {
		return deflt
	}
	i := index[r.Case]
	if !cases[i].c.Send && cases[i].received != nil {
		cases[i].received(r.V, r.OK)
	}
	return i
}
