package bench

import (
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
)

// The data-independent stacks of the paper's Tables 3 and 4 and the
// elimination-backoff stack of Table 8.

// agmStack is the Afek–Gafni–Morrison stack (Common2 extended to stacks,
// Distributed Computing 2007): push reserves a slot with an atomic
// increment of top and fills it; pop scans the slots below top downwards,
// swapping each with nil, and returns the first item it takes, or
// reports the stack empty.
type agmStack struct {
	top   atomic.Int64
	items []atomic.Pointer[item]
}

func (s *agmStack) insert(x *item) {
	i := s.top.Add(1) - 1
	s.items[i].Store(x)
}

func (s *agmStack) remove() *item {
	for i := s.top.Load() - 1; i >= 0; i-- {
		if x := s.items[i].Swap(nil); x != nil {
			return x
		}
	}
	return nil
}

func (s *agmStack) contents() []*item {
	var out []*item
	for x := s.remove(); x != nil; x = s.remove() {
		out = append(out, x)
	}
	return out
}

// AGMStack returns the Afek–Gafni–Morrison stack with ins pushers and rem
// poppers; explicit selects the ExEn client.
func AGMStack(ins, rem int, explicit bool) func() {
	return workload(func() collection { return &agmStack{items: make([]atomic.Pointer[item], ins)} }, ins, rem, explicit)
}

// tNode is a node of the Treiber stack. next is written before the node
// is published by a compare-and-swap of top and never after, so it is
// plain memory.
type tNode struct {
	value *item
	next  *tNode
}

// treiberStack is Treiber's lock-free stack (H&S Fig. 11.2–11.4,
// LockFreeStack), with its retry loops; pop on an empty stack fails at
// once (EmptyException). H&S back off between attempts, which takes no
// steps the checker sees.
type treiberStack struct {
	top   atomic.Pointer[tNode]
	nodes []tNode // node i is pusher i's
}

// node returns x's node.
func (s *treiberStack) node(x *item) *tNode {
	n := &s.nodes[x.id]
	n.value = x
	return n
}

// tryPush is one attempt to push n.
func (s *treiberStack) tryPush(n *tNode) bool {
	old := s.top.Load()
	n.next = old
	return s.top.CompareAndSwap(old, n)
}

// tryPop is one attempt to pop: ok is false when the attempt lost a race,
// n is nil when the stack is empty.
func (s *treiberStack) tryPop() (n *tNode, ok bool) {
	old := s.top.Load()
	if old == nil {
		return nil, true
	}
	return old, s.top.CompareAndSwap(old, old.next)
}

func (s *treiberStack) insert(x *item) {
	n := s.node(x)
	for !s.tryPush(n) {
	}
}

func (s *treiberStack) remove() *item {
	for {
		if n, ok := s.tryPop(); ok {
			if n == nil {
				return nil
			}
			return n.value
		}
	}
}

func (s *treiberStack) contents() []*item {
	var out []*item
	for x := s.remove(); x != nil; x = s.remove() {
		out = append(out, x)
	}
	return out
}

// TreiberStack returns Treiber's stack with ins pushers and rem poppers;
// explicit selects the ExEn client.
func TreiberStack(ins, rem int, explicit bool) func() {
	return workload(func() collection { return &treiberStack{nodes: make([]tNode, ins)} }, ins, rem, explicit)
}

// The states of an exchanger's slot (H&S Fig. 11.6).
const (
	exEmpty = iota
	exWaiting
	exBusy
)

// exchanger is H&S's LockFreeExchanger (Fig. 11.6). Its slot holds an
// item and a state, replaced together, as H&S's AtomicStampedReference
// does: here packed in one word, the state in the low two bits and the
// item's index plus one above (0 for no item: a pop offers none). The
// items themselves are in the stack's items.
//
// H&S's loops run until a timeout, which can expire at any moment: the
// model makes one attempt and, when it waits for a partner, one look at
// the slot before it gives up; the executions where the timeout expires
// later are those where the attempt or the look happen later.
type exchanger struct {
	slot atomic.Int64
}

func pack(id, state int) int64 { return int64(id+1)<<2 | int64(state) }

func unpack(w int64) (id, state int) { return int(w>>2) - 1, int(w & 3) }

// exchange offers the item with index mine (-1 for none) and returns the
// partner's; ok is false when no exchange took place (a timeout).
func (e *exchanger) exchange(mine int) (yours int, ok bool) {
	cur := e.slot.Load()
	_, state := unpack(cur)
	switch state {
	case exEmpty:
		offer := pack(mine, exWaiting)
		if !e.slot.CompareAndSwap(cur, offer) {
			return -1, false
		}
		// Wait for a partner: one look, then withdraw the offer.
		if got := e.slot.Load(); got&3 == exBusy {
			e.slot.Store(pack(-1, exEmpty))
			id, _ := unpack(got)
			return id, true
		}
		if e.slot.CompareAndSwap(offer, pack(-1, exEmpty)) {
			return -1, false
		}
		id, _ := unpack(e.slot.Load())
		e.slot.Store(pack(-1, exEmpty))
		return id, true
	case exWaiting:
		if e.slot.CompareAndSwap(cur, pack(mine, exBusy)) {
			id, _ := unpack(cur)
			return id, true
		}
	}
	return -1, false
}

// ebStack is H&S's EliminationBackoffStack (Fig. 11.7–11.9): a Treiber
// stack whose operations, when their compare-and-swap fails, visit a
// random slot of an elimination array, where a push and a pop can meet
// and cancel out. The random slot is a fresh symbolic input, chosen with
// sym.Choose.
type ebStack struct {
	treiberStack
	elim  []exchanger
	items []*item // by index, for the exchangers
}

// visit offers x (nil for a pop) at a symbolic slot of the elimination
// array and returns the partner's offer; ok is false on a timeout.
func (s *ebStack) visit(x *item) (other *item, ok bool) {
	i := sym.Choose(sym.NewInt("slot"), len(s.elim))
	mine := -1
	if x != nil {
		mine = x.id
	}
	id, ok := s.elim[i].exchange(mine)
	if !ok || id < 0 {
		return nil, ok
	}
	return s.items[id], true
}

func (s *ebStack) insert(x *item) {
	s.items[x.id] = x
	n := s.node(x)
	for !s.tryPush(n) {
		if other, ok := s.visit(x); ok && other == nil {
			return // eliminated by a pop
		}
	}
}

func (s *ebStack) remove() *item {
	for {
		if n, ok := s.tryPop(); ok {
			if n == nil {
				return nil
			}
			return n.value
		}
		if other, ok := s.visit(nil); ok && other != nil {
			return other // eliminated a push
		}
	}
}

// EBStack returns the elimination-backoff stack with ins pushers and rem
// poppers and, as the paper sizes it, an elimination array of ⌈N/2⌉
// slots for the N = ins+rem goroutines; explicit selects the ExEn client.
func EBStack(ins, rem int, explicit bool) func() {
	return workload(func() collection {
		return &ebStack{
			treiberStack: treiberStack{nodes: make([]tNode, ins)},
			elim:         make([]exchanger, (ins+rem+1)/2),
			items:        make([]*item, ins),
		}
	}, ins, rem, explicit)
}
