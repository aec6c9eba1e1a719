package bench

import (
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
)

// tsNode is a node of a single-producer pool of the timestamped stack.
// Its plain fields are written by the pool's owner before it publishes
// the node, and never after.
type tsNode struct {
	value *item
	ts    sym.Int
	next  *tsNode // the sentinel's next is itself
	taken atomic.Bool
}

// spPool is a single-producer pool (Dodds et al., Fig. 4): a linked list
// of nodes, youngest first, which only its owner pushes onto; removing a
// node marks it taken.
type spPool struct {
	head     atomic.Pointer[tsNode]
	sentinel *tsNode
}

// youngest returns the pool's youngest node not taken (nil if none) and
// the head it started from.
func (p *spPool) youngest() (n, top *tsNode) {
	top = p.head.Load()
	for n = top; ; n = n.next {
		if !n.taken.Load() {
			return n, top
		}
		if n.next == n {
			return nil, top
		}
	}
}

// tsStack is the timestamped stack of Dodds, Haas and Kirsch (POPL 2015),
// as JMC ports it: a pool per pusher; a push stamps its node and inserts
// it in its pool; a pop takes a start time and removes the youngest node
// of all pools (largest timestamp) unless it finds a node stamped after
// it started, which it may take at once (elimination). Pops retry when
// another pop took their node first. Timestamps are symbolic and compared
// with sym's Lt (the paper's ConDPOR variant), or drawn from an atomic
// counter (atomicTS: the variant for plain DPOR).
//
// As in JMC's port, a push stamps its node before inserting it and pools
// are not unlinked (an optimisation in the paper). The check of main reads
// the pools directly, since popping would compare the timestamps.
type tsStack struct {
	pools    []spPool
	nodes    []tsNode // node i is pusher i's, node len(pools)+i pool i's sentinel
	atomicTS bool
	clock    atomic.Int64 // the atomic variant's timestamps
}

func newTSStack(nodes []tsNode, pushers int, atomicTS bool) *tsStack {
	s := &tsStack{pools: make([]spPool, pushers), nodes: nodes, atomicTS: atomicTS}
	for i := range s.pools {
		sen := &nodes[pushers+i]
		sen.next = sen
		sen.taken.Store(true)
		s.pools[i].sentinel = sen
		s.pools[i].head.Store(sen)
	}
	return s
}

// stamp returns a new timestamp; name names the symbolic one.
func (s *tsStack) stamp(name string) sym.Int {
	if s.atomicTS {
		return sym.Const(s.clock.Add(1))
	}
	return sym.NewInt(name)
}

// insert is the push of the pusher x.id into its own pool.
func (s *tsStack) insert(x *item) {
	p := &s.pools[x.id]
	n := &s.nodes[x.id]
	n.value = x
	n.ts = s.stamp("ts")
	n.next = p.head.Load()
	p.head.Store(n)
}

func (s *tsStack) remove() *item {
	start := s.stamp("start")
	for {
		if x, ok := s.tryRem(start); ok {
			return x
		}
	}
}

// tryRem is one attempt of a pop that started at start: ok is false when
// it lost its node to another pop or could not tell the stack empty.
func (s *tsStack) tryRem(start sym.Int) (x *item, ok bool) {
	var youngest *tsNode
	tops := make([]*tsNode, len(s.pools))
	for i := range s.pools {
		p := &s.pools[i]
		n, top := p.youngest()
		tops[i] = top
		if n == nil {
			continue
		}
		if start.Lt(n.ts).Eval() { // pushed after the pop started
			return n.value, n.taken.CompareAndSwap(false, true)
		}
		if youngest == nil || youngest.ts.Lt(n.ts).Eval() {
			youngest = n
		}
	}
	if youngest == nil {
		// Empty, unless a pool changed during the scan.
		for i := range s.pools {
			if s.pools[i].head.Load() != tops[i] {
				return nil, false
			}
		}
		return nil, true
	}
	return youngest.value, youngest.taken.CompareAndSwap(false, true)
}

func (s *tsStack) contents() []*item {
	var out []*item
	for i := range s.pools {
		for n := s.pools[i].head.Load(); n.next != n; n = n.next {
			if !n.taken.Load() {
				out = append(out, n.value)
			}
		}
	}
	return out
}

// TSStack returns the timestamped stack with ins pushers and rem poppers,
// with symbolic timestamps or, with atomicTS, timestamps from an atomic
// counter; explicit selects the ExEn client. Under the 100-0 workload the
// symbolic variant has one execution: pushes touch only their own pools
// and their timestamps are never compared; the atomic one has ins!, the
// orders of the increments.
func TSStack(ins, rem int, atomicTS, explicit bool) func() {
	return workload(func() collection { return newTSStack(make([]tsNode, 2*ins), ins, atomicTS) }, ins, rem, explicit)
}
