package bench

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// The synthetic programs of the paper's Tables 1 and 2: the two hand-made
// counters and JMC's ports of SV-COMP's pthread stack and queue programs
// (JMC's sources: programs/nondet/{counter,stack/svStack,queue/svQueue}).

// parallel runs every f on its own goroutine and waits for them all, as
// the paper's clients start their threads and join them.
func parallel(fs ...func()) {
	gs := make([]*weft.Goroutine, len(fs))
	for i, f := range fs {
		gs[i] = weft.Go(f)
	}
	for _, g := range gs {
		g.Join()
	}
}

// Counter returns Counter1(n) (one mutex) or Counter2(n) (twoLocks: a
// mutex per counter): n goroutines, each with a symbolic id created by
// main, increment counter c1 when their id is even and c2 when it is odd.
// Counter1 has 2^n·n! classes of executions (a parity per goroutine, an
// order of the n critical sections), Counter2 (n+1)!.
func Counter(n int, twoLocks bool) func() {
	return func() {
		var m1, m2 sync.Mutex
		var c1, c2 weft.Var[int]
		ids := make([]sym.Int, n)
		for i := range ids {
			ids[i] = sym.NewInt(fmt.Sprintf("id%d", i))
		}
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = func() {
				m, c := &m2, &c2
				if ids[i].Rem(sym.Const(2)).Eq(sym.Const(0)).Eval() {
					m, c = &m1, &c1
				}
				if !twoLocks {
					m = &m1
				}
				m.Lock()
				c.Store(c.Load() + 1)
				m.Unlock()
			}
		}
		parallel(fs...)
		weft.Assert(c1.Load()+c2.Load() == n, "lost increment: c1 + c2 = %d, want %d", c1.Load()+c2.Load(), n)
	}
}

// svStack is the bounded array stack of SV-COMP's stack programs, all of
// whose accesses are under one mutex.
type svStack struct {
	mu   sync.Mutex
	top  weft.Var[int]
	elem []weft.Var[sym.Int]
}

func newSVStack(n int) *svStack { return &svStack{elem: make([]weft.Var[sym.Int], n)} }

// push pushes x and reports whether there was room.
func (s *svStack) push(x sym.Int) bool {
	t := s.top.Load()
	if t == len(s.elem) {
		return false
	}
	s.elem[t].Store(x)
	s.top.Store(t + 1)
	return true
}

// pop pops the top element; ok is false when the stack is empty.
func (s *svStack) pop() (x sym.Int, ok bool) {
	t := s.top.Load()
	if t == 0 {
		return sym.Int{}, false
	}
	s.top.Store(t - 1)
	return s.elem[t-1].Load(), true
}

// SVStack returns SVStack1(n) or, with flag, SVStack2(n): SV-COMP's
// stack-1 and stack-2 as JMC ports them. A producer takes the lock n
// times and each time pushes a fresh symbolic x, assuming x < n; a
// consumer takes the lock n times and pops, when the stack is not empty
// (SVStack1) or once the producer's flag is set (SVStack2). SVStack1 has
// C(2n,n) classes of executions, the orders of the 2n critical sections.
//
// In SVStack2 a pop can find the stack empty. SV-COMP's stack-2 reports
// an error there (underflowBug: an assertion fails). JMC's port instead
// returns from the consumer still holding the lock, so that the producer
// blocks and the execution counts as blocked; in Go the producer would
// then wait for the lock forever, a deadlock that weft reports and stops
// at, so to count executions as the paper does the consumer blocks
// instead (an unsatisfied Assume), which makes the execution Blocked.
func SVStack(n int, flag, underflowBug bool) func() {
	return func() {
		s := newSVStack(n)
		var pushed weft.Var[bool]
		producer := func() {
			for i := range n {
				s.mu.Lock()
				x := sym.NewInt(fmt.Sprintf("x%d", i))
				sym.Assume(x.Lt(sym.Const(int64(n))))
				weft.Assert(s.push(x), "stack overflow")
				pushed.Store(true)
				s.mu.Unlock()
			}
		}
		consumer := func() {
			for range n {
				s.mu.Lock()
				if flag && pushed.Load() || !flag && s.top.Load() > 0 {
					_, ok := s.pop()
					if underflowBug {
						weft.Assert(ok, "stack underflow")
					}
					weft.Assume(ok)
				}
				s.mu.Unlock()
			}
		}
		parallel(producer, consumer)
	}
}

// svQueue is the circular queue of JMC's SVQueue (its port of SV-COMP's
// queue_ok), accessed under one mutex, with the producer's and the
// consumer's flags and the array of the values enqueued. As in that port,
// head == tail means empty, so that a queue holding n values looks empty:
// this is why the paper's SVQueue1 has 2 executions for every n.
type svQueue struct {
	mu               sync.Mutex
	elem             []weft.Var[sym.Int]
	head, tail       weft.Var[int]
	enqueue, dequeue weft.Var[bool] // whose turn it is; enqueue starts true
	stored           []weft.Var[sym.Int]
}

func newSVQueue(n int) *svQueue {
	q := &svQueue{elem: make([]weft.Var[sym.Int], n), stored: make([]weft.Var[sym.Int], n)}
	q.enqueue.Store(true)
	return q
}

func (q *svQueue) empty() bool { return q.head.Load() == q.tail.Load() }

func (q *svQueue) enq(x sym.Int) {
	t := q.tail.Load()
	q.elem[t].Store(x)
	q.tail.Store((t + 1) % len(q.elem))
}

func (q *svQueue) deq() sym.Int {
	h := q.head.Load()
	x := q.elem[h].Load()
	q.head.Store((h + 1) % len(q.elem))
	return x
}

// produceAll enqueues n fresh symbolic values, if it is the producer's
// turn, and passes the turn to the consumer.
func (q *svQueue) produceAll(n int) {
	if !q.enqueue.Load() {
		return
	}
	for i := range n {
		x := sym.NewInt(fmt.Sprintf("x%d", i))
		q.enq(x)
		q.stored[i].Store(x)
	}
	q.enqueue.Store(false)
	q.dequeue.Store(true)
}

// consumeAll dequeues up to n values, if it is the consumer's turn,
// checking each against the value stored for it.
func (q *svQueue) consumeAll(n int) {
	if !q.dequeue.Load() {
		return
	}
	for i := range n {
		if q.empty() {
			continue
		}
		x := q.deq()
		sym.Assert(x.Eq(q.stored[i].Load()), "dequeued the wrong value")
		q.dequeue.Store(false)
		q.enqueue.Store(true)
	}
}

// SVQueue returns SVQueue1(n), SVQueue2(n) or SVQueue3(n) (variant 1, 2
// or 3): JMC's three ports of SV-COMP's queue_ok, a producer and a
// consumer sharing an svQueue of n symbolic ints.
//
//   - SVQueue1 (JMC's Producer3/Consumer3): each side takes the lock once
//     and moves all n values.
//   - SVQueue2 (Producer2/Consumer2): each side takes the lock n times,
//     moving all n values when it is its turn; C(2n,n) classes.
//   - SVQueue3 (Producer/Consumer): the producer enqueues one value, then
//     n−1 more, one per lock round when it is its turn; the consumer takes
//     n lock rounds and dequeues one value in each when it is its turn,
//     comparing it with the i-th value stored, which is 0 when the
//     producer has not stored it yet (C's zero-initialised array; JMC's
//     port returns instead). A mismatch is not an error there: the
//     consumer stops, as JMC's port does.
func SVQueue(n, variant int) func() {
	return func() {
		q := newSVQueue(n)
		var producer, consumer func()
		switch variant {
		case 1:
			producer = func() {
				q.mu.Lock()
				q.produceAll(n)
				q.mu.Unlock()
			}
			consumer = func() {
				q.mu.Lock()
				q.consumeAll(n)
				q.mu.Unlock()
			}
		case 2:
			producer = func() {
				for range n {
					q.mu.Lock()
					q.produceAll(n)
					q.mu.Unlock()
				}
			}
			consumer = func() {
				for range n {
					q.mu.Lock()
					q.consumeAll(n)
					q.mu.Unlock()
				}
			}
		default:
			producer = func() {
				q.mu.Lock()
				x := sym.NewInt("x0")
				q.enq(x)
				q.stored[0].Store(x)
				if q.empty() {
					q.mu.Unlock()
					return
				}
				q.mu.Unlock()
				for i := range n - 1 {
					q.mu.Lock()
					if q.enqueue.Load() {
						x := sym.NewInt(fmt.Sprintf("x%d", i+1))
						q.enq(x)
						q.stored[i+1].Store(x)
						q.enqueue.Store(false)
						q.dequeue.Store(true)
					}
					q.mu.Unlock()
				}
			}
			consumer = func() {
				for i := range n {
					q.mu.Lock()
					if q.dequeue.Load() {
						x := q.deq()
						if x.Ne(q.stored[i].Load()).Eval() {
							q.mu.Unlock()
							return
						}
						q.dequeue.Store(false)
						q.enqueue.Store(true)
					}
					q.mu.Unlock()
				}
			}
		}
		parallel(producer, consumer)
	}
}
