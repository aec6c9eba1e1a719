package qpor

import (
	"encoding/binary"
	"slices"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/indep"
)

// node is an event of the unfolding: goroutine g's operation with the
// outcome ch, after the history [n] \ {n}, which its immediate causes
// (the maximal events of the history) name.
type node struct {
	id    int32
	g     int32
	depth int32       // g's events before this one
	op    event.RMWOp // the operation's, with ev.Kind: the operation, for the check of determinism
	obj   int32       // canonical object (see unfolding.parent), or -1
	ev    indep.Event // the operation as the relation sees it, Obj canonical, with the outcome
	// prev is n's predecessor in g (the events of g before n form a
	// chain, each the cause of the next), nil for g's first event; jump
	// is an earlier event of the chain (n itself for the first), chosen
	// as in Myers' skew-binary jump pointers so that the ancestor at any
	// depth is a logarithmic number of steps away (the paper's §5.2 keeps
	// skip lists instead, a pointer per power of its step: more memory
	// for an unfolding kept whole). tmax holds, by goroutine, the latest
	// of its events in [n] (Def. 7), nil for none. Together they decide
	// causality and conflict (Theorem 6).
	prev, jump *node
	tmax       front
	// post is the value the operation leaves in its object, known once
	// it was performed; bug says that performing it is a bug.
	post event.Value
	bug  bool
	// run and pos are the execution that performed n last and n's depth
	// in its trail.
	run, pos int32
	// kids holds the events whose predecessor in g is this one; inD says
	// the event is in D at the current depth of the trail.
	kids []*node
	inD  bool
	// owrite is the latest write of obj in the history, nil for none;
	// chanW holds the latest write of each of the channels the event
	// touches (ev.Chans, unless it is silent), nil for none.
	owrite *node
	chanW  []*node
	// made is the canonical object of the channel a ChanMake makes, -1
	// for other events: an execution finds a channel under the ID the
	// runtime gives it there, the step that made it.
	made int32
	// nextObj is the canonical object of g's operation after this one,
	// childObj that of the first operation of the goroutine this spawns,
	// or -1 while unknown: a deterministic program's next operation is a
	// function of the history.
	nextObj, childObj int32
}

// choice returns n's outcome.
func (n *node) choice() engine.Choice { return engine.Choice{G: n.g, Alt: n.ev.Alt, With: n.ev.With} }

// await reports whether n is a wait of weft.Yield.
func (n *node) await() bool { return n.ev.Kind == event.Block && n.ev.Arg == event.Await }

// pred returns n's predecessor in its goroutine, or nil.
func (n *node) pred() *node { return n.prev }

// at returns n's ancestor at depth d (at most n's).
func (n *node) at(d int32) *node {
	for n.depth > d {
		if n.jump.depth >= d {
			n = n.jump
		} else {
			n = n.prev
		}
	}
	return n
}

// front is a configuration, as the latest event of each goroutine in it
// (by goroutine id; nil or missing: none).
type front []*node

func (f front) at(g int32) *node {
	if int(g) < len(f) {
		return f[g]
	}
	return nil
}

func (f front) set(g int32, n *node) front {
	for int(g) >= len(f) {
		f = append(f, nil)
	}
	f[g] = n
	return f
}

// has reports whether n is in the configuration.
func (f front) has(n *node) bool {
	t := f.at(n.g)
	return t != nil && t.depth >= n.depth && t.at(n.depth) == n
}

// merge returns the union of configurations f and o, which must not
// conflict, in f's storage.
func (f front) merge(o front) front {
	if len(f) < len(o) {
		f = append(f, make(front, len(o)-len(f))...)
	}
	for g, n := range o {
		if n != nil {
			if t := f.at(int32(g)); t == nil || t.depth < n.depth {
				f = f.set(int32(g), n)
			}
		}
	}
	return f
}

// unfolding holds the events found so far (U in the paper), memoized by
// their canonical names so that every execution finds the same ones, and
// the canonical objects.
type unfolding struct {
	// events is keyed by an event's canonical name: its goroutine, its
	// outcome and the ids of its immediate causes, in order, as bytes.
	events map[string]*node
	firsts map[int32][]*node // events without predecessor, by goroutine
	// after holds the events on an object by the latest write of it in
	// their histories, initial (by canonical object, at its root) those
	// with none: the events that may conflict with an event on the
	// object after a configuration are among those after its writes.
	after   map[*node]*group
	initial map[int32]*group
	// chanAfter is after for channels, by write and channel (a select
	// writes several); their events with no write before are in
	// initial. takers holds the events that take an offer, by the offer.
	chanAfter map[chanKey]*group
	takers    map[*node][]*node
	// writes and awaits hold the writes of memory and sync objects and
	// the waits of weft.Yield, which are dependent with each of them.
	writes, awaits []*node
	// parent is a union-find forest over canonical objects. The runtime
	// numbers objects in the order an execution first touches them, which
	// differs between executions; an object is named instead by the
	// operations that touch it (goroutine after history), and two names
	// found for one object in an execution are merged.
	parent []int32
	n      int32
	// Scratch space of event and compatible, which run once per enabled
	// event of every step: most names looked up are of known events.
	ids          []int32
	name         []byte
	maxs         []*node
	onlyA, onlyB []*node
}

func newUnfolding() *unfolding {
	return &unfolding{events: map[string]*node{}, firsts: map[int32][]*node{}, after: map[*node]*group{}, initial: map[int32]*group{},
		chanAfter: map[chanKey]*group{}, takers: map[*node][]*node{}}
}

// chanKey names the events on channel c after its write w.
type chanKey struct {
	w *node
	c int32
}

func (u *unfolding) newObj() int32 {
	u.parent = append(u.parent, int32(len(u.parent)))
	return int32(len(u.parent) - 1)
}

func (u *unfolding) find(o int32) int32 {
	for u.parent[o] != o {
		u.parent[o] = u.parent[u.parent[o]]
		o = u.parent[o]
	}
	return o
}

// same reports whether a and b name one object (or both none).
func (u *unfolding) same(a, b int32) bool {
	return a == b || a >= 0 && b >= 0 && u.find(a) == u.find(b)
}

func (u *unfolding) union(a, b int32) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	u.parent[b] = a
	if gb := u.initial[b]; gb != nil {
		ga := groupOf(u.initial, a)
		ga.writes = append(ga.writes, gb.writes...)
		ga.reads = append(ga.reads, gb.reads...)
		delete(u.initial, b)
	}
}

// dep reports whether the operations of a and b are dependent.
func (u *unfolding) dep(a, b *node) bool {
	if a.g != b.g && a.obj >= 0 && b.obj >= 0 {
		// The common case, without copying the events: operations on
		// objects conflict on the same one when one writes (package
		// indep; the rules for spawns, joins and waits concern
		// operations on no object).
		return u.find(a.obj) == u.find(b.obj) && (a.ev.Effect == indep.Write || b.ev.Effect == indep.Write)
	}
	return u.depEv(a.ev, b)
}

// takesLike reports whether a and b both take an offer of one goroutine.
// Package indep finds them independent when they take it through
// different channels of a select, but they cannot both take one offer,
// and takers of two offers of a goroutine are causally ordered by its
// handed wait: that dependency changes no trace, and it makes two
// takers of one offer conflict.
func takesLike(a, b *indep.Event) bool {
	return a.With != 0 && a.With == b.With && !a.Silent && !b.Silent
}

// depEv reports whether operation x (with a canonical object) and b's are
// dependent.
func (u *unfolding) depEv(x indep.Event, b *node) bool {
	y := b.ev
	if x.Obj >= 0 {
		x.Obj = u.find(x.Obj)
	}
	if y.Obj >= 0 {
		y.Obj = u.find(y.Obj)
	}
	return indep.Dependent(&x, &y) || takesLike(&x, &y)
}

// maximal appends to out the events of cs that no other one causally
// follows, without duplicates.
func maximal(out, cs []*node) []*node {
	for i, c := range cs {
		if c == nil || slices.Contains(out, c) {
			continue
		}
		below := false
		for j, d := range cs {
			if j != i && d != nil && d != c && d.tmax.has(c) {
				below = true
				break
			}
		}
		if !below {
			out = append(out, c)
		}
	}
	return out
}

// event returns the event of goroutine g performing lab with outcome ch and
// effect ev after the history whose maximal events are causes (see
// maximal), which holds g's previous event (if any) and in which ow is the
// latest write of obj (nil: none) and cw those of ev.Chans (the event
// keeps a copy). It is created if new. ok is false when an event of that
// name exists with another operation: the program is not deterministic.
func (u *unfolding) event(g int32, pred *node, lab *event.Label, obj int32, ch engine.Choice, ev indep.Event, ow *node, cw []*node, causes []*node) (n *node, ok bool) {
	u.ids = u.ids[:0]
	for _, c := range causes {
		u.ids = append(u.ids, c.id)
	}
	slices.Sort(u.ids)
	buf := binary.LittleEndian.AppendUint32(u.name[:0], uint32(g))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(ch.Alt))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(ch.With))
	for _, id := range u.ids {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
	}
	u.name = buf
	if n := u.events[string(buf)]; n != nil {
		// The same operation, on the same object or channels: a program
		// that does another where it did this before is nondeterministic.
		return n, n.ev.Kind == lab.Kind && n.op == lab.Op && n.ev.Effect == ev.Effect && u.same(n.obj, obj) && slices.Equal(n.ev.Chans, ev.Chans)
	}
	n = &node{id: int32(len(u.events)), g: g, op: lab.Op, obj: obj, ev: ev, owrite: ow, chanW: slices.Clone(cw), made: -1, nextObj: -1, childObj: -1}
	if lab.Kind == event.ChanMake {
		n.made = u.newObj()
	}
	// The histories are kept for the whole exploration: tmax is made at
	// its length.
	l := int(g) + 1
	for _, c := range causes {
		l = max(l, len(c.tmax))
	}
	n.tmax = make(front, 0, l)
	for _, c := range causes {
		n.tmax = n.tmax.merge(c.tmax)
	}
	n.tmax = n.tmax.set(g, n)
	n.prev, n.jump = pred, n
	if pred != nil {
		n.depth = pred.depth + 1
		n.jump = pred
		if j := pred.jump; pred.depth-j.depth == j.depth-j.jump.depth {
			n.jump = j.jump
		}
	}
	u.events[string(buf)] = n
	if pred != nil {
		pred.kids = append(pred.kids, n)
	} else {
		u.firsts[g] = append(u.firsts[g], n)
	}
	if obj >= 0 {
		var gr *group
		if ow != nil {
			gr = groupOf(u.after, ow)
		} else {
			gr = groupOf(u.initial, u.find(obj))
		}
		gr.add(n)
	}
	switch {
	case obj >= 0 && ev.Effect == indep.Write:
		u.writes = append(u.writes, n)
	case isAwait(lab):
		u.awaits = append(u.awaits, n)
	}
	if !ev.Silent {
		for i, c := range ev.Chans {
			gr := groupOf(u.initial, int32(c))
			if cw[i] != nil {
				gr = groupOf(u.chanAfter, chanKey{cw[i], int32(c)})
			}
			gr.add(n)
		}
		if ev.With != 0 {
			o := n.tmax.at(ev.With - 1) // the offer it takes
			u.takers[o] = append(u.takers[o], n)
		}
	}
	return n, true
}

// add adds n to the writes or the reads of the group.
func (gr *group) add(n *node) {
	if n.ev.Effect == indep.Write {
		gr.writes = append(gr.writes, n)
	} else {
		gr.reads = append(gr.reads, n)
	}
}

// group is the events on an object after one write of it (or none),
// those that write it apart: only they conflict with a read.
type group struct{ writes, reads []*node }

// groupOf returns m's group for k, made if missing.
func groupOf[K comparable](m map[K]*group, k K) *group {
	if m[k] == nil {
		m[k] = &group{}
	}
	return m[k]
}

// compatible reports whether the union of configurations a and b is one:
// their goroutines' chains agree, and no event of one but not the other is
// dependent with an event of the other but not the one (two such events
// would be concurrent and dependent: in conflict).
func (u *unfolding) compatible(a, b front) bool {
	ok, moreA, moreB := chainsAgree(a, b)
	if !ok || !moreA || !moreB {
		return ok
	}
	n := max(len(a), len(b))
	onlyA, onlyB := u.onlyA[:0], u.onlyB[:0]
	for g := range n {
		onlyA = beyond(onlyA, a.at(int32(g)), b.at(int32(g)))
		onlyB = beyond(onlyB, b.at(int32(g)), a.at(int32(g)))
	}
	u.onlyA, u.onlyB = onlyA, onlyB
	for _, x := range onlyA {
		for _, y := range onlyB {
			if x.g != y.g && u.dep(x, y) {
				return false
			}
		}
	}
	return true
}

// chainsAgree reports whether configurations a and b agree on every
// goroutine's chain (one's events of it are a prefix of the other's),
// and whether each has events the other lacks.
func chainsAgree(a, b front) (ok, moreA, moreB bool) {
	for g := range max(len(a), len(b)) {
		x, y := a.at(int32(g)), b.at(int32(g))
		switch {
		case x == nil || y == nil:
			moreA, moreB = moreA || x != nil, moreB || y != nil
		case x.depth <= y.depth:
			if y.at(x.depth) != x {
				return false, false, false
			}
			moreB = moreB || y != x
		default:
			if x.at(y.depth) != y {
				return false, false, false
			}
			moreA = true
		}
	}
	return true, moreA, moreB
}

// beyond appends to dst the events of x's goroutine up to x after y, which
// is one of them or nil.
func beyond(dst []*node, x, y *node) []*node {
	d := int32(-1)
	if y != nil {
		d = y.depth
	}
	for ; x != nil && x.depth > d; x = x.pred() {
		dst = append(dst, x)
	}
	return dst
}

// conflict reports whether events a and b are in conflict.
func (u *unfolding) conflict(a, b *node) bool { return !u.compatible(a.tmax, b.tmax) }
