package rewritten_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/rewritten"
	"weft.dev/weft/sync"
)

// cell is a variable of a program, either a weft.Var (whose races the
// engines find) or plain memory (whose races the runtime finds).
type cell interface {
	load() int
	store(v int)
}

type varCell struct{ v weft.Var[int] }

func (c *varCell) load() int   { return c.v.Load() }
func (c *varCell) store(v int) { c.v.Store(v) }

type plainCell struct{ x int }

func (c *plainCell) load() int   { return rewritten.Read(&c.x) }
func (c *plainCell) store(v int) { rewritten.Set(&c.x)(v) }

// orderEngines are the engines whose clocks the race checker reads.
var orderEngines = []string{"condpor", "dfs", "sdpor", "mpor", "qpor"}

// TestPlainRaces checks that a race on plain memory is found exactly where
// the same program with a Var has one, by every engine: happens-before
// from each kind of synchronization.
func TestPlainRaces(t *testing.T) {
	tests := []struct {
		name string
		race bool
		body func(c cell)
	}{
		{"write write", true, func(c cell) {
			g := weft.Go(func() { c.store(1) })
			c.store(2)
			g.Join()
		}},
		{"read read", false, func(c cell) {
			g := weft.Go(func() { c.load() })
			c.load()
			g.Join()
		}},
		{"write before go", false, func(c cell) {
			c.store(1)
			g := weft.Go(func() { c.load() })
			g.Join()
		}},
		{"write after go", true, func(c cell) {
			g := weft.Go(func() { c.load() })
			c.store(1)
			g.Join()
		}},
		{"join", false, func(c cell) {
			g := weft.Go(func() { c.store(1) })
			g.Join()
			c.load()
		}},
		{"mutex", false, func(c cell) {
			var mu sync.Mutex
			g := weft.Go(func() { mu.Lock(); c.store(c.load() + 1); mu.Unlock() })
			mu.Lock()
			c.store(c.load() + 1)
			mu.Unlock()
			g.Join()
		}},
		{"mutex, one side unlocked", true, func(c cell) {
			var mu sync.Mutex
			g := weft.Go(func() { mu.Lock(); c.store(1); mu.Unlock() })
			c.load()
			g.Join()
		}},
		{"unbuffered handoff", false, func(c cell) {
			ch := weft.MakeChan[int](0)
			weft.Go(func() { c.store(1); ch.Send(1) })
			ch.Recv()
			c.load()
		}},
		{"receive before the send completes", true, func(c cell) {
			ch := weft.MakeChan[int](0)
			g := weft.Go(func() { ch.Recv(); c.store(1) })
			ch.Send(1)
			c.load()
			g.Join()
		}},
		{"buffered sends do not synchronize", true, func(c cell) {
			ch := weft.MakeChan[int](2)
			g := weft.Go(func() { c.store(1); ch.Send(1) })
			ch.Send(2)
			c.load()
			g.Join()
		}},
		{"close", false, func(c cell) {
			ch := weft.MakeChan[int](0)
			weft.Go(func() { c.store(1); ch.Close() })
			ch.Recv()
			c.load()
		}},
		{"atomic flag", false, func(c cell) {
			var flag atomic.Int32
			g := weft.Go(func() { c.store(1); flag.Store(1) })
			if flag.Load() == 1 {
				c.load()
			}
			g.Join()
		}},
		{"flag read first", true, func(c cell) {
			var flag atomic.Int32
			g := weft.Go(func() { c.store(1); flag.Store(1) })
			c.load()
			flag.Load()
			g.Join()
		}},
		{"wait group", false, func(c cell) {
			var wg sync.WaitGroup
			wg.Add(2)
			weft.Go(func() { defer wg.Done(); c.load() })
			weft.Go(func() { defer wg.Done(); c.load() })
			wg.Wait()
			c.store(2)
		}},
		{"once", false, func(c cell) {
			var once sync.Once
			g := weft.Go(func() { once.Do(func() { c.store(1) }); c.load() })
			once.Do(func() { c.store(2) })
			c.load()
			g.Join()
		}},
		{"race in one interleaving only", true, func(c cell) {
			var mu sync.Mutex
			ready := false
			g := weft.Go(func() { mu.Lock(); ready = true; mu.Unlock(); c.store(1) })
			mu.Lock()
			r := ready
			mu.Unlock()
			if r {
				c.load()
			}
			g.Join()
		}},
	}
	for _, tc := range tests {
		for _, eng := range orderEngines {
			t.Run(tc.name+"/"+eng, func(t *testing.T) {
				verdicts := map[string]bool{}
				for _, kind := range []string{"var", "plain"} {
					body := func() {
						var c cell = new(varCell)
						if kind == "plain" {
							c = new(plainCell)
						}
						tc.body(c)
					}
					res, err := weft.Explore(body, weft.WithEngine(eng))
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Bugs) == 1 && res.Bugs[0].Kind == weft.Misuse && strings.Contains(res.Bugs[0].Message, "does not model channels") {
						t.Skip(res.Bugs[0].Message)
					}
					race := false
					for _, b := range res.Bugs {
						if b.Kind != weft.DataRace {
							t.Fatalf("%s: %v", kind, b)
						}
						race = true
						again, err := weft.Explore(body, weft.WithReplay(b.Replay))
						if err != nil || len(again.Bugs) != 1 || again.Bugs[0].Kind != weft.DataRace {
							t.Fatalf("%s: the replay of %v gave %v, %v", kind, b, again.Bugs, err)
						}
					}
					verdicts[kind] = race
				}
				if verdicts["var"] != tc.race || verdicts["plain"] != tc.race {
					t.Errorf("races: with a Var %v, with plain memory %v; want %v", verdicts["var"], verdicts["plain"], tc.race)
				}
			})
		}
	}
}

// TestPlainRaceReport checks what a race on plain memory says: both
// accesses, by goroutine, kind and position, and both stacks.
func TestPlainRaceReport(t *testing.T) {
	var x int
	res, err := weft.Explore(func() {
		x = 0
		g := weft.Go(func() { writeX(&x) })
		rewritten.Read(&x)
		g.Join()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.DataRace {
		t.Fatalf("bugs %v, want one data race", res.Bugs)
	}
	msg := res.Bugs[0].Error()
	// The headline names both accesses, the stacks follow, and the trace
	// ends with the access that completed the race.
	for _, want := range []string{"memory_test.go:", "'s write at ", "'s read at ", "are not ordered by happens-before", "rewritten_test.writeX", "| data race "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the report does not say %q:\n%s", want, msg)
		}
	}
}

func writeX(p *int) { rewritten.Set(p)(1) }

// TestPlainBytes checks that races are per byte: two goroutines that write
// neighbouring bytes of a word do not race; a write of the whole word
// races with a write of one of its bytes. And that the functions of
// sync/atomic on a plain variable race with its plain accesses, not with
// each other.
func TestPlainBytes(t *testing.T) {
	type pair struct{ a, b byte }
	for _, tc := range []struct {
		name string
		race bool
		body func()
	}{
		{"neighbours", false, func() {
			p := new(pair)
			g := weft.Go(func() { rewritten.Set(&p.a)(1) })
			rewritten.Set(&p.b)(1)
			g.Join()
		}},
		{"overlap", true, func() {
			p := new(uint64)
			g := weft.Go(func() { rewritten.Set((*byte)(unsafe.Add(unsafe.Pointer(p), 3)))(1) })
			rewritten.Set(p)(1)
			g.Join()
		}},
		{"across words", true, func() {
			p := new([3]uint64)
			g := weft.Go(func() { rewritten.Set(&p[2])(1) })
			rewritten.Set(p)([3]uint64{})
			g.Join()
		}},
		{"map", true, func() {
			m := map[int]int{}
			g := weft.Go(func() { rewritten.MapWrite(m)[1] = 1 })
			_ = rewritten.MapRead(m)[2]
			g.Join()
		}},
		{"map reads", false, func() {
			m := map[int]int{}
			g := weft.Go(func() { _ = rewritten.MapRead(m)[1] })
			_ = rewritten.MapRead(m)[2]
			g.Join()
		}},
		{"atomic add, plain read", true, func() {
			n := new(int32)
			g := weft.Go(func() { atomic.AddInt32(n, 1) })
			rewritten.Read(n)
			g.Join()
		}},
		{"atomic adds", false, func() {
			n := new(int32)
			g := weft.Go(func() { atomic.AddInt32(n, 1) })
			atomic.AddInt32(n, 1)
			g.Join()
			rewritten.Read(n)
		}},
		{"plain write, atomic load", true, func() {
			n := new(int64)
			g := weft.Go(func() { atomic.LoadInt64(n) })
			rewritten.Set(n)(1)
			g.Join()
		}},
		{"atomic pointer store, plain read", true, func() {
			p := new(unsafe.Pointer)
			g := weft.Go(func() { atomic.StorePointer(p, unsafe.Pointer(new(int))) })
			rewritten.Read(p)
			g.Join()
		}},
		{"published by an atomic flag", false, func() {
			x, flag := new(int), new(int32)
			g := weft.Go(func() { rewritten.Set(x)(1); atomic.StoreInt32(flag, 1) })
			if atomic.LoadInt32(flag) == 1 {
				rewritten.Read(x)
			}
			g.Join()
		}},
		{"elements", true, func() {
			s := make([]int, 2)
			g := weft.Go(func() { rewritten.Set(&s[1])(1) })
			for range rewritten.Elems(s) {
			}
			g.Join()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := weft.Explore(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if race := len(res.Bugs) > 0; race != tc.race || race && res.Bugs[0].Kind != weft.DataRace {
				t.Errorf("bugs %v, want a race: %v", res.Bugs, tc.race)
			}
		})
	}
}

// TestPlainRacesMatchVars compares, on random programs of atomics, locks
// and variables, the races found on plain variables with those found on
// Vars: the same programs race, and a program without races has the same
// kinds of bugs either way (plain accesses are not operations, but they
// change no outcome of a race-free program).
func TestPlainRacesMatchVars(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 120
	if testing.Short() {
		n = 30
	}
	kindsOf := func(res weft.Result) []string {
		var ks []string
		for _, b := range res.Bugs {
			ks = append(ks, b.Kind.String())
		}
		slices.Sort(ks)
		return slices.Compact(ks)
	}
	racy, clean := 0, 0
	for i := range n {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{1, 3}, Ops: [2]int{1, 4}, Locs: 2, LockedRatio: 0.4,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Lock, progtest.Assert,
				progtest.VarLoad, progtest.VarStore, progtest.VarStore, progtest.ChanSend, progtest.ChanRecv, progtest.Go}})
		for _, eng := range []string{"condpor", "dfs"} {
			vars, err := weft.Explore(p.Body(), weft.WithEngine(eng), weft.WithAllBugs(), weft.WithMaxExecutions(20000))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := weft.Explore(p.PlainBody(), weft.WithEngine(eng), weft.WithAllBugs(), weft.WithMaxExecutions(20000))
			if err != nil {
				t.Fatal(err)
			}
			if !vars.Exhaustive || !plain.Exhaustive {
				continue
			}
			vk, pk := kindsOf(vars), kindsOf(plain)
			vr, pr := slices.Contains(vk, "data race"), slices.Contains(pk, "data race")
			if vr != pr || !vr && !slices.Equal(vk, pk) {
				t.Fatalf("program %d, %s:\n%v\nwith Vars: %v\nplain: %v", i, eng, p, vk, pk)
			}
			if pr {
				racy++
			} else {
				clean++
			}
			if plain.Executions > vars.Executions {
				t.Errorf("program %d, %s: %d executions plain, %d with Vars: plain accesses must not add any", i, eng, plain.Executions, vars.Executions)
			}
		}
	}
	t.Logf("%d comparisons with a race, %d without", racy, clean)
	if racy < n/10 || clean < n/10 {
		t.Errorf("%d comparisons with a race, %d without: the generator no longer writes both", racy, clean)
	}
}
