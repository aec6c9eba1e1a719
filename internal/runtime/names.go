package runtime

import "maps"

// Names gives the goroutines and the symbolic variables of an exploration
// their ids, which stay the same across its executions: a goroutine is
// named by its parent and its rank among the parent's children, a
// variable by its goroutine and its rank among the goroutine's inputs, and
// ids are handed out in the order the exploration first meets them.
//
// An engine's state refers to goroutines and variables by id, so a part of
// an exploration that another driver takes over (see Config.Names) must be
// run with a clone of the names the exploration had when it split.
type Names struct {
	ids    map[uint64]int32 // (parent, rank) -> goroutine id
	nextID int32
	vars   map[uint64]int32 // (goroutine, rank) -> symbolic variable id
}

// NewNames returns the names of an exploration that has not started.
func NewNames() *Names {
	return &Names{ids: map[uint64]int32{}, vars: map[uint64]int32{}}
}

// Clone returns a copy of n that the caller may extend independently.
func (n *Names) Clone() *Names {
	return &Names{ids: maps.Clone(n.ids), nextID: n.nextID, vars: maps.Clone(n.vars)}
}

// reset forgets every name: the next execution names its goroutines and
// variables afresh (see engine.Sampler).
func (n *Names) reset() {
	clear(n.ids)
	clear(n.vars)
	n.nextID = 0
}

// pairKey is the key of the rank-th goroutine or variable of g.
func pairKey(g, rank int32) uint64 { return uint64(uint32(g))<<32 | uint64(uint32(rank)) }

// varID returns the stable id of the rank-th symbolic variable that
// goroutine g creates.
func (n *Names) varID(g, rank int32) int32 {
	key := pairKey(g, rank)
	id, ok := n.vars[key]
	if !ok {
		id = int32(len(n.vars))
		n.vars[key] = id
	}
	return id
}

// childID returns the stable id of the rank-th child of parent.
func (n *Names) childID(parent, rank int32) int32 {
	key := pairKey(parent, rank)
	id, ok := n.ids[key]
	if !ok {
		n.nextID++
		id = n.nextID
		n.ids[key] = id
	}
	return id
}
