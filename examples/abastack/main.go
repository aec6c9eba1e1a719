// Command abastack checks a lock-free Treiber stack that recycles its
// nodes through a free list, and finds the ABA problem: a pop reads the top
// node A and its successor B, other pops take A and B and a push puts A
// back, and the first pop's compare-and-swap still sees A on top and
// installs B, a node that is no longer in the stack. Node B then comes out
// twice.
package main

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/examples/internal/demo"
)

type node struct {
	value int
	next  atomic.Pointer[node]
}

// stack is a Treiber stack whose pushes reuse the nodes of earlier pops:
// the bug, since a node can leave and come back while a pop holds it.
type stack struct {
	top  atomic.Pointer[node]
	free []*node // popped nodes, reused by push; owned by one goroutine
}

func (s *stack) push(v int) {
	var n *node
	if len(s.free) > 0 {
		n, s.free = s.free[0], s.free[1:] // the oldest popped node
	} else {
		n = &node{}
	}
	n.value = v
	for {
		old := s.top.Load()
		n.next.Store(old)
		if s.top.CompareAndSwap(old, n) {
			return
		}
	}
}

// popNode removes the top node and returns it, or nil when the stack is
// empty.
func (s *stack) popNode() *node {
	for {
		old := s.top.Load()
		if old == nil || s.top.CompareAndSwap(old, old.next.Load()) {
			return old
		}
	}
}

// pop returns the top value, or false when the stack is empty.
func (s *stack) pop() (int, bool) {
	n := s.popNode()
	if n == nil {
		return 0, false
	}
	return n.value, true
}

// popAndRecycle pops a value and keeps its node for the next push.
func (s *stack) popAndRecycle() (int, bool) {
	n := s.popNode()
	if n == nil {
		return 0, false
	}
	s.free = append(s.free, n)
	return n.value, true
}

// popConcurrently is the body of the check: the stack holds 1 on top of 2;
// one goroutine pops once, another pops twice and pushes 3 (reusing the
// node of 1). Every value pushed must come out exactly once.
func popConcurrently() {
	var s stack
	s.push(2)
	s.push(1)
	var got []int
	var other [2]int
	var otherOK [2]bool
	g := weft.Go(func() {
		other[0], otherOK[0] = s.popAndRecycle()
		other[1], otherOK[1] = s.popAndRecycle()
		s.push(3)
	})
	if v, ok := s.pop(); ok {
		got = append(got, v)
	}
	g.Join()
	for i := range other {
		if otherOK[i] {
			got = append(got, other[i])
		}
	}
	for v, ok := s.pop(); ok; v, ok = s.pop() {
		got = append(got, v)
	}
	seen := map[int]int{}
	for _, v := range got {
		seen[v]++
	}
	for _, v := range []int{1, 2, 3} {
		weft.Assert(seen[v] == 1, "value %d came out %d times (all: %v)", v, seen[v], got)
	}
}

func main() { demo.Main(popConcurrently) }
