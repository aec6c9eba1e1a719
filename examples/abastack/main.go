// Command abastack checks a lock-free Treiber stack that recycles its
// nodes through a free list, and finds the ABA problem: a pop reads the top
// node A and its successor B, other pops take A and B and a push puts A
// back, and the first pop's compare-and-swap still sees A on top and
// installs B, a node that is no longer in the stack. Node B then comes out
// twice.
package main

import (
	"fmt"
	"os"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
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

// pop returns the top value, or false when the stack is empty.
func (s *stack) pop() (int, bool) {
	for {
		old := s.top.Load()
		if old == nil {
			return 0, false
		}
		if s.top.CompareAndSwap(old, old.next.Load()) {
			return old.value, true
		}
	}
}

// popAndRecycle pops a node and keeps it for the next push.
func (s *stack) popAndRecycle() (int, bool) {
	for {
		old := s.top.Load()
		if old == nil {
			return 0, false
		}
		if s.top.CompareAndSwap(old, old.next.Load()) {
			s.free = append(s.free, old)
			return old.value, true
		}
	}
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

func main() {
	res, err := weft.Explore(popConcurrently)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("weft explored %d executions and found %d bugs\n\n", res.Executions, len(res.Bugs))
	for _, b := range res.Bugs {
		fmt.Println(b)
	}
	if len(res.Bugs) > 0 {
		os.Exit(1)
	}
	fmt.Println("no bug found")
}
