// Package chans is the semantics of Go's channels and select statements as
// transitions of an immutable state: the channels of one execution, with
// their buffers, the goroutines blocked on them and the values handed to
// those goroutines. Both kinds of engines apply the same transitions; a
// state is never modified, so an execution graph can keep the state each
// event wrote.
//
// A send on a full buffered channel, or a receive from an empty one, is
// simply not enabled: the goroutine waits without a trace in the state, so
// that when it blocked makes no difference to the executions explored. On
// an unbuffered channel both sides must see each other, so a goroutine that
// cannot complete a send or a receive at once registers itself on the
// channel (a select, on every unbuffered channel of its cases) and then
// waits; the operation of the goroutine that completes the exchange hands
// it its outcome and withdraws its other registrations, as Go's runtime
// does with its queues of waiting goroutines.
//
// Happens-before follows the Go memory model: each outcome carries the
// token of the operation it synchronizes with (the send a receive gets its
// value from, the receive that frees a buffer slot or takes an unbuffered
// value for a send's completion, the close a receive observes). Tokens are
// chosen by the engine; len and cap synchronize with nothing.
package chans

import (
	"fmt"
	"maps"

	"weft.dev/weft/internal/event"
)

// ID names a channel: it is chosen by the engine when the channel is made.
type ID int64

// Nil is the nil channel, on which sends and receives block forever.
const Nil ID = -1

// Token names an operation for happens-before; NoToken is none.
type Token int64

// NoToken means "synchronizes with nothing".
const NoToken Token = -1

type msg struct {
	v   event.Value
	tok Token
}

// waiter is a goroutine blocked on a channel: a plain send or receive
// (case -1) or case Case of a select.
type waiter struct {
	g    int32
	cas  int32
	v    event.Value // the value a waiting sender sends
	tok  Token
	send bool
}

// channel is the state of one channel.
type channel struct {
	cap     int
	buf     []msg
	freed   []Token // the receives that freed the free slots, oldest first
	senders []waiter
	recvers []waiter
	closed  bool
	closeT  Token
}

// Fired is the outcome handed to a waiting goroutine.
type Fired struct {
	Case   int32 // the select case that fired, -1 for a plain operation
	V      event.Value
	OK     bool  // a receive got a value (not the close)
	Closed bool  // a send was woken by the close: it panics
	Sync   Token // the operation it synchronizes with
}

// State is the channels of an execution. The zero State has none.
type State struct {
	chans map[ID]*channel
	fired map[int32]Fired // by goroutine
}

// Op is a channel operation.
type Op struct {
	Kind    event.Kind
	G       int32       // the goroutine performing it
	Chan    ID          // for single-channel operations
	V       event.Value // value sent
	Cap     int         // ChanMake
	Cases   []Case      // Select
	Default bool        // Select has a default case
	Tok     Token       // the token of this operation
}

// Case is one case of a select.
type Case struct {
	Chan ID
	Send bool
	V    event.Value
}

// Result is the outcome of an operation for its goroutine.
type Result struct {
	Done   bool        // the operation completed (else the goroutine registered and waits)
	Case   int32       // Select: the case taken, len(Cases) for default
	V      event.Value // value received
	OK     bool        // receive: got a value rather than the close
	N      int         // Len
	Panic  string      // the operation panics with this message
	Sync   Token       // the operation it synchronizes with
	Closed bool        // wait of a send woken by the close
}

func (s State) ch(id ID) *channel { return s.chans[id] }

// clone returns a copy of s whose maps (not channels) may be changed.
func (s State) clone() State {
	return State{chans: maps.Clone(s.chans), fired: maps.Clone(s.fired)}
}

// set replaces channel id in s (which must be a clone) by a copy that f
// changes.
func (s *State) set(id ID, f func(c *channel)) {
	old := s.chans[id]
	c := &channel{cap: old.cap, closed: old.closed, closeT: old.closeT,
		buf:     append([]msg(nil), old.buf...),
		freed:   append([]Token(nil), old.freed...),
		senders: append([]waiter(nil), old.senders...),
		recvers: append([]waiter(nil), old.recvers...),
	}
	f(c)
	if s.chans == nil {
		s.chans = map[ID]*channel{}
	}
	s.chans[id] = c
}

// ready reports whether case k of a select (or a plain operation) of
// goroutine g can complete at once; g's own registrations do not count.
func (s State) ready(k Case, g int32) bool {
	c := s.ch(k.Chan)
	if c == nil {
		return false
	}
	if k.Send {
		return c.closed || others(c.recvers, g) || len(c.buf) < c.cap
	}
	return len(c.buf) > 0 || others(c.senders, g) || c.closed
}

// others reports whether ws holds a waiter other than goroutine g.
func others(ws []waiter, g int32) bool {
	for _, w := range ws {
		if w.g != g {
			return true
		}
	}
	return false
}

// Enabled reports whether op can be performed now. A send or receive on a
// buffered channel waits until it can complete; one on an unbuffered
// channel registers instead. A select without default is enabled when a
// case is ready or it has unbuffered cases to register on. A wait is
// enabled once the goroutine was handed its outcome, or, for a select,
// once a case is ready. Operations on the nil channel never are.
func (s State) Enabled(op *Op) bool {
	switch op.Kind {
	case event.ChanWait:
		if _, ok := s.fired[op.G]; ok {
			return true
		}
		return op.Cases != nil && s.anyReady(op)
	case event.ChanSend, event.ChanRecv:
		c := s.ch(op.Chan)
		if op.Chan == Nil {
			return false
		}
		return c == nil || c.cap == 0 || s.ready(Case{Chan: op.Chan, Send: op.Kind == event.ChanSend}, op.G)
	case event.ChanLen:
		return op.Chan != Nil
	case event.Select:
		if op.Default || s.anyReady(op) {
			return true
		}
		for _, k := range op.Cases {
			if c := s.ch(k.Chan); c != nil && c.cap == 0 {
				return true
			}
		}
		return false
	}
	return true
}

func (s State) anyReady(op *Op) bool {
	for _, k := range op.Cases {
		if s.ready(k, op.G) {
			return true
		}
	}
	return false
}

// Outcomes returns the number of outcomes of op: for a select (or the wait
// of one) with ready cases, one per ready case (chosen among, as Go does at
// random); otherwise one.
func (s State) Outcomes(op *Op) int {
	if op.Kind != event.Select && (op.Kind != event.ChanWait || op.Cases == nil) {
		return 1
	}
	if _, ok := s.fired[op.G]; ok && op.Kind == event.ChanWait {
		return 1
	}
	n := 0
	for _, k := range op.Cases {
		if s.ready(k, op.G) {
			n++
		}
	}
	return max(n, 1)
}

// Apply performs op with outcome alt and returns the new state and the
// result for the goroutine.
func (s State) Apply(op *Op, alt int) (State, Result) {
	switch op.Kind {
	case event.ChanMake:
		n := s.clone()
		if n.chans == nil {
			n.chans = map[ID]*channel{}
		}
		c := &channel{cap: op.Cap}
		for range op.Cap {
			c.freed = append(c.freed, NoToken)
		}
		n.chans[op.Chan] = c
		return n, Result{Done: true, Sync: NoToken}
	case event.ChanLen:
		c := s.ch(op.Chan)
		if c == nil {
			return s, Result{Done: true, Sync: NoToken}
		}
		return s, Result{Done: true, N: len(c.buf), Sync: NoToken}
	case event.ChanClose:
		return s.close(op)
	case event.ChanSend:
		return s.send(op, Case{Chan: op.Chan, Send: true, V: op.V}, -1)
	case event.ChanRecv:
		return s.recv(op, op.Chan, -1)
	case event.ChanWait:
		f, ok := s.fired[op.G]
		if !ok {
			// A select woken by a ready case rather than by a partner.
			return s.withdraw(op.G).sel(op, alt)
		}
		n := s.clone()
		delete(n.fired, op.G)
		r := Result{Done: true, Case: f.Case, V: f.V, OK: f.OK, Sync: f.Sync, Closed: f.Closed}
		if f.Closed {
			r.Panic = "send on closed channel"
		}
		return n, r
	case event.Select:
		return s.sel(op, alt)
	}
	panic(fmt.Sprintf("weft: internal error: %v is not a channel operation", op.Kind))
}

func (s State) close(op *Op) (State, Result) {
	c := s.ch(op.Chan)
	switch {
	case op.Chan == Nil:
		return s, Result{Panic: "close of nil channel", Sync: NoToken}
	case c == nil:
		return s, Result{Panic: "close of a channel made in another execution", Sync: NoToken}
	case c.closed:
		return s, Result{Panic: "close of closed channel", Sync: NoToken}
	}
	n := s.clone()
	var woken []waiter
	n.set(op.Chan, func(c *channel) {
		c.closed, c.closeT = true, op.Tok
		woken = append(append(woken, c.recvers...), c.senders...)
		c.recvers, c.senders = nil, nil
	})
	for _, w := range woken {
		n.fire(w, Fired{Case: w.cas, OK: false, Closed: w.send, Sync: op.Tok})
	}
	return n, Result{Done: true, Sync: NoToken}
}

// fire hands waiter w its outcome and withdraws its registrations on
// other channels (those of a select). n must be a clone.
func (n *State) fire(w waiter, f Fired) {
	if n.fired == nil {
		n.fired = map[int32]Fired{}
	}
	n.fired[w.g] = f
	if w.cas < 0 {
		return
	}
	*n = n.withdraw(w.g)
}

// withdraw removes every registration of goroutine g.
func (s State) withdraw(g int32) State {
	n := s.clone()
	for id, c := range n.chans {
		if has(c.senders, g) || has(c.recvers, g) {
			n.set(id, func(c *channel) {
				c.senders = without(c.senders, g)
				c.recvers = without(c.recvers, g)
			})
		}
	}
	return n
}

func has(ws []waiter, g int32) bool {
	for _, w := range ws {
		if w.g == g {
			return true
		}
	}
	return false
}

func without(ws []waiter, g int32) []waiter {
	out := ws[:0]
	for _, w := range ws {
		if w.g != g {
			out = append(out, w)
		}
	}
	return out
}

// send performs the send of case k (cas: the select case, -1 for a plain
// send), registering the goroutine when it cannot complete.
func (s State) send(op *Op, k Case, cas int32) (State, Result) {
	c := s.ch(k.Chan)
	switch {
	case c == nil:
		return s, Result{Panic: "send on a channel made in another execution", Sync: NoToken}
	case c.closed:
		return s, Result{Panic: "send on closed channel", Case: cas, Sync: NoToken}
	}
	n := s.clone()
	switch {
	case len(c.recvers) > 0:
		// A receiver waits: hand it the value directly.
		r := c.recvers[0]
		n.set(k.Chan, func(c *channel) { c.recvers = c.recvers[1:] })
		n.fire(r, Fired{Case: r.cas, V: k.V, OK: true, Sync: op.Tok})
		return n, Result{Done: true, Case: cas, Sync: r.tok}
	case len(c.buf) < c.cap:
		// The receive that freed the slot synchronizes with this send's
		// completion: the k-th receive happens before the k+C-th send
		// completes.
		sync := c.freed[0]
		n.set(k.Chan, func(c *channel) {
			c.buf = append(c.buf, msg{v: k.V, tok: op.Tok})
			c.freed = c.freed[1:]
		})
		return n, Result{Done: true, Case: cas, Sync: sync}
	}
	if c.cap > 0 {
		panic("weft: internal error: send on a full buffered channel performed")
	}
	n.set(k.Chan, func(c *channel) {
		c.senders = append(c.senders, waiter{g: op.G, cas: cas, v: k.V, tok: op.Tok, send: true})
	})
	return n, Result{Done: false, Case: cas, Sync: NoToken}
}

// recv performs a receive from id (cas: the select case, -1 for a plain
// receive), registering the goroutine when it cannot complete.
func (s State) recv(op *Op, id ID, cas int32) (State, Result) {
	c := s.ch(id)
	if c == nil {
		return s, Result{Panic: "receive from a channel made in another execution", Sync: NoToken}
	}
	n := s.clone()
	switch {
	case len(c.buf) > 0:
		m := c.buf[0]
		n.set(id, func(c *channel) {
			c.buf = c.buf[1:]
			if len(c.senders) == 0 {
				c.freed = append(c.freed, op.Tok)
				return
			}
			// The first blocked sender's value takes the freed slot;
			// this receive completes its send.
			w := c.senders[0]
			c.senders = c.senders[1:]
			c.buf = append(c.buf, msg{v: w.v, tok: w.tok})
			defer n.fire(w, Fired{Case: w.cas, OK: true, Sync: op.Tok})
		})
		return n, Result{Done: true, Case: cas, V: m.v, OK: true, Sync: m.tok}
	case len(c.senders) > 0:
		w := c.senders[0]
		n.set(id, func(c *channel) { c.senders = c.senders[1:] })
		n.fire(w, Fired{Case: w.cas, OK: true, Sync: op.Tok})
		return n, Result{Done: true, Case: cas, V: w.v, OK: true, Sync: w.tok}
	case c.closed:
		return s, Result{Done: true, Case: cas, OK: false, Sync: c.closeT}
	}
	if c.cap > 0 {
		panic("weft: internal error: receive from an empty buffered channel performed")
	}
	n.set(id, func(c *channel) { c.recvers = append(c.recvers, waiter{g: op.G, cas: cas, tok: op.Tok}) })
	return n, Result{Done: false, Case: cas, Sync: NoToken}
}

// sel performs a select: the alt-th ready case, the default when none is
// ready, or the registration on every unbuffered case.
func (s State) sel(op *Op, alt int) (State, Result) {
	i := 0
	for cas, k := range op.Cases {
		if !s.ready(k, op.G) {
			continue
		}
		if i == alt {
			if k.Send {
				return s.send(op, k, int32(cas))
			}
			return s.recv(op, k.Chan, int32(cas))
		}
		i++
	}
	if op.Default {
		return s, Result{Done: true, Case: int32(len(op.Cases)), Sync: NoToken}
	}
	n := s.clone()
	for cas, k := range op.Cases {
		if c := n.ch(k.Chan); c == nil || c.cap > 0 {
			continue
		}
		w := waiter{g: op.G, cas: int32(cas), v: k.V, tok: op.Tok, send: k.Send}
		n.set(k.Chan, func(c *channel) {
			if k.Send {
				c.senders = append(c.senders, w)
			} else {
				c.recvers = append(c.recvers, w)
			}
		})
	}
	return n, Result{Done: false, Sync: NoToken}
}

func (s State) String() string {
	return fmt.Sprintf("%d channels, %d fired", len(s.chans), len(s.fired))
}

// OpOf returns the channel operation of label l, performed by goroutine g
// with token tok. For ChanMake, the new channel's ID is tok.
func OpOf(l *event.Label, g int32, tok Token) Op {
	op := Op{Kind: l.Kind, G: g, Chan: ID(int64(l.B.N)), V: l.A, Tok: tok}
	switch l.Kind {
	case event.ChanMake:
		op.Chan, op.Cap = ID(tok), int(l.B.N)
	case event.Select:
		op.Cases, _ = l.A.P.([]Case)
		op.Default = l.Arg == 1
		op.Chan = Nil
	case event.ChanWait:
		op.Cases, _ = l.A.P.([]Case) // the wait of a select
	}
	return op
}

// StateOf returns the channel state held by v.
func StateOf(v event.Value) State {
	if s, ok := v.P.(State); ok {
		return s
	}
	return State{}
}

// Event converts r to what the operation returns to its goroutine. A
// channel made returns its ID in V.N.
func (r Result) Event(op *Op) event.Result {
	e := event.Result{V: r.V, OK: r.OK, From: -1, Case: r.Case, Wait: !r.Done}
	switch op.Kind {
	case event.ChanLen:
		e.V = event.Value{N: uint64(r.N)}
	case event.ChanMake:
		e.V = event.Value{N: uint64(op.Chan)}
	}
	if r.Panic != "" {
		e.Panic = plainError(r.Panic)
	}
	return e
}

// plainError is a runtime panic of a channel operation, as Go raises it.
type plainError string

func (e plainError) Error() string { return string(e) }
func (e plainError) RuntimeError() {}

// Writes reports whether an operation with result r writes the state:
// every one does but len, and those that panic.
func Writes(op *Op, r Result) bool { return op.Kind != event.ChanLen && r.Panic == "" }
