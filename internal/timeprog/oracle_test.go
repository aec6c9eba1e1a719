package timeprog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// dfsLimit bounds dfs's executions on a generated program: one that needs
// more is skipped, as dfs is then no reference.
const dfsLimit = 20_000

// verdict is what check found on one program.
type verdict struct {
	skipped  bool // dfs was not exhaustive within dfsLimit
	buggy    bool // dfs found a bug
	dfsExecs int
	complete int // condpor's complete executions
	problems []string
}

// check compares condpor with dfs on p: the bug kinds with WithAllBugs
// (through the public API as well), the verdict of the default engine,
// no Nondeterminism, replay tokens that reproduce their bugs, and on a
// program without bugs condpor's complete executions, each a class of
// dfs's exactly once.
func check(p *Program) *verdict {
	v := &verdict{}
	body := p.Body()
	c, err := Compare(body, dfsLimit)
	if err != nil {
		v.problems = append(v.problems, err.Error())
		return v
	}
	v.dfsExecs, v.complete = c.DFS.Executions, c.CondPOR.Complete
	if !c.DFS.Exhaustive {
		v.skipped = true
		return v
	}
	v.buggy = len(c.DFS.Kinds) > 0
	v.problems = append(v.problems, c.Problems()...)
	if !v.buggy && c.CondPOR.Complete != len(c.DFS.Classes) {
		v.problems = append(v.problems, fmt.Sprintf("condpor: %d complete executions, dfs: %d classes", c.CondPOR.Complete, len(c.DFS.Classes)))
	}
	want := kindNames(c.DFS.Kinds)
	var results []weft.Result
	for _, opts := range [][]weft.Option{
		{weft.WithAllBugs()},
		{weft.WithAllBugs(), weft.WithEngine("dfs"), weft.WithMaxExecutions(dfsLimit)},
		{},
	} {
		res, err := weft.Explore(body, opts...)
		if err != nil {
			v.problems = append(v.problems, fmt.Sprintf("%s: %v", res.Engine, err))
			return v
		}
		results = append(results, res)
	}
	for _, res := range results[:2] {
		if got := resultKinds(res); got != want {
			v.problems = append(v.problems, fmt.Sprintf("%s with WithAllBugs reports %s, dfs's exploration found %s", res.Engine, got, want))
		}
	}
	if first := results[2]; (len(first.Bugs) > 0) != v.buggy {
		v.problems = append(v.problems, fmt.Sprintf("verdict: the default engine finds %v, dfs %s", first.Bugs, want))
	}
	replayed := map[string]bool{}
	for _, res := range results {
		for _, b := range res.Bugs {
			switch {
			case strings.HasPrefix(b.Message, Invariant):
				v.problems = append(v.problems, fmt.Sprintf("%s: %s", res.Engine, b.Message))
			case b.Kind == weft.Nondeterminism:
				v.problems = append(v.problems, fmt.Sprintf("%s: %s", res.Engine, b.Message))
			case b.Replay == "":
				v.problems = append(v.problems, fmt.Sprintf("%s: %v has no replay token", res.Engine, b.Kind))
			case !replayed[b.Replay]:
				replayed[b.Replay] = true
				r, err := weft.Explore(body, weft.WithReplay(b.Replay))
				if err != nil || len(r.Bugs) == 0 || r.Bugs[0].Kind != b.Kind {
					v.problems = append(v.problems, fmt.Sprintf("%s: the replay of %v (%s) finds %v, error %v", res.Engine, b.Kind, b.Replay, r.Bugs, err))
				}
			}
		}
	}
	return v
}

func kindNames(ks map[engine.BugKind]bool) string {
	var names []string
	for k := range ks {
		names = append(names, weft.BugKind(k).String())
	}
	slices.Sort(names)
	return fmt.Sprint(names)
}

func resultKinds(res weft.Result) string {
	ks := map[engine.BugKind]bool{}
	for _, b := range res.Bugs {
		ks[engine.BugKind(b.Kind)] = true
	}
	return kindNames(ks)
}

// TestRandomPrograms compares condpor with dfs on generated programs:
// 200 in CI, WEFT_TIMEPROG=N programs for a bigger run (WEFT_TIMEPROG_SEED
// changes the first seed), whose figures it logs.
func TestRandomPrograms(t *testing.T) {
	n, seed := 200, uint64(1)
	if s := os.Getenv("WEFT_TIMEPROG"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("WEFT_TIMEPROG=%q: %v", s, err)
		}
	}
	if s := os.Getenv("WEFT_TIMEPROG_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("WEFT_TIMEPROG_SEED=%q: %v", s, err)
		}
	}
	var skipped, buggy, clean, failed, dfsExecs, complete int
	for i := range uint64(n) {
		p := Generate(rand.New(rand.NewPCG(seed+i, 0)))
		v := check(p)
		switch {
		case v.skipped:
			skipped++
			continue
		case v.buggy:
			buggy++
		default:
			clean++
			complete += v.complete
		}
		dfsExecs += v.dfsExecs
		if len(v.problems) > 0 {
			failed++
			t.Errorf("seed %d (cost %d):\n%s\nproblems:\n%v", seed+i, p.Cost(), p, v.problems)
		}
	}
	t.Logf("%d programs: %d with bugs, %d without (condpor: %d complete executions), %d skipped (dfs not exhaustive in %d executions); dfs ran %d executions; %d failed",
		n, buggy, clean, complete, skipped, dfsLimit, dfsExecs, failed)
	// The generator must reach both verdicts, and dfs must exhaust most
	// programs, or the comparison says little.
	if buggy < n/10 || clean < n/10 || skipped > n/3 {
		t.Errorf("the generated programs are lopsided: %d with bugs, %d without, %d skipped", buggy, clean, skipped)
	}
}

// TestRegressionSeeds checks the generated programs that found bugs of
// weft's model: seeds 649 and 1477 (of 1,500 with WEFT_TIMEPROG) make a
// context with a timeout from a canceled one, which ended DeadlineExceeded
// where Go has it canceled (a failed Invariant).
func TestRegressionSeeds(t *testing.T) {
	for _, seed := range []uint64{649, 1477} {
		p := Generate(rand.New(rand.NewPCG(seed, 0)))
		if v := check(p); len(v.problems) > 0 || v.skipped {
			t.Errorf("seed %d (skipped: %v):\n%s\nproblems:\n%v", seed, v.skipped, p, v.problems)
		}
	}
}

// TestWaitAtEnd checks what check relies on to say that no complete
// execution ends with a goroutine waiting on a mutex or a semaphore (see
// ends): the clock is seen waiting in a receive, and a goroutine waiting
// in a Lock would be reported.
func TestWaitAtEnd(t *testing.T) {
	c, err := Compare(func() {
		(&Program{Timer: 1, G: [2][]Stmt{{{Op: Stop}}, {{Op: Sleep, D: 1}}}}).Body()()
	}, dfsLimit)
	if err != nil {
		t.Fatal(err)
	}
	recvs := 0
	for k, n := range c.DFS.WaitAtEnd {
		if recv(k) {
			recvs += n
		}
	}
	if recvs == 0 || len(c.Problems()) > 0 {
		t.Fatalf("waits at the end %v, problems %v: want the clock waiting in a receive, no problem", c.DFS.WaitAtEnd, c.Problems())
	}
	c.DFS.WaitAtEnd = map[event.Kind]int{event.Lock: 1}
	if ps := c.Problems(); len(ps) != 1 {
		t.Fatalf("a goroutine waiting in a Lock at the end: problems %v, want one", ps)
	}
}
