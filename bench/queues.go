package bench

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// The data-independent queues of the paper's Tables 3 and 4.

// lbQueue is H&S's LockBasedQueue (Fig. 3.1): a bounded array queue under
// one lock; enq on a full queue and deq on an empty one fail at once
// (H&S throw FullException and EmptyException).
type lbQueue struct {
	mu         sync.Mutex
	head, tail weft.Var[int]
	items      []weft.Var[*item]
}

func (q *lbQueue) insert(x *item) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.tail.Load()
	weft.Assert(t-q.head.Load() < len(q.items), "queue full")
	q.items[t%len(q.items)].Store(x)
	q.tail.Store(t + 1)
}

func (q *lbQueue) remove() *item {
	q.mu.Lock()
	defer q.mu.Unlock()
	h := q.head.Load()
	if q.tail.Load() == h {
		return nil
	}
	x := q.items[h%len(q.items)].Load()
	q.head.Store(h + 1)
	return x
}

func (q *lbQueue) contents() []*item {
	var out []*item
	for x := q.remove(); x != nil; x = q.remove() {
		out = append(out, x)
	}
	return out
}

// LBQueue returns LBQueue of capacity ins with ins inserters and rem
// removers (rem = 0 is the 100-0 workload); explicit selects the ExEn
// client. Every operation is one critical section of the one lock, so the
// classes of executions are the (ins+rem)! orders of those.
func LBQueue(ins, rem int, explicit bool) func() {
	return workload(func() collection { return &lbQueue{items: make([]weft.Var[*item], ins)} }, ins, rem, explicit)
}

// hwQueue is the Herlihy–Wing queue (H&S Fig. 3.17): enq reserves a slot
// with an atomic increment of tail and fills it; deq scans the slots up
// to tail, swapping each with nil, until it takes an item.
type hwQueue struct {
	tail  atomic.Int64
	items []atomic.Pointer[item]
}

func (q *hwQueue) insert(x *item) {
	i := q.tail.Add(1) - 1
	q.items[i].Store(x)
}

// remove is H&S's deq, which scans until it finds an item: a scan that
// finds none changes nothing (it swaps nil for nil), so the checker only
// follows executions in which the first scan succeeds and blocks the
// others (an unsatisfied Assume): the executions in which a later scan
// succeeds are those in which the first one starts later. This is the
// spin-assume reduction of the GenMC model checker.
func (q *hwQueue) remove() *item {
	x := q.scan()
	weft.Assume(x != nil)
	return x
}

func (q *hwQueue) scan() *item {
	for i := range q.tail.Load() {
		if x := q.items[i].Swap(nil); x != nil {
			return x
		}
	}
	return nil
}

func (q *hwQueue) contents() []*item {
	var out []*item
	for x := q.scan(); x != nil; x = q.scan() {
		out = append(out, x)
	}
	return out
}

// HWQueue returns the Herlihy–Wing queue with ins inserters and rem
// removers; explicit selects the ExEn client.
func HWQueue(ins, rem int, explicit bool) func() {
	return workload(func() collection { return &hwQueue{items: make([]atomic.Pointer[item], ins)} }, ins, rem, explicit)
}

// ubNode is a node of ubQueue. next is atomic because deq reads it under
// the deq lock while enq writes it under the enq lock (volatile in H&S).
type ubNode struct {
	value *item
	next  atomic.Pointer[ubNode]
}

// ubQueue is H&S's UnboundedQueue (Fig. 10.8): a linked list with a
// sentinel, an enq lock for the tail and a deq lock for the head; deq on
// an empty queue fails at once (EmptyException).
type ubQueue struct {
	enqLock, deqLock sync.Mutex
	head, tail       weft.Var[*ubNode]
	nodes            []ubNode // node i is inserter i's, the last the sentinel
}

func (q *ubQueue) insert(x *item) {
	n := &q.nodes[x.id]
	n.value = x
	q.enqLock.Lock()
	defer q.enqLock.Unlock()
	q.tail.Load().next.Store(n)
	q.tail.Store(n)
}

func (q *ubQueue) remove() *item {
	q.deqLock.Lock()
	defer q.deqLock.Unlock()
	next := q.head.Load().next.Load()
	if next == nil {
		return nil
	}
	q.head.Store(next)
	return next.value
}

func (q *ubQueue) contents() []*item {
	var out []*item
	for x := q.remove(); x != nil; x = q.remove() {
		out = append(out, x)
	}
	return out
}

// UBQueue returns H&S's unbounded lock-based queue with ins inserters and
// rem removers; explicit selects the ExEn client.
func UBQueue(ins, rem int, explicit bool) func() {
	return workload(func() collection {
		nodes := make([]ubNode, ins+1)
		q := &ubQueue{nodes: nodes}
		s := &nodes[ins]
		q.head.Store(s)
		q.tail.Store(s)
		return q
	}, ins, rem, explicit)
}

// msNode is a node of msQueue.
type msNode struct {
	value *item
	next  atomic.Pointer[msNode]
}

// msQueue is the Michael–Scott lock-free queue (H&S Fig. 10.9–10.11,
// LockFreeQueue), with its retry loops: a goroutine that finds the tail
// lagging swings it before retrying.
type msQueue struct {
	head, tail atomic.Pointer[msNode]
	nodes      []msNode // node i is inserter i's, the last the sentinel
}

func (q *msQueue) insert(x *item) {
	n := &q.nodes[x.id]
	n.value = x
	for {
		last := q.tail.Load()
		next := last.next.Load()
		if last != q.tail.Load() {
			continue
		}
		if next == nil {
			if last.next.CompareAndSwap(nil, n) {
				q.tail.CompareAndSwap(last, n)
				return
			}
		} else {
			q.tail.CompareAndSwap(last, next)
		}
	}
}

func (q *msQueue) remove() *item {
	for {
		first := q.head.Load()
		last := q.tail.Load()
		next := first.next.Load()
		if first != q.head.Load() {
			continue
		}
		if first == last {
			if next == nil {
				return nil
			}
			q.tail.CompareAndSwap(last, next)
		} else {
			v := next.value
			if q.head.CompareAndSwap(first, next) {
				return v
			}
		}
	}
}

func (q *msQueue) contents() []*item {
	var out []*item
	for x := q.remove(); x != nil; x = q.remove() {
		out = append(out, x)
	}
	return out
}

// MSQueue returns the Michael–Scott queue with ins inserters and rem
// removers; explicit selects the ExEn client.
func MSQueue(ins, rem int, explicit bool) func() {
	return workload(func() collection {
		nodes := make([]msNode, ins+1)
		q := &msQueue{nodes: nodes}
		s := &nodes[ins]
		q.head.Store(s)
		q.tail.Store(s)
		return q
	}, ins, rem, explicit)
}
