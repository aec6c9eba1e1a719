package sync_test

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// A check-then-act on a Map: both goroutines may find the key missing and
// both store it; LoadOrStore would let exactly one of them win.
func ExampleMap() {
	res, _ := weft.Explore(func() {
		var sessions sync.Map
		var created atomic.Int32
		open := func() {
			if _, ok := sessions.Load("alice"); !ok {
				sessions.Store("alice", created.Add(1))
			}
		}
		g := weft.Go(open)
		open()
		g.Join()
		weft.Assert(created.Load() == 1, "%d sessions created for alice", created.Load())
	})
	fmt.Println(res.Bugs[0].Message)
	// Output: 2 sessions created for alice
}

// A Get may take any item put back, or miss: weft explores both.
func ExamplePool() {
	got := map[string]bool{}
	weft.Explore(func() {
		p := sync.Pool{New: func() any { return "new" }}
		p.Put("reused")
		got[p.Get().(string)] = true
	})
	fmt.Println(got)
	// Output: map[new:true reused:true]
}

// OnceValue runs its function once, whoever calls first, and every call
// returns its result.
func ExampleOnceValue() {
	configs := map[string]bool{}
	weft.Explore(func() {
		var loads atomic.Int32
		config := sync.OnceValue(func() string { return fmt.Sprint("config #", loads.Add(1)) })
		var other string
		g := weft.Go(func() { other = config() })
		mine := config()
		g.Join()
		configs[mine+", "+other] = true
	})
	fmt.Println(configs)
	// Output: map[config #1, config #1:true]
}

// A register that the first of three goroutines resolves, as a Monitor:
// which goroutine resolves it decides every result, and once it is
// resolved the other resolutions commute (nothing unresolves it), which
// the cdpor engine finds with the solver. It explores one execution per
// winner where sdpor explores every order of the three sections.
func ExampleMonitor() {
	body := func() {
		m := sync.NewMonitor(0, 0) // resolved, value
		resolve := m.Declare(1, func(s, a []sym.Int) []sym.Int {
			if s[0].Eq(sym.Const(0)).Eval() {
				s[0], s[1] = sym.Const(1), a[0]
			}
			return []sym.Int{s[1]}
		})
		var gs []*weft.Goroutine
		for id := range 3 {
			gs = append(gs, weft.Go(func() {
				v := resolve.Do(int64(id + 1))[0]
				weft.Assert(v >= 1 && v <= 3, "resolved to %d", v)
			}))
		}
		for _, g := range gs {
			g.Join()
		}
	}
	for _, engine := range []string{"sdpor", "cdpor"} {
		res, _ := weft.Explore(body, weft.WithEngine(engine))
		fmt.Println(engine, res.Executions)
	}
	// Output:
	// sdpor 6
	// cdpor 3
}
