package bench

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// The data-dependent structures of the paper's Table 5: the four sorted
// linked-list sets of H&S chapter 9, with symbolic keys compared by
// sym's Lt and Eq.
//
// The sentinels at both ends stand for −∞ and +∞ (H&S give them the keys
// Integer.MIN_VALUE and MAX_VALUE and assume every key lies between): here
// they are marked as such, so that no comparison with them is symbolic and
// the keys need no range assumption.

// The kinds of list nodes.
const (
	keyNode = iota
	headNode
	tailNode
)

// set is a set of symbolic keys; id is the index of the goroutine the key
// belongs to, which names its node.
type set interface {
	add(key sym.Int, id int) bool
	remove(key sym.Int) bool
	// keys returns the ids of the nodes in the set, in list order, for
	// main to check once every goroutine has ended.
	keys() []int
}

// keyed is what the lists' nodes have in common.
type keyed struct {
	kind int
	key  sym.Int
	id   int
}

// less reports whether n's key is below k.
func (n *keyed) less(k sym.Int) bool {
	switch n.kind {
	case headNode:
		return true
	case tailNode:
		return false
	}
	return n.key.Lt(k).Eval()
}

// equal reports whether n's key is k.
func (n *keyed) equal(k sym.Int) bool { return n.kind == keyNode && n.key.Eq(k).Eval() }

// atMost reports whether n's key is at most m's, for OptList's validation.
func (n *keyed) atMost(m *keyed) bool {
	switch {
	case n.kind == headNode || m.kind == tailNode:
		return true
	case n.kind == tailNode || m.kind == headNode:
		return false
	}
	return n.key.Le(m.key).Eval()
}

// lockedNode is a node of CoarseList and FineList, whose links are only
// read and written under locks.
type lockedNode struct {
	keyed
	mu   sync.Mutex // FineList's per-node lock
	next weft.Var[*lockedNode]
}

// lockedList is the list of lockedNodes from head to the tail sentinel.
type lockedList struct {
	head  *lockedNode
	nodes []lockedNode // the keys' nodes and the two sentinels
}

func newLockedList(nodes []lockedNode) lockedList {
	n := len(nodes)
	head, tail := &nodes[n-2], &nodes[n-1]
	head.kind, tail.kind = headNode, tailNode
	head.next.Store(tail)
	return lockedList{head: head, nodes: nodes}
}

// node returns the node of key k of goroutine id.
func (l *lockedList) node(k sym.Int, id int) *lockedNode {
	n := &l.nodes[id]
	n.keyed = keyed{kind: keyNode, key: k, id: id}
	return n
}

func (l *lockedList) keys() []int {
	var ids []int
	for n := l.head.next.Load(); n.kind == keyNode; n = n.next.Load() {
		ids = append(ids, n.id)
	}
	return ids
}

// coarseList is H&S's CoarseList (Fig. 9.4–9.5): one lock for the whole
// list.
type coarseList struct {
	mu sync.Mutex
	lockedList
}

// find returns the nodes around key: pred is the last node below it. The
// caller holds the lock.
func (s *coarseList) find(key sym.Int) (pred, curr *lockedNode) {
	pred = s.head
	curr = pred.next.Load()
	for curr.less(key) {
		pred = curr
		curr = curr.next.Load()
	}
	return pred, curr
}

func (s *coarseList) add(key sym.Int, id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pred, curr := s.find(key)
	if curr.equal(key) {
		return false
	}
	n := s.node(key, id)
	n.next.Store(curr)
	pred.next.Store(n)
	return true
}

func (s *coarseList) remove(key sym.Int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pred, curr := s.find(key)
	if !curr.equal(key) {
		return false
	}
	pred.next.Store(curr.next.Load())
	return true
}

// CoarseList returns H&S's coarse-grained list with ins inserters and rem
// removers; explicit selects the ExEn client (see listClient).
func CoarseList(ins, rem int, explicit bool) func() {
	return listClient(func() set { return &coarseList{lockedList: newLockedList(make([]lockedNode, ins+2))} }, ins, rem, explicit)
}

// fineList is H&S's FineList (Fig. 9.6–9.7): hand-over-hand locking, a
// lock per node.
type fineList struct{ lockedList }

// find locks and returns the nodes around key: pred is the last node
// below it.
func (s *fineList) find(key sym.Int) (pred, curr *lockedNode) {
	pred = s.head
	pred.mu.Lock()
	curr = pred.next.Load()
	curr.mu.Lock()
	for curr.less(key) {
		pred.mu.Unlock()
		pred = curr
		curr = curr.next.Load()
		curr.mu.Lock()
	}
	return pred, curr
}

func (s *fineList) add(key sym.Int, id int) bool {
	pred, curr := s.find(key)
	defer pred.mu.Unlock()
	defer curr.mu.Unlock()
	if curr.equal(key) {
		return false
	}
	n := s.node(key, id)
	n.next.Store(curr)
	pred.next.Store(n)
	return true
}

func (s *fineList) remove(key sym.Int) bool {
	pred, curr := s.find(key)
	defer pred.mu.Unlock()
	defer curr.mu.Unlock()
	if !curr.equal(key) {
		return false
	}
	pred.next.Store(curr.next.Load())
	return true
}

// FineList returns H&S's fine-grained list with ins inserters and rem
// removers; explicit selects the ExEn client (see listClient).
func FineList(ins, rem int, explicit bool) func() {
	return listClient(func() set { return &fineList{newLockedList(make([]lockedNode, ins+2))} }, ins, rem, explicit)
}

// optNode is a node of OptList and LazyList, whose links are read without
// locks and so are atomic (volatile in H&S).
type optNode struct {
	keyed
	mu     sync.Mutex
	next   atomic.Pointer[optNode]
	marked atomic.Bool // LazyList's logical deletion
}

// optList is the list of optNodes shared by OptList and LazyList.
type optList struct {
	head  *optNode
	nodes []optNode // node i is inserter i's; the last two are the sentinels
	lazy  bool      // LazyList: validate by marks, remove marks first
}

func newOptList(nodes []optNode, lazy bool) *optList {
	n := len(nodes)
	head, tail := &nodes[n-2], &nodes[n-1]
	head.kind, tail.kind = headNode, tailNode
	head.next.Store(tail)
	return &optList{head: head, nodes: nodes, lazy: lazy}
}

// search returns the nodes around key without locking them.
func (s *optList) search(key sym.Int) (pred, curr *optNode) {
	pred = s.head
	curr = pred.next.Load()
	for curr.less(key) {
		pred = curr
		curr = curr.next.Load()
	}
	return pred, curr
}

// validate reports whether pred and curr, locked, are still adjacent in
// the list: H&S's OptimisticList traverses the list again (Fig. 9.11),
// LazyList checks the marks (Fig. 9.16).
func (s *optList) validate(pred, curr *optNode) bool {
	if s.lazy {
		return !pred.marked.Load() && !curr.marked.Load() && pred.next.Load() == curr
	}
	for n := s.head; n.atMost(&pred.keyed); n = n.next.Load() {
		if n == pred {
			return pred.next.Load() == curr
		}
	}
	return false
}

// locked runs f with pred and curr locked once they validate, retrying
// from the search until they do, and returns f's result.
func (s *optList) locked(key sym.Int, f func(pred, curr *optNode) bool) bool {
	for {
		pred, curr := s.search(key)
		pred.mu.Lock()
		curr.mu.Lock()
		ok := s.validate(pred, curr)
		var r bool
		if ok {
			r = f(pred, curr)
		}
		curr.mu.Unlock()
		pred.mu.Unlock()
		if ok {
			return r
		}
	}
}

func (s *optList) add(key sym.Int, id int) bool {
	return s.locked(key, func(pred, curr *optNode) bool {
		if curr.equal(key) {
			return false
		}
		n := &s.nodes[id]
		n.keyed = keyed{kind: keyNode, key: key, id: id}
		n.next.Store(curr)
		pred.next.Store(n)
		return true
	})
}

func (s *optList) remove(key sym.Int) bool {
	return s.locked(key, func(pred, curr *optNode) bool {
		if !curr.equal(key) {
			return false
		}
		if s.lazy {
			curr.marked.Store(true)
		}
		pred.next.Store(curr.next.Load())
		return true
	})
}

func (s *optList) keys() []int {
	var ids []int
	for n := s.head.next.Load(); n.kind == keyNode; n = n.next.Load() {
		ids = append(ids, n.id)
	}
	return ids
}

// OptList returns H&S's optimistic list (Fig. 9.8–9.11) with ins
// inserters and rem removers; explicit selects the ExEn client (see
// listClient).
func OptList(ins, rem int, explicit bool) func() {
	return listClient(func() set { return newOptList(make([]optNode, ins+2), false) }, ins, rem, explicit)
}

// LazyList returns H&S's lazy list (Fig. 9.16–9.19) with ins inserters
// and rem removers; explicit selects the ExEn client (see listClient).
func LazyList(ins, rem int, explicit bool) func() {
	return listClient(func() set { return newOptList(make([]optNode, ins+2), true) }, ins, rem, explicit)
}

// listClient returns the paper's client of a set: main creates ins
// symbolic keys and assumes them pairwise distinct (one Assume of their
// conjunction, so that one execution at most is blocked by it); ins
// goroutines each add one key and rem goroutines each remove the key of
// one of the first rem inserters. Main then checks the set's contents:
// for each key, the successful adds minus the successful removes must be
// 1 if the key is in the list and 0 if not.
//
// The ExEn client (explicit) does not assume the keys distinct, as the
// paper's ExEn clients do not (with keys in {0, 1, 2} four keys could
// never be): keys are then told apart by value, and the list must also be
// strictly sorted.
func listClient(mk func() set, ins, rem int, explicit bool) func() {
	return func() {
		s := mk()
		keys := make([]sym.Int, ins)
		for i := range keys {
			keys[i] = sym.NewInt(fmt.Sprintf("key%d", i))
		}
		if !explicit {
			distinct := sym.True
			for i := range keys {
				for j := range i {
					distinct = distinct.And(keys[i].Ne(keys[j]))
				}
			}
			sym.Assume(distinct)
		}
		added := make([]bool, ins)
		removed := make([]bool, rem)
		fs := make([]func(), 0, ins+rem)
		for i := range keys {
			fs = append(fs, func() { added[i] = s.add(keys[i], i) })
		}
		for j := range removed {
			fs = append(fs, func() { removed[j] = s.remove(keys[j]) })
		}
		parallel(fs...)

		// class names a key: its inserter, or its value under ExEn.
		class := func(i int) int64 {
			if explicit {
				return keys[i].Concrete()
			}
			return int64(i)
		}
		balance := map[int64]int{}
		for i, ok := range added {
			if ok {
				balance[class(i)]++
			}
		}
		for j, ok := range removed {
			if ok {
				balance[class(j)]--
			}
		}
		last := int64(math.MinInt64)
		for k, id := range s.keys() {
			c := class(id)
			weft.Assert(!explicit || k == 0 || c > last, "list not strictly sorted at %d", c)
			last = c
			balance[c]--
		}
		for _, c := range slices.Sorted(maps.Keys(balance)) {
			b := balance[c]
			weft.Assert(b == 0, "key %d: successful adds minus removes minus presence = %d, want 0", c, b)
		}
	}
}
