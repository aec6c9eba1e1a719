// Package chans is the semantics of Go's channels and select statements:
// the state of an execution's channels, which outcomes each operation can
// take in it, and what taking one does. The interleaving engines (dfs,
// random, replay) run on it directly; the optimal engine implements the same
// semantics over the locations of its execution graphs and names outcomes
// the same way, so that the schedules it records replay here.
//
// # When a goroutine arrives does not matter
//
// In Go, a goroutine blocked in a channel operation is parked on the
// channel, and a partner that arrives later completes the exchange with it.
// But no program can tell when another goroutine arrived at an operation:
// the scheduler may delay any goroutine for any time, so a goroutine about
// to send might as well not have arrived yet. The model uses that freedom
// to make the arrival order of waiting goroutines invisible:
//
//   - A blocking operation (send, receive, select without default) with a
//     case on an unbuffered channel first makes an offer: a step that
//     always succeeds and changes nothing a program can observe. Its
//     goroutine then waits for its completion, a second step (the wait,
//     event.ChanWait).
//   - A receive, or a select with a receive case, completes a rendezvous by
//     taking the offer of a goroutine that offers to send on that channel.
//     A select with a default (which never waits) may also take the offer
//     of a goroutine waiting to receive. Two waiting operations meet only
//     one way, the receiving side taking the sending side's offer, so that
//     a rendezvous is one outcome whichever goroutine arrived first.
//   - An offer does not make a case ready: a select with a default may take
//     it or its default, since the offering goroutine may not have arrived
//     yet. Only a buffered value, room in a buffer, or a closed channel
//     make a case ready in a way that forbids the default.
//   - A waiting goroutine completes on its own when a case of its operation
//     becomes ready (a buffered value, room, a close, or a partner's offer
//     it can take), withdrawing its offer; or it is handed its outcome by
//     the operation that took its offer.
//
// Buffered channels keep their values in FIFO order. The k-th receive
// takes the value of the k-th send, and its completion happens after the
// send; the k-th receive happens before the (k+C)-th send completes, for a
// channel of capacity C; a close happens before the receives that return
// because of it. Len and cap synchronize with nothing.
//
// # Outcomes
//
// An outcome (Outcome) names what an operation does: the case it takes
// (len(cases) for a select's default) and, for a rendezvous, the goroutine
// whose offer it takes and that offer's case. Outcomes are stable names, not
// indexes into a list, so that a recorded schedule means the same thing in
// every engine.
package chans

import (
	"fmt"
	"slices"

	"weft.dev/weft/internal/event"
)

// ID names a channel: the token of the operation that made it.
type ID int64

// Nil is the nil channel, on which sends and receives block forever.
const Nil ID = -1

// Token names an operation of an execution, for happens-before and for
// naming the partner of a rendezvous; NoToken is none. Tokens are chosen by
// the engine.
type Token int64

// NoToken means "no operation".
const NoToken Token = -1

// Case is one case of a select, or the one case of a send or a receive.
type Case struct {
	Chan ID
	Send bool
	V    event.Value // the value a send case sends
}

// Op is a channel operation of goroutine G.
type Op struct {
	Kind    event.Kind // ChanMake, ChanSend, ChanRecv, ChanClose, ChanLen, Select or ChanWait
	G       int32
	Chan    ID     // ChanMake (the channel made), ChanClose, ChanLen
	Cap     int    // ChanMake
	Cases   []Case // ChanSend, ChanRecv (one case), Select, ChanWait
	Default bool   // a select with a default case
	Tok     Token  // the token of this operation
}

// Blocking reports whether op waits when no case is ready: a send, a
// receive, a select without default, and the wait of one of them.
func (op *Op) Blocking() bool {
	switch op.Kind {
	case event.ChanSend, event.ChanRecv, event.ChanWait:
		return true
	case event.Select:
		return !op.Default
	}
	return false
}

// Outcome is what a channel operation does.
type Outcome struct {
	Case int32 // the case taken; len(cases) for a select's default
	// With is the goroutine whose offer the operation takes (or, for a
	// wait, the goroutine that took its offer), -1 for none; WithCase is
	// that offer's case (that goroutine's case).
	With     int32
	WithCase int32
}

// Alone is the outcome that takes case c without a partner.
func Alone(c int32) Outcome { return Outcome{Case: c, With: -1} }

// Alt and With encode o as an engine choice's outcome and partner (the
// goroutine plus one, 0 for none).
func (o Outcome) Alt() int32   { return o.Case<<16 | o.WithCase }
func (o Outcome) With1() int32 { return o.With + 1 }

// Decode is the inverse of Alt and With1.
func Decode(alt, with1 int32) Outcome {
	return Outcome{Case: alt >> 16, WithCase: alt & 0xffff, With: with1 - 1}
}

// MaxCases is the number of cases a select may have: outcomes encode a case
// in 15 bits.
const MaxCases = 1<<15 - 1

// Observation is what an operation observed of the channels, beyond its
// result: two executions whose operations observed the same are
// equivalent as far as channels go.
type Observation struct {
	// Partner is the operation whose offer a rendezvous took (for a wait
	// that was handed its outcome, the operation that took its offer), or
	// the send whose buffered value a receive took.
	Partner Token
	// Index is the place of a buffered send (or receive) among the
	// channel's sends (receives): the order in which values enter and
	// leave a buffer is part of an execution.
	Index int
	// Counts holds, for a len and for a select's default, the number of
	// sends and receives of each buffered channel it looked at, in the
	// order of its cases.
	Counts []int32
}

// Result is the outcome of an operation for its goroutine.
type Result struct {
	Wait  bool        // the operation offered itself: its goroutine waits
	Case  int32       // the case taken (Select, ChanWait), len(cases) for default
	V     event.Value // value received
	OK    bool        // a receive got a value rather than the close
	N     int         // ChanLen
	Panic string      // the operation panics with this message
	// Sync is the operation the completion synchronizes with (the offer a
	// rendezvous took, the receive that took a waiting sender's offer, the
	// send of a buffered value, the receive that freed a buffer slot, the
	// close), NoToken for none.
	Sync Token
	Obs  Observation
}

type msg struct {
	v   event.Value
	tok Token
}

// channel is the state of one channel.
type channel struct {
	cap         int
	buf         []msg
	sent, recvd int     // sends and receives so far (buffered channels)
	recvToks    []Token // the receives so far, by index (buffered channels)
	closed      bool
	closeTok    Token
}

// offer is the offer of a waiting goroutine.
type offer struct {
	g      int32
	tok    Token
	cases  []Case
	taken  bool
	handed handed
}

// handed is the outcome an operation handed the goroutine whose offer it
// took.
type handed struct {
	out  Outcome // the waiting goroutine's case; With its taker
	v    event.Value
	ok   bool
	sync Token // the taker
}

// State is the state of the channels of an execution. The zero State has
// none.
type State struct {
	chans  map[ID]*channel
	offers []*offer // in the order they were made; a goroutine has one at most
}

// Reset empties s for a new execution.
func (s *State) Reset() {
	clear(s.chans)
	s.offers = s.offers[:0]
}

func (s *State) ch(id ID) *channel {
	if id == Nil {
		return nil
	}
	return s.chans[id]
}

func (s *State) offerOf(g int32) *offer {
	for _, o := range s.offers {
		if o.g == g {
			return o
		}
	}
	return nil
}

// Offers reports whether the blocking operation op starts with an offer:
// it has a case on an unbuffered channel of this execution. A wait never
// does: it is the second step of one that did.
func (s *State) Offers(op *Op) bool {
	if op.Kind == event.ChanWait || !op.Blocking() {
		return false
	}
	for _, k := range op.Cases {
		if c := s.ch(k.Chan); c != nil && c.cap == 0 {
			return true
		}
	}
	return false
}

// Handed reports whether goroutine g waits in an offer that another
// operation took.
func (s *State) Handed(g int32) bool {
	o := s.offerOf(g)
	return o != nil && o.taken
}

// ready reports whether case k is ready without a partner: a buffered value
// or room, or a closed channel.
func ready(c *channel, k Case) bool {
	switch {
	case c == nil:
		return false
	case c.closed:
		return true
	case c.cap == 0:
		return false
	case k.Send:
		return len(c.buf) < c.cap
	}
	return len(c.buf) > 0
}

// Options appends to dst the outcomes op can take in s, in a fixed order;
// none when op cannot be performed now.
func (s *State) Options(op *Op, dst []Outcome) []Outcome {
	switch op.Kind {
	case event.ChanMake, event.ChanClose, event.ChanLen:
		return append(dst, Alone(0))
	}
	if s.Offers(op) {
		return append(dst, Alone(0)) // the offer
	}
	if op.Kind == event.ChanWait {
		if o := s.offerOf(op.G); o != nil && o.taken {
			return append(dst, o.handed.out)
		}
	}
	forced := false
	for i, k := range op.Cases {
		c := s.ch(k.Chan)
		if ready(c, k) {
			dst = append(dst, Alone(int32(i)))
			forced = true
			continue
		}
		if c == nil || c.cap > 0 {
			continue
		}
		// A waiting operation takes only offers to send; an operation
		// that never waits may also take an offer to receive.
		if k.Send && op.Blocking() {
			continue
		}
		for _, o := range s.offers {
			if o.g == op.G || o.taken {
				continue
			}
			for j, ok := range o.cases {
				if ok.Chan == k.Chan && ok.Send != k.Send {
					dst = append(dst, Outcome{Case: int32(i), With: o.g, WithCase: int32(j)})
				}
			}
		}
	}
	if op.Default && !forced {
		dst = append(dst, Alone(int32(len(op.Cases))))
	}
	return dst
}

// Enabled reports whether op can be performed now.
func (s *State) Enabled(op *Op) bool {
	var buf [4]Outcome
	return len(s.Options(op, buf[:0])) > 0
}

// Apply performs op with outcome out, which Options gave, and returns the
// result for its goroutine.
func (s *State) Apply(op *Op, out Outcome) Result {
	switch op.Kind {
	case event.ChanMake:
		if s.chans == nil {
			s.chans = map[ID]*channel{}
		}
		s.chans[op.Chan] = &channel{cap: op.Cap}
		return nothing()
	case event.ChanClose:
		return s.close(op)
	case event.ChanLen:
		r := nothing()
		if c := s.ch(op.Chan); c != nil {
			r.N = len(c.buf)
			if c.cap > 0 {
				r.Obs.Counts = []int32{int32(c.sent), int32(c.recvd)}
			}
		}
		return r
	}
	if s.Offers(op) {
		s.offers = append(s.offers, &offer{g: op.G, tok: op.Tok, cases: op.Cases})
		r := nothing()
		r.Wait = true
		return r
	}
	if op.Kind == event.ChanWait {
		if o := s.offerOf(op.G); o != nil && o.taken {
			s.withdraw(op.G)
			h := o.handed
			return Result{Case: h.out.Case, V: h.v, OK: h.ok, Sync: h.sync, Obs: Observation{Partner: h.sync}}
		}
	}
	s.withdraw(op.G)
	if int(out.Case) == len(op.Cases) {
		r := nothing()
		r.Case, r.Obs.Counts = out.Case, s.counts(op)
		return r
	}
	k := op.Cases[out.Case]
	c := s.ch(k.Chan)
	r := nothing()
	switch {
	case out.With >= 0:
		r = s.rendezvous(op, out)
	case c.closed && k.Send:
		r.Panic = "send on closed channel"
	case k.Send:
		r = s.push(c, k.V, op.Tok)
	case len(c.buf) > 0:
		r = s.pop(c, op.Tok)
	default:
		r.Sync = c.closeTok // closed and drained
	}
	r.Case = out.Case
	return r
}

// withdraw removes goroutine g's offer.
func (s *State) withdraw(g int32) {
	s.offers = slices.DeleteFunc(s.offers, func(o *offer) bool { return o.g == g })
}

// rendezvous takes the offer out names for op.
func (s *State) rendezvous(op *Op, out Outcome) Result {
	o := s.offerOf(out.With)
	k, ok := op.Cases[out.Case], o.cases[out.WithCase]
	h := handed{out: Outcome{Case: out.WithCase, With: op.G, WithCase: out.Case}, ok: true, sync: op.Tok}
	r := Result{Sync: o.tok, Obs: Observation{Partner: o.tok}}
	if k.Send {
		h.v = k.V
	} else {
		r.V, r.OK = ok.V, true
	}
	o.taken, o.handed = true, h
	return r
}

// push adds a value sent by tok to buffered channel c, which has room.
func (s *State) push(c *channel, v event.Value, tok Token) Result {
	r := nothing()
	r.Obs.Index = c.sent
	if k := c.sent - c.cap; k >= 0 {
		r.Sync = c.recvToks[k]
	}
	c.buf = append(c.buf, msg{v: v, tok: tok})
	c.sent++
	return r
}

// pop takes the oldest value of buffered channel c for the receive tok.
func (s *State) pop(c *channel, tok Token) Result {
	m := c.buf[0]
	c.buf = c.buf[1:]
	r := Result{V: m.v, OK: true, Sync: m.tok, Obs: Observation{Partner: m.tok, Index: c.recvd}}
	c.recvToks = append(c.recvToks, tok)
	c.recvd++
	return r
}

func (s *State) close(op *Op) Result {
	c := s.ch(op.Chan)
	r := nothing()
	switch {
	case op.Chan == Nil:
		r.Panic = "close of nil channel"
	case c == nil:
		r.Panic = "close of a channel made in another execution"
	case c.closed:
		r.Panic = "close of closed channel"
	default:
		c.closed, c.closeTok = true, op.Tok
	}
	return r
}

// nothing is the result of an operation that synchronizes with nothing and
// observed nothing.
func nothing() Result { return Result{Sync: NoToken, Obs: Observation{Partner: NoToken}} }

// counts returns what a select's default observed of its buffered
// channels: their sends and receives so far, in case order.
func (s *State) counts(op *Op) []int32 {
	var n []int32
	for _, k := range op.Cases {
		if c := s.ch(k.Chan); c != nil && c.cap > 0 {
			n = append(n, int32(c.sent), int32(c.recvd))
		}
	}
	return n
}

// OpOf returns the channel operation of label l, performed by goroutine g
// with token tok. For ChanMake, the new channel's ID is tok.
func OpOf(l *event.Label, g int32, tok Token) Op {
	id := ID(int64(l.B.N))
	op := Op{Kind: l.Kind, G: g, Chan: id, Tok: tok}
	switch l.Kind {
	case event.ChanMake:
		op.Chan, op.Cap = ID(tok), int(l.B.N)
	case event.ChanSend:
		op.Cases = []Case{{Chan: id, Send: true, V: l.A}}
	case event.ChanRecv:
		op.Cases = []Case{{Chan: id}}
	case event.Select:
		op.Cases, _ = l.A.P.([]Case)
		op.Default = l.Arg == 1
		op.Chan = Nil
	case event.ChanWait:
		if cases, ok := l.A.P.([]Case); ok {
			op.Cases = cases
		} else {
			op.Cases = []Case{{Chan: id, Send: event.Kind(l.Arg) == event.ChanSend}}
		}
	}
	return op
}

// SameOp is event.Label.SameOp for every kind of operation: for a channel
// operation, whose object is its channels, that it is on the same channels
// (SameChannels).
func SameOp(a, b *event.Label) bool {
	return a.SameOp(b) && (!a.Kind.Chan() || SameChannels(a, b))
}

// SameChannels reports whether the channel operations of labels a and b,
// of the same kind, are on the same channels: for a select or a wait, the
// same cases in the same order, each on the same channel and in the same
// direction. A replay compares them, the channels' IDs being the same in
// every execution: a program that sends on another channel than the
// recorded execution did (one chosen by a map's iteration order, say) is
// nondeterministic.
func SameChannels(a, b *event.Label) bool {
	if a.B.N != b.B.N {
		return false // the channel, or a make's capacity
	}
	ca, _ := a.A.P.([]Case)
	cb, _ := b.A.P.([]Case)
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i].Chan != cb[i].Chan || ca[i].Send != cb[i].Send {
			return false
		}
	}
	return true
}

// Event converts r to what the operation returns to its goroutine. A
// channel made returns its ID in V.N.
func (r Result) Event(op *Op) event.Result {
	e := event.Result{V: r.V, OK: r.OK, From: -1, Case: r.Case, Wait: r.Wait}
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

func (s *State) String() string {
	return fmt.Sprintf("%d channels, %d offers", len(s.chans), len(s.offers))
}

// plainError is a runtime panic of a channel operation, as Go raises it.
type plainError string

func (e plainError) Error() string { return string(e) }
func (e plainError) RuntimeError() {}
