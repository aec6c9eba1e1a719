package graph

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"weft.dev/weft/internal/event"
)

// build makes a graph from bytes: each pair of bytes adds one event to a
// goroutine (spawning goroutines on the way), reading from or placing in
// coherence among the existing writes of a location as the bytes say.
func build(data []byte) *Graph {
	if len(data) > 80 {
		data = data[:80] // checking views is cubic: keep graphs small
	}
	return buildAll(data)
}

// buildAll is build without the bound on the size of the graph. Some reads
// only order their event after their write (Joins), and some writes are
// updates: a read and the write that continues its operation, placed right
// after the write read.
func buildAll(data []byte) *Graph {
	g := New()
	threads := 1
	for len(data) >= 2 {
		a, b := data[0], data[1]
		data = data[2:]
		t := int32(int(a) % threads)
		loc := int32(a>>4) % 3
		switch b % 5 {
		case 0: // spawn, or once there are four goroutines, end one and join it
			if threads < 4 {
				g.Add(t, Event{Kind: Spawn, Loc: -1, Lab: event.Label{Kind: event.Spawn, Arg: int32(threads)}, AddedMax: true}, false)
				threads++
				continue
			}
			u := 1 + int32(b/5)%3
			if evs := g.Threads[u].Events; t == u || len(evs) > 0 && evs[len(evs)-1].Kind == End {
				continue
			}
			end := g.Add(u, Event{Kind: End, Loc: -1}, false)
			g.Add(t, Event{Kind: Join, Loc: -1, RF: end}, true)
		case 1, 2: // read a coherent-ish write (any write: consistency is not the point here)
			co := g.Loc(loc).Co
			rf := Init
			if n := len(co); n > 0 && b/5%3 != 0 {
				rf = co[int(b/15)%n]
			}
			if rf.T == t && !rf.IsInit() {
				rf = Init
			}
			g.Add(t, Event{Kind: Read, Loc: loc, RF: rf, Joins: b/75 == 3}, b%2 == 0)
		case 3:
			if b/5%3 != 2 {
				addWrite(g, t, loc, b)
				continue
			}
			co := g.Loc(loc).Co
			rf := Init
			if n := len(co); n > 0 {
				rf = co[int(b/15)%n]
			}
			if rf.T == t && !rf.IsInit() {
				rf = Init
			}
			g.Add(t, Event{Kind: Read, RMW: true, Loc: loc, RF: rf}, true)
			w := g.Add(t, Event{Kind: Write, RMW: true, Cont: true, Loc: loc, Val: event.Value{N: uint64(b)}}, false)
			g.InsertCo(w, rf)
		default:
			addWrite(g, t, loc, b)
		}
	}
	return g
}

// addWrite adds a write to loc by goroutine t, placed after a random write
// as b says.
func addWrite(g *Graph, t, loc int32, b byte) {
	co := g.Loc(loc).Co
	p := g.Add(t, Event{Kind: Write, Loc: loc, Val: event.Value{N: uint64(b)}}, false)
	pred := Init
	if n := len(co); n > 0 && b/5%2 == 0 {
		pred = co[int(b/10)%n]
	}
	g.InsertCo(p, pred)
}

// reaches computes porf (program order, reads-from, spawn) reachability by
// search, to check the views against.
func reaches(g *Graph, a, b Pos, sync bool) bool {
	seen := map[Pos]bool{}
	var visit func(p Pos) bool
	visit = func(p Pos) bool {
		if p == a {
			return true
		}
		if seen[p] || p.IsInit() {
			return false
		}
		seen[p] = true
		ev := g.Ev(p)
		var pred Pos
		if p.I > 0 {
			pred = Pos{T: p.T, I: p.I - 1}
		} else {
			pred = g.Threads[p.T].Spawn
		}
		if !pred.IsInit() && visit(pred) {
			return true
		}
		if (ev.Kind == Read || ev.Kind == Join) && !ev.RF.IsInit() && (!sync || ev.HB != nil && isSync(g, p)) {
			return visit(ev.RF)
		}
		return false
	}
	return visit(b)
}

// isSync reports whether the read at p was added as synchronizing: its hb
// view then contains its source.
func isSync(g *Graph, p Pos) bool {
	ev := g.Ev(p)
	return InView(ev.HB, ev.RF)
}

func checkViews(t *testing.T, g *Graph) {
	t.Helper()
	for _, a := range g.Order {
		for _, b := range g.Order {
			if got, want := g.Before(a, b), reaches(g, a, b, false); got != want {
				t.Fatalf("Before(%v, %v) = %v, search says %v\n%v", a, b, got, want, g)
			}
			if g.HBBefore(a, b) && !g.Before(a, b) {
				t.Fatalf("%v happens before %v but is not porf-before it", a, b)
			}
		}
	}
}

func checkLocs(t *testing.T, g *Graph) {
	t.Helper()
	for l, loc := range g.Locs {
		for _, w := range loc.Co {
			if !g.Has(w) || g.Ev(w).Kind != Write || g.Ev(w).Loc != int32(l) {
				t.Fatalf("coherence of %d holds %v\n%v", l, w, g)
			}
		}
		for i, r := range loc.Reads {
			if !g.Has(r) || g.Ev(r).Kind != Read {
				t.Fatalf("reads of %d hold %v\n%v", l, r, g)
			}
			if i >= len(loc.rfs) || loc.rfs[i] != g.Ev(r).RF {
				t.Fatalf("read %v of %d reads %v, listed as reading %v\n%v", r, l, g.Ev(r).RF, loc.rfs, g)
			}
		}
		if len(loc.rfs) != len(loc.Reads) {
			t.Fatalf("%d reads of %d, %d writes they read", len(loc.Reads), l, len(loc.rfs))
		}
	}
	for s, p := range g.Order {
		if int(g.Ev(p).Stamp) != s {
			t.Fatalf("event %v has stamp %d at position %d", p, g.Ev(p).Stamp, s)
		}
	}
	var joins []Pos
	for _, p := range g.Order {
		if g.Ev(p).Kind == Join {
			joins = append(joins, p)
		}
	}
	if !slices.Equal(joins, g.joins) {
		t.Fatalf("joins listed %v, the graph has %v\n%v", g.joins, joins, g)
	}
	for l := range g.Locs {
		loc := &g.Locs[l]
		if !slices.IsSortedFunc(loc.Reads, func(a, b Pos) int { return cmp.Compare(g.Ev(a).Stamp, g.Ev(b).Stamp) }) {
			t.Fatalf("reads of %d are not in the order of their stamps: %v\n%v", l, loc.Reads, g)
		}
		if !loc.indexed {
			continue
		}
		byRF, byThread := slices.Clone(loc.byRF), slices.Clone(loc.byThread)
		loc.indexed = false
		g.index(int32(l))
		if !slices.Equal(byRF, loc.byRF) || !slices.Equal(byThread, loc.byThread) {
			t.Fatalf("index of %d kept as %v and %v, rebuilt %v and %v\n%v", l, byRF, byThread, loc.byRF, loc.byThread, g)
		}
	}
}

// indexAll builds the read indexes of every location, which the graph then
// keeps as it changes.
func indexAll(g *Graph) {
	for l := range g.Locs {
		g.index(int32(l))
	}
}

func FuzzGraph(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 1, 0, 17, 1, 0, 4, 1, 6, 33, 8})
	f.Add([]byte{0, 0, 0, 0, 1, 3, 2, 3, 1, 1, 2, 2, 0, 7, 16, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := build(data)
		checkViews(t, g)
		checkLocs(t, g)
		if g.Len() == 0 {
			return
		}
		// Reads that change their write (to one added before them, as
		// a forward revisit does) keep the indexes right.
		indexAll(g)
		for i, th := range g.Threads {
			last := Pos{T: int32(i), I: int32(len(th.Events) - 1)}
			if last.I < 0 || g.Ev(last).Kind != Read {
				continue
			}
			co := g.Locs[g.Ev(last).Loc].Co
			w := Init
			if n := len(co); n > 0 && len(data)%(i+2) != 0 {
				w = co[(len(data)+i)%n]
			}
			if w.IsInit() || w.T != last.T && g.Ev(w).Stamp < g.Ev(last).Stamp {
				g.SetRF(last, w, false)
			}
		}
		checkLocs(t, g)
		// A copy restricted to a prefix-closed view (the porf prefix of
		// an event, plus everything up to a stamp) keeps exactly it.
		p := g.Order[int(data[len(data)-1])%g.Len()]
		s := int32(len(data) % g.Len())
		view := make([]int32, len(g.Threads))
		for t := range g.Threads {
			view[t] = -1
			for i, ev := range g.Threads[t].Events {
				if ev.Stamp <= s || InView(g.Ev(p).View, Pos{T: int32(t), I: int32(i)}) {
					view[t] = int32(i)
				}
			}
		}
		c := g.Copy(view)
		checkLocs(t, c)
		checkViews(t, c)
		for _, q := range g.Order {
			if c.Has(q) != InView(view, q) {
				t.Fatalf("copy has %v: %v, view has it: %v", q, c.Has(q), InView(view, q))
			}
		}
		// Copying into a graph in use (its own source, rebuilt) reuses its
		// arrays and gives the same graph as a fresh copy.
		used := build(append([]byte{1, 2, 3}, data...))
		r := g.CopyInto(used, view)
		if r.String() != c.String() {
			t.Fatalf("copy into a used graph:\n%v\nfresh copy:\n%v", r, c)
		}
		checkViews(t, r)
		// Cutting keeps exactly the events up to the stamp.
		cViews, rViews := views(c), views(r)
		g.CutToStamp(s)
		if g.Len() != int(s)+1 {
			t.Fatalf("cut to %d left %d events", s, g.Len())
		}
		checkLocs(t, g)
		checkViews(t, g)
		// The events added after the cut reuse the slab past the views
		// kept, and change neither those nor the copies' views.
		last := g.Order[g.Len()-1]
		g.RemoveEvent(last)
		for i, b := range data[:min(len(data), 16)] {
			addWrite(g, int32(i%len(g.Threads)), int32(b>>4)%3, b)
		}
		checkLocs(t, g)
		checkViews(t, g)
		if !slices.EqualFunc(views(c), cViews, slices.Equal) || !slices.EqualFunc(views(r), rViews, slices.Equal) {
			t.Fatalf("changing a graph changed the views of its copies")
		}
	})
}

// views returns copies of the porf and hb views of g's events, in the
// order they were added.
func views(g *Graph) [][]int32 {
	var vs [][]int32
	for _, p := range g.Order {
		vs = append(vs, slices.Clone(g.Ev(p).View), slices.Clone(g.Ev(p).HB))
	}
	return vs
}

// TestAcyclic checks Acyclic against a search for cycles in random graphs,
// event by event, and against opSuccsBy's edges between operations in
// graphs large enough for the reads of a location to be indexed.
func TestAcyclic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		data := make([]byte, 2*(1+rng.IntN(12)))
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		g := build(data)
		updates := slices.ContainsFunc(g.Order, func(p Pos) bool { return g.Ev(p).Cont })
		for _, p := range g.Order {
			// With updates, the search is by operation: see TestAcyclicOps.
			if got, want := g.Acyclic(p), !onCycle(g, p); got != want && !updates {
				t.Fatalf("Acyclic(%v) = %v, want %v\n%v", p, got, want, g)
			}
		}
		if allAcyclic(g) {
			order := g.Linearize(all)
			pos := map[Pos]int{}
			for i, p := range order {
				pos[p] = i
			}
			for _, p := range order {
				g.succs(p, all, func(s Pos) {
					if pos[s] <= pos[p] {
						t.Fatalf("Linearize put %v after its successor %v", p, s)
					}
				})
			}
		}
	}
}

// TestAcyclicOps checks Acyclic against a search along opSuccsBy's edges in
// random graphs with updates, large enough for the reads of a location to
// be indexed.
func TestAcyclicOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 300 {
		g := randomGraph(rng, n)
		for _, p := range g.Order {
			if got, want := g.Acyclic(p), !opOnCycle(g, g.Leader(p)); got != want {
				t.Fatalf("Acyclic(%v) = %v, want %v\n%v", p, got, want, g)
			}
		}
	}
}

// TestAcyclicReadsFrom checks AcyclicReadsFrom against a search along
// opSuccsBy's edges after adding the read, for every goroutine, location
// and suffix of its coherence order in random acyclic graphs.
func TestAcyclicReadsFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	checked, cycles := 0, 0
	for n := range 3000 {
		g := randomGraph(rng, n%40)
		if !allAcyclic(g) {
			continue
		}
		for th := range g.Threads {
			tid := int32(th)
			if !g.Alive(tid) {
				continue
			}
			for l := range g.Locs {
				ws := append([]Pos{Init}, g.Locs[l].Co...)
				for from := range ws {
					k := g.AcyclicReadsFrom(tid, ws[from:])
					for i, w := range ws[from:] {
						r := g.Add(tid, Event{Kind: Read, Loc: int32(l), RF: w}, true)
						if cycle := opOnCycle(g, r); cycle != (i < k) {
							t.Fatalf("AcyclicReadsFrom(%d, %v) = %d; reading %v: cycle %v\n%v", tid, ws[from:], k, w, cycle, g)
						} else if cycle {
							cycles++
						}
						checked++
						g.RemoveEvent(r)
					}
				}
			}
		}
	}
	if checked < 500 || cycles < 100 || checked-cycles < 100 {
		t.Fatalf("%d reads, %d cycles", checked, cycles)
	}
}

// randomGraph builds a random graph from up to 10+n pairs of random bytes
// (see buildAll).
func randomGraph(rng *rand.Rand, n int) *Graph {
	data := make([]byte, 2*(1+rng.IntN(10+n)))
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	return buildAll(data)
}

// TestLatestSeen checks LatestSeen, one pass over the reads of a location
// that has few and a search of the index of one that has many, against a
// scan, for the views of every event.
func TestLatestSeen(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for n := range 300 {
		g := randomGraph(rng, n)
		for _, p := range append([]Pos{Init}, g.Order...) {
			var v []int32
			if !p.IsInit() {
				v = g.Ev(p).View
			}
			for l := range g.Locs {
				want := -1
				for i, w := range g.Locs[l].Co {
					seen := InView(v, w)
					for _, r := range g.Locs[l].Reads {
						seen = seen || g.Ev(r).RF == w && InView(v, r)
					}
					if seen {
						want = i
					}
				}
				if got := g.LatestSeen(int32(l), v); got != want {
					t.Fatalf("LatestSeen(%d, %v) = %d, want %d\n%v", l, v, got, want, g)
				}
			}
		}
	}
}

// TestReadsOf checks ReadsOf, which scans the reads of a location that has
// few and searches the index of one that has many, against a scan.
func TestReadsOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 300 {
		g := randomGraph(rng, n)
		for l := range g.Locs {
			for _, w := range append([]Pos{Init}, g.Locs[l].Co...) {
				var want []Pos
				for _, r := range g.Locs[l].Reads {
					if g.Ev(r).RF == w {
						want = append(want, r)
					}
				}
				if got := g.ReadsOf(int32(l), w); !slices.Equal(got, want) {
					t.Fatalf("ReadsOf(%d, %v) = %v, want %v\n%v", l, w, got, want, g)
				}
			}
		}
	}
}

// opOnCycle reports whether the operation whose first event is p is on a
// cycle of opSuccsBy's edges.
func opOnCycle(g *Graph, p Pos) bool {
	return onCycleOf(p, func(q Pos, yield func(Pos)) { g.opSuccsBy(q, all, g.CoIndex, nil, yield) })
}

// onCycle reports whether the event p is on a cycle of succs's edges.
func onCycle(g *Graph, p Pos) bool {
	return onCycleOf(p, func(q Pos, yield func(Pos)) { g.succs(q, all, yield) })
}

// onCycleOf reports whether p is on a cycle of the edges succ yields.
func onCycleOf(p Pos, succ func(q Pos, yield func(Pos))) bool {
	seen := map[Pos]bool{}
	var visit func(q Pos) bool
	visit = func(q Pos) bool {
		found := false
		succ(q, func(s Pos) {
			if found {
				return
			}
			if s == p {
				found = true
				return
			}
			if !seen[s] {
				seen[s] = true
				found = visit(s)
			}
		})
		return found
	}
	return visit(p)
}

func allAcyclic(g *Graph) bool {
	for _, p := range g.Order {
		if opOnCycle(g, g.Leader(p)) {
			return false
		}
	}
	return true
}

func TestMoveAndRemove(t *testing.T) {
	g := New()
	w1 := g.Add(0, Event{Kind: Write, Loc: 0, Val: event.Value{N: 1}}, false)
	g.InsertCo(w1, Init)
	w2 := g.Add(0, Event{Kind: Write, Loc: 0, Val: event.Value{N: 2}}, false)
	g.InsertCo(w2, w1)
	g.MoveCo(w2, Init)
	if co := g.Locs[0].Co; co[0] != w2 || co[1] != w1 {
		t.Fatalf("after MoveCo: %v", co)
	}
	r := g.Add(0, Event{Kind: Read, Loc: 0, RF: w1}, true)
	if g.CoMax(0) != w1 || g.Value(g.Ev(r).RF).N != 1 {
		t.Fatalf("co-max %v", g.CoMax(0))
	}
	g.SetRF(r, w2, true)
	if g.ReadValue(r).N != 2 {
		t.Fatalf("SetRF: read %v", g.ReadValue(r))
	}
	g.RemoveEvent(r)
	if g.Len() != 2 || len(g.Locs[0].Reads) != 0 {
		t.Fatalf("RemoveEvent: %v", g)
	}
}
