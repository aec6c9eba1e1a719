package bench

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// bin is a lock-based bin of the priority queue: a FIFO of items under a
// lock (JMC's LockBasedBin), of fixed capacity.
type bin struct {
	mu         sync.Mutex
	head, tail weft.Var[int]
	items      []weft.Var[*item]
}

func (b *bin) put(x *item) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tail.Load()
	b.items[t].Store(x)
	b.tail.Store(t + 1)
}

// get removes the oldest item, or returns nil when the bin is empty.
func (b *bin) get() *item {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.head.Load()
	if h == b.tail.Load() {
		return nil
	}
	b.head.Store(h + 1)
	return b.items[h].Load()
}

// lpQueue is H&S's SimpleLinear priority queue (Fig. 15.1–15.2): an array
// of bins indexed by priority; add puts an item in the bin of its
// priority, removeMin scans the bins from the highest priority (0) and
// takes from the first that is not empty.
type lpQueue struct{ bins []bin }

func newLPQueue(rng int) *lpQueue {
	q := &lpQueue{bins: make([]bin, rng)}
	for i := range q.bins {
		q.bins[i].items = make([]weft.Var[*item], rng)
	}
	return q
}

func (q *lpQueue) add(x *item, score int) { q.bins[score].put(x) }

func (q *lpQueue) removeMin() *item {
	for i := range q.bins {
		if x := q.bins[i].get(); x != nil {
			return x
		}
	}
	return nil
}

// LPQueue returns the paper's client of the priority queue: main creates
// ins items and a symbolic score for each, and assumes every score in
// [0, ins) (one Assume of the conjunction, so that one execution at most is
// blocked by it); ins goroutines each add their item with its score, which
// sym.Choose turns into a bin index (the paper's EnumerationArray: one
// outcome per feasible index), and rem goroutines each remove the
// minimum. Every item must come out once, removed or left. The ExEn
// client (explicit) inserts concrete items and enumerates the scores.
func LPQueue(ins, rem int, explicit bool) func() {
	return func() {
		q := newLPQueue(ins)
		items := newItems(ins, explicit)
		scores := make([]sym.Int, ins)
		inRange := sym.True
		for i := range scores {
			scores[i] = sym.NewInt(fmt.Sprintf("score%d", i))
			inRange = inRange.And(scores[i].Ge(sym.Const(0))).And(scores[i].Lt(sym.Const(int64(ins))))
		}
		sym.Assume(inRange)
		got := make([]*item, rem)
		fs := make([]func(), 0, ins+rem)
		for i, x := range items {
			fs = append(fs, func() { q.add(x, sym.Choose(scores[i], ins)) })
		}
		for j := range got {
			fs = append(fs, func() { got[j] = q.removeMin() })
		}
		parallel(fs...)
		out := got
		for x := q.removeMin(); x != nil; x = q.removeMin() {
			out = append(out, x)
		}
		checkItems(items, out)
	}
}
