package runtime

import (
	"maps"
	"slices"
)

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
	// kids holds the ids of ids by parent and rank, 0 for none yet:
	// childID, once per spawn, reads it rather than the map.
	kids [][]int32
}

// NewNames returns the names of an exploration that has not started.
func NewNames() *Names {
	return &Names{ids: map[uint64]int32{}, vars: map[uint64]int32{}}
}

// Clone returns a copy of n that the caller may extend independently.
func (n *Names) Clone() *Names {
	kids := make([][]int32, len(n.kids))
	for p, ks := range n.kids {
		kids[p] = slices.Clone(ks)
	}
	return &Names{ids: maps.Clone(n.ids), nextID: n.nextID, vars: maps.Clone(n.vars), kids: kids}
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
	if int(parent) < len(n.kids) && int(rank) < len(n.kids[parent]) {
		if id := n.kids[parent][rank]; id != 0 {
			return id
		}
	}
	key := pairKey(parent, rank)
	id, ok := n.ids[key]
	if !ok {
		n.nextID++
		id = n.nextID
		n.ids[key] = id
	}
	for int(parent) >= len(n.kids) {
		n.kids = append(n.kids, nil)
	}
	for int(rank) >= len(n.kids[parent]) {
		n.kids[parent] = append(n.kids[parent], 0)
	}
	n.kids[parent][rank] = id
	return id
}
