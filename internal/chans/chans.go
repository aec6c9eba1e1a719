// Package chans is the semantics of Go's channels and select statements as
// transitions of immutable states. A State holds some channels of an
// execution: an interleaving engine keeps all of them in one State, the
// optimal engine keeps each channel at a location of its own and assembles
// a State from the channels an operation reads. Every transition says which
// channels it read and the new state of those it changed, so that both
// kinds of engines name the same reads-from and coherence pairs.
//
// A send that cannot complete (a full buffer, or no receiver waiting on an
// unbuffered channel) and a receive from an empty buffered channel are
// simply not enabled: the goroutine waits without a trace in the state, so
// that when it blocked makes no difference to the executions explored. On
// an unbuffered channel one side must be seen by the other, so a receive
// that cannot complete registers itself on the channel (a select, on every
// unbuffered channel of its receive cases) and then waits; the send that
// completes the exchange hands it its value, on the channel it completed
// on, and withdraws its other registrations, as Go's runtime does with its
// queues of waiting goroutines. Only receivers register, so that a
// rendezvous is one exchange whichever side arrived first: letting senders
// register too would split it into two classes that no program can tell
// apart (the Go memory model orders the two sides both ways).
//
// Happens-before follows the Go memory model: each outcome carries the
// token of the operation it synchronizes with (the send a receive gets its
// value from, the receive that frees a buffer slot or takes an unbuffered
// value for a send's completion, the close a receive observes). Tokens are
// chosen by the engine; len and cap synchronize with nothing.
package chans

import (
	"fmt"
	"slices"

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

// waiter is a goroutine blocked in a receive from an unbuffered channel:
// a plain receive (case -1) or case Case of a select.
type waiter struct {
	g   int32
	cas int32
	tok Token
	chs []ID // a select: every channel it is registered on
}

// handed is an outcome handed to goroutine g, which registered with token
// tok.
type handed struct {
	g   int32
	tok Token
	f   Fired
}

// channel is the state of one channel.
type channel struct {
	cap     int
	buf     []msg
	freed   []Token // the receives that freed the free slots, oldest first
	recvers []waiter
	closed  bool
	closeT  Token
	// handed holds the outcomes that the transition that made this state
	// handed to goroutines waiting on the channel; the next transition
	// that changes the channel drops them. The optimal engine finds a
	// woken goroutine's outcome in the write of the operation that woke
	// it, so that the wait does not touch the channel.
	handed []handed
}

// Fired is the outcome handed to a waiting goroutine.
type Fired struct {
	Case int32 // the select case that fired, -1 for a plain operation
	V    event.Value
	OK   bool  // the receive got a value (not the close)
	Sync Token // the operation it synchronizes with
}

type entry struct {
	id ID
	c  *channel
}

// State is a set of channels. The zero State has none.
type State struct {
	chans []entry
	// fired holds the outcomes handed to goroutines and not yet taken,
	// for an engine that keeps every channel in one State.
	fired []handed
}

// Op is a channel operation.
type Op struct {
	Kind    event.Kind
	G       int32       // the goroutine performing it
	Chan    ID          // for single-channel operations
	V       event.Value // value sent
	Cap     int         // ChanMake
	Cases   []Case      // Select, and the wait of a select
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
	Done  bool        // the operation completed (else the goroutine registered and waits)
	Case  int32       // Select: the case taken, len(Cases) for default
	V     event.Value // value received
	OK    bool        // receive: got a value rather than the close
	N     int         // Len
	Panic string      // the operation panics with this message
	Sync  Token       // the operation it synchronizes with
	// Reads is every channel the operation read, its own (Own) first,
	// then those of the selects it woke, whose registrations it withdrew.
	Reads []ID
	// More lists the channels of Reads that the state did not hold: the
	// operation must be applied again on a state that holds them.
	More []ID
}

func (s State) ch(id ID) *channel {
	for _, e := range s.chans {
		if e.id == id {
			return e.c
		}
	}
	return nil
}

// Has reports whether s holds channel id.
func (s State) Has(id ID) bool { return s.ch(id) != nil }

// Put adds channel id to s with the state v, a value that Value returned
// (the zero Value: id is not added).
func (s *State) Put(id ID, v event.Value) {
	if c, ok := v.P.(*channel); ok && !s.Has(id) {
		s.chans = append(s.chans, entry{id, c})
	}
}

// Value returns the state of channel id, as a value an engine may store
// and give back to Put: the zero Value if s does not hold it.
func (s State) Value(id ID) event.Value {
	if c := s.ch(id); c != nil {
		return event.Value{P: c}
	}
	return event.Value{}
}

// Changed reports whether channel id differs between s and old.
func (s State) Changed(old State, id ID) bool { return s.ch(id) != old.ch(id) }

// Own appends to dst the channels that op reads whatever their state: its
// channel, or the distinct non-nil channels of a select's cases.
func Own(dst []ID, op *Op) []ID {
	switch op.Kind {
	case event.ChanMake:
		return dst
	case event.Select:
		return appendCases(dst, op.Cases)
	case event.ChanWait:
		if op.Cases != nil {
			return appendCases(dst, op.Cases)
		}
	}
	if op.Chan == Nil {
		return dst
	}
	return append(dst, op.Chan)
}

func appendCases(dst []ID, cases []Case) []ID {
	start := len(dst)
	for _, k := range cases {
		if k.Chan != Nil && !slices.Contains(dst[start:], k.Chan) {
			dst = append(dst, k.Chan)
		}
	}
	return dst
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
	return len(c.buf) > 0 || c.closed
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

// handedTo returns the outcome handed to the goroutine of op and not yet
// taken.
func (s State) handedTo(op *Op) (Fired, bool) {
	for _, h := range s.fired {
		if h.g == op.G {
			return h.f, true
		}
	}
	return Fired{}, false
}

// FiredIn returns the outcome that the write of the channel state v handed
// to goroutine g, which registered with token tok.
func FiredIn(v event.Value, g int32, tok Token) (Fired, bool) {
	if c, ok := v.P.(*channel); ok {
		for _, h := range c.handed {
			if h.g == g && h.tok == tok {
				return h.f, true
			}
		}
	}
	return Fired{}, false
}

// Enabled reports whether op can be performed now, on a state that holds
// its own channels. A send or receive on a buffered channel waits until it
// can complete; one on an unbuffered channel registers instead. A select
// without default is enabled when a case is ready or it has unbuffered
// cases to register on. A wait is enabled once the goroutine was handed
// its outcome, or, for a select, once a case is ready. Operations on the
// nil channel never are.
func (s State) Enabled(op *Op) bool {
	switch op.Kind {
	case event.ChanWait:
		if _, ok := s.handedTo(op); ok {
			return true
		}
		return op.Cases != nil && s.anyReady(op)
	case event.ChanSend, event.ChanRecv:
		c := s.ch(op.Chan)
		if op.Chan == Nil {
			return false
		}
		send := op.Kind == event.ChanSend
		return c == nil || c.cap == 0 && !send || s.ready(Case{Chan: op.Chan, Send: send}, op.G)
	case event.ChanLen:
		return op.Chan != Nil
	case event.Select:
		if op.Default || s.anyReady(op) {
			return true
		}
		for _, k := range op.Cases {
			if registers(s, k) {
				return true
			}
		}
		return false
	}
	return true
}

// registers reports whether a select that waits registers on case k: the
// receive cases on unbuffered channels.
func registers(s State, k Case) bool {
	c := s.ch(k.Chan)
	return c != nil && c.cap == 0 && !k.Send
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
	if _, ok := s.handedTo(op); ok && op.Kind == event.ChanWait {
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

// tx is a transition under way: the state it builds and what it read.
type tx struct {
	old   State
	n     State
	reads []ID
	more  []ID
}

// Apply performs op with outcome alt on a state that holds op's own
// channels and returns the new state and the result for the goroutine.
// Channels that the operation changes are replaced in the new state;
// the others are shared with s.
func (s State) Apply(op *Op, alt int) (State, Result) {
	t := &tx{old: s, n: State{chans: slices.Clone(s.chans), fired: s.fired}, reads: Own(nil, op)}
	r := t.apply(op, alt)
	r.Reads, r.More = t.reads, t.more
	return t.n, r
}

func (t *tx) apply(op *Op, alt int) Result {
	switch op.Kind {
	case event.ChanMake:
		c := &channel{cap: op.Cap}
		for range op.Cap {
			c.freed = append(c.freed, NoToken)
		}
		t.n.chans = append(t.n.chans, entry{op.Chan, c})
		return Result{Done: true, Sync: NoToken}
	case event.ChanLen:
		c := t.n.ch(op.Chan)
		if c == nil {
			return Result{Done: true, Sync: NoToken}
		}
		return Result{Done: true, N: len(c.buf), Sync: NoToken}
	case event.ChanClose:
		return t.close(op)
	case event.ChanSend:
		return t.send(op, Case{Chan: op.Chan, Send: true, V: op.V}, -1)
	case event.ChanRecv:
		return t.recv(op, op.Chan, -1)
	case event.ChanWait:
		f, ok := t.n.handedTo(op)
		if !ok {
			// A select woken by a ready case rather than by a partner.
			t.withdraw(op.G, t.reads, Nil)
			return t.sel(op, alt)
		}
		// The outcome was handed: the wait reads no channel.
		t.reads = nil
		t.n.fired = slices.DeleteFunc(slices.Clone(t.n.fired), func(h handed) bool { return h.g == op.G })
		return Result{Done: true, Case: f.Case, V: f.V, OK: f.OK, Sync: f.Sync}
	case event.Select:
		return t.sel(op, alt)
	}
	panic(fmt.Sprintf("weft: internal error: %v is not a channel operation", op.Kind))
}

// set replaces channel id in the new state by a copy that f changes.
func (t *tx) set(id ID, f func(c *channel)) {
	for i, e := range t.n.chans {
		if e.id != id {
			continue
		}
		old := e.c
		c := &channel{cap: old.cap, closed: old.closed, closeT: old.closeT,
			buf:     slices.Clone(old.buf),
			freed:   slices.Clone(old.freed),
			recvers: slices.Clone(old.recvers),
		}
		if old != t.old.ch(id) {
			c.handed = slices.Clone(old.handed) // handed by this transition
		}
		f(c)
		t.n.chans[i].c = c
		return
	}
	panic(fmt.Sprintf("weft: internal error: channel %d changed without being read", id))
}

func (t *tx) close(op *Op) Result {
	c := t.n.ch(op.Chan)
	switch {
	case op.Chan == Nil:
		return Result{Panic: "close of nil channel", Sync: NoToken}
	case c == nil:
		return Result{Panic: "close of a channel made in another execution", Sync: NoToken}
	case c.closed:
		return Result{Panic: "close of closed channel", Sync: NoToken}
	}
	woken := c.recvers
	t.set(op.Chan, func(c *channel) {
		c.closed, c.closeT = true, op.Tok
		c.recvers = nil
	})
	for _, w := range woken {
		t.fire(w, op.Chan, Fired{Case: w.cas, OK: false, Sync: op.Tok})
	}
	return Result{Done: true, Sync: NoToken}
}

// fire hands waiter w its outcome on channel id and withdraws its
// registrations on other channels (those of a select).
func (t *tx) fire(w waiter, id ID, f Fired) {
	h := handed{g: w.g, tok: w.tok, f: f}
	t.set(id, func(c *channel) { c.handed = append(c.handed, h) })
	t.n.fired = append(slices.Clone(t.n.fired), h)
	t.withdraw(w.g, w.chs, id)
}

// withdraw removes goroutine g's registrations from channels chs but
// except, reading them first.
func (t *tx) withdraw(g int32, chs []ID, except ID) {
	for _, id := range chs {
		if id == except {
			continue
		}
		if !slices.Contains(t.reads, id) {
			t.reads = append(t.reads, id)
			if !t.old.Has(id) {
				t.more = append(t.more, id)
			}
		}
		c := t.n.ch(id)
		if c == nil || !has(c.recvers, g) {
			continue
		}
		t.set(id, func(c *channel) { c.recvers = without(c.recvers, g) })
	}
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
	return slices.DeleteFunc(ws, func(w waiter) bool { return w.g == g })
}

// send performs the send of case k (cas: the select case, -1 for a plain
// send), which can complete: sends never register.
func (t *tx) send(op *Op, k Case, cas int32) Result {
	c := t.n.ch(k.Chan)
	switch {
	case c == nil:
		return Result{Panic: "send on a channel made in another execution", Sync: NoToken}
	case c.closed:
		return Result{Panic: "send on closed channel", Case: cas, Sync: NoToken}
	}
	switch {
	case len(c.recvers) > 0:
		// A receiver waits: hand it the value directly.
		r := c.recvers[0]
		t.set(k.Chan, func(c *channel) { c.recvers = c.recvers[1:] })
		t.fire(r, k.Chan, Fired{Case: r.cas, V: k.V, OK: true, Sync: op.Tok})
		return Result{Done: true, Case: cas, Sync: r.tok}
	case len(c.buf) < c.cap:
		// The receive that freed the slot synchronizes with this send's
		// completion: the k-th receive happens before the k+C-th send
		// completes.
		sync := c.freed[0]
		t.set(k.Chan, func(c *channel) {
			c.buf = append(c.buf, msg{v: k.V, tok: op.Tok})
			c.freed = c.freed[1:]
		})
		return Result{Done: true, Case: cas, Sync: sync}
	}
	panic("weft: internal error: a send that cannot complete was performed")
}

// recv performs a receive from id (cas: the select case, -1 for a plain
// receive), registering the goroutine when it cannot complete.
func (t *tx) recv(op *Op, id ID, cas int32) Result {
	c := t.n.ch(id)
	if c == nil {
		return Result{Panic: "receive from a channel made in another execution", Sync: NoToken}
	}
	switch {
	case len(c.buf) > 0:
		m := c.buf[0]
		t.set(id, func(c *channel) {
			c.buf = c.buf[1:]
			c.freed = append(c.freed, op.Tok)
		})
		return Result{Done: true, Case: cas, V: m.v, OK: true, Sync: m.tok}
	case c.closed:
		return Result{Done: true, Case: cas, OK: false, Sync: c.closeT}
	}
	if c.cap > 0 {
		panic("weft: internal error: receive from an empty buffered channel performed")
	}
	t.set(id, func(c *channel) { c.recvers = append(c.recvers, waiter{g: op.G, cas: cas, tok: op.Tok}) })
	return Result{Done: false, Case: cas, Sync: NoToken}
}

// sel performs a select: the alt-th ready case, the default when none is
// ready, or the registration on every unbuffered case.
func (t *tx) sel(op *Op, alt int) Result {
	i := 0
	for cas, k := range op.Cases {
		if !t.n.ready(k, op.G) {
			continue
		}
		if i == alt {
			if k.Send {
				return t.send(op, k, int32(cas))
			}
			return t.recv(op, k.Chan, int32(cas))
		}
		i++
	}
	if op.Default {
		return Result{Done: true, Case: int32(len(op.Cases)), Sync: NoToken}
	}
	var chs []ID
	for _, k := range op.Cases {
		if registers(t.n, k) && !slices.Contains(chs, k.Chan) {
			chs = append(chs, k.Chan)
		}
	}
	for cas, k := range op.Cases {
		if !registers(t.n, k) {
			continue
		}
		w := waiter{g: op.G, cas: int32(cas), tok: op.Tok, chs: chs}
		t.set(k.Chan, func(c *channel) { c.recvers = append(c.recvers, w) })
	}
	return Result{Done: false, Sync: NoToken}
}

func (s State) String() string { return fmt.Sprintf("%d channels", len(s.chans)) }

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
