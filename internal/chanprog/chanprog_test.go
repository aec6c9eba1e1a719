package chanprog

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"iter"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// programs yields n programs drawn from seed: DefaultConfig, and one in
// four with a plain shared variable as well (explored by weft only).
func programs(seed uint64, n int) iter.Seq2[int, *Program] {
	return func(yield func(int, *Program) bool) {
		rng := rand.New(rand.NewPCG(seed, 0x6368616e70726f67))
		for i := range n {
			cfg := DefaultConfig()
			cfg.Vars = i%4 == 3
			if !yield(i, Generate(rng, cfg)) {
				return
			}
		}
	}
}

// realSeed is the first seed of the real runs of program i of seed's
// programs: every run of the oracle on every program has its own.
func realSeed(seed uint64, i int) uint64 { return seed<<32 | uint64(i)<<8 }

// TestHandmade runs the oracle on the hand-written programs and checks
// what each must do: every real run ends with one of its verdicts, the
// default engine finds its kinds of bugs (and dfs too, or the oracle
// says so), and a program with one behaviour has one execution.
func TestHandmade(t *testing.T) {
	o := oracle{limit: 100_000, seeds: 30}
	for _, h := range handmade {
		t.Run(h.name, func(t *testing.T) {
			if err := h.p.Validate(); err != nil {
				t.Fatal(err)
			}
			v := o.check(h.p, 0)
			if v.skipped {
				t.Fatalf("dfs needs more than %d executions", o.limit)
			}
			for verd := range v.real {
				if !slices.Contains(h.real, verd) {
					t.Errorf("a real run ends with %q, want one of %q", verd, h.real)
				}
			}
			if v.kinds != h.kinds {
				t.Errorf("the default engine finds %v, want %v", v.kinds, h.kinds)
			}
			if h.one && v.complete != 1 {
				t.Errorf("the default engine explores %d complete executions of a program with one behaviour", v.complete)
			}
			if len(v.problems) > 0 || t.Failed() {
				t.Errorf("%s", v.describe(h.p, 0))
			}
		})
	}
}

// The differential test: the programs, the bound on dfs, and the real
// runs of each program.
const (
	ciSeed     = 1
	ciPrograms = 300
	ciLimit    = 20_000
	ciReal     = 20
)

// TestDifferential runs the oracle on ciPrograms generated programs and
// fails on any property that does not hold.
func TestDifferential(t *testing.T) {
	o := oracle{limit: ciLimit, seeds: ciReal}
	compared := 0
	for i, p := range programs(ciSeed, ciPrograms) {
		t.Run(fmt.Sprintf("p%03d", i), func(t *testing.T) {
			if why, ok := knownMismatches[i]; ok {
				t.Skipf("known mismatch: %s", why)
			}
			seed := realSeed(ciSeed, i)
			v := o.check(p, seed)
			if v.skipped {
				t.Skipf("dfs needs more than %d executions", o.limit)
			}
			compared++
			if len(v.problems) > 0 {
				t.Errorf("program %d of seed %d: %s", i, ciSeed, v.describe(p, seed))
			}
		})
	}
	if compared < ciPrograms*4/5 {
		t.Errorf("only %d programs of %d compared", compared, ciPrograms)
	}
}

// FuzzDifferential compares the default engine with dfs on the program
// FromBytes makes of its input: verdicts, kinds of bugs, replays and
// classes. Real runs are left out: a fuzzer needs a verdict that does not
// change from one run to the next.
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{
		"",
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14",
		"hello, world, this is a byte string",
		"\x02\x01\x00\x00\x01\x01\x03\x00\x02\x05\x01\x00\x04\x02\x00\x01\x01\x07",
		"\x06\x05\x05\x01\x06\x01\x02\x05\x00\x01\x06\x00\x07\x07\x07\x05\x07\x07\x00\x02\x05\x01\x05\x03",
		"\x06\x04\x04\x04\x05\x06\x00\x07\x05\x05\x06\x04\x06\x02\x07\x01\x01\x06\x05\x01\x07\x02\x07\x06",
	} {
		f.Add([]byte(s))
	}
	o := oracle{limit: ciLimit}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := FromBytes(data)
		if v := o.check(p, 0); len(v.problems) > 0 {
			t.Errorf("%s", v.describe(p, 0))
		}
	})
}

// envInt is the value of the environment variable name, def when unset.
func envInt(t *testing.T, name string, def int) int {
	s, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// TestScratch is the long differential run, not part of CI: it runs the
// oracle on WEFT_CHANPROG_N programs drawn from seed WEFT_CHANPROG_SEED
// (default 1), or only those whose indices WEFT_CHANPROG_ONLY lists
// (comma-separated), each with WEFT_CHANPROG_REAL real runs (default 20), and
// prints its figures and every mismatch. With WEFT_CHANPROG_SHRINK=1 it
// also shrinks mismatching programs, each for each property it fails,
// but only the first shrinkPerKind of each kind of mismatch (the
// properties and the two engines' kinds of bugs): most repeat. Run it
// with -v -timeout 0.
func TestScratch(t *testing.T) {
	n := envInt(t, "WEFT_CHANPROG_N", 0)
	if n == 0 {
		t.Skip("set WEFT_CHANPROG_N to run")
	}
	seed := uint64(envInt(t, "WEFT_CHANPROG_SEED", 1))
	o := oracle{limit: ciLimit, seeds: envInt(t, "WEFT_CHANPROG_REAL", ciReal)}
	shrinking := envInt(t, "WEFT_CHANPROG_SHRINK", 0) != 0
	only := map[int]bool{}
	for _, f := range strings.FieldsFunc(os.Getenv("WEFT_CHANPROG_ONLY"), func(r rune) bool { return r == ',' }) {
		i, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("WEFT_CHANPROG_ONLY: %v", err)
		}
		only[i] = true
	}
	start := time.Now()
	var compared, skipped, execs, dropped, dfsExecs, realRuns, realBugs, mismatches int
	byProp := map[string]int{}
	byKind := map[string]int{}
	shown := map[string]bool{}
	for i, p := range programs(seed, n) {
		if len(only) > 0 && !only[i] {
			continue
		}
		v := o.check(p, realSeed(seed, i))
		if v.skipped {
			skipped++
			continue
		}
		compared++
		execs += v.execs
		dropped += v.dropped
		dfsExecs += v.dfsExecs
		for verd, k := range v.real {
			realRuns += k
			if verd != "ok" {
				realBugs += k
			}
		}
		if len(v.problems) == 0 {
			continue
		}
		mismatches++
		props := v.props()
		for _, prop := range props {
			byProp[prop]++
		}
		kind := fmt.Sprintf("%s; dfs %v, default engine %v", strings.Join(props, ", "), v.dfsKinds, v.kinds)
		byKind[kind]++
		t.Logf("MISMATCH program %d of seed %d: %s", i, seed, v.describe(p, realSeed(seed, i)))
		if !shrinking || byKind[kind] > shrinkPerKind {
			continue
		}
		for _, prop := range props {
			q, w := shrinkFor(o, p, prop)
			if key := prop + "\n" + q.String(); !shown[key] {
				shown[key] = true
				t.Logf("SHRUNK program %d of seed %d, %s: %sas a literal:\n%s", i, seed, prop, w.describe(q, 0), literal(q))
			}
		}
	}
	var props, kinds []string
	for _, prop := range slices.Sorted(maps.Keys(byProp)) {
		props = append(props, fmt.Sprintf("%s %d", prop, byProp[prop]))
	}
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		kinds = append(kinds, fmt.Sprintf("\n  %4d  %s", byKind[k], k))
	}
	t.Logf("FIGURES seed %d: %d programs in %v: %d compared, %d skipped (dfs over %d executions); executions: default engine %d (and %d redundant), dfs %d; real runs %d (%d with a bug); mismatching programs %d (%s)%s",
		seed, n, time.Since(start).Round(time.Second), compared, skipped, o.limit, execs, dropped, dfsExecs, realRuns, realBugs, mismatches, strings.Join(props, ", "), strings.Join(kinds, ""))
	if mismatches > 0 {
		t.Errorf("%d mismatching programs", mismatches)
	}
}

// shrinkPerKind is how many programs of each kind of mismatch TestScratch
// shrinks.
const shrinkPerKind = 3

// shrinkFor shrinks p while prop still fails on it, and returns the
// smallest program with the oracle's verdict on it. A property of real
// runs fails only in some of them, so it is checked on more.
func shrinkFor(o oracle, p *Program, prop string) (*Program, *verdict) {
	o.seeds = 0
	if strings.HasPrefix(prop, "real Go") {
		o.seeds = 100
	}
	still := func(q *Program) bool { return slices.Contains(o.check(q, 0).props(), prop) }
	if !still(p) {
		return p, o.check(p, 0)
	}
	q := shrink(p, still)
	return q, o.check(q, 0)
}

// TestGenerate checks that generated programs, and those FromBytes makes
// of random bytes, are valid and within their bound of operations.
func TestGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfgs := map[string]Config{"default": DefaultConfig()}
	small := DefaultConfig()
	small.Goroutines, small.Chans, small.MaxOps, small.Stmts, small.Depth = [2]int{1, 1}, [2]int{1, 1}, 4, 3, 1
	cfgs["small"] = small
	vars := DefaultConfig()
	vars.Vars, vars.Atomics = true, 2
	cfgs["vars"] = vars
	sendRecv := DefaultConfig()
	sendRecv.Kinds = []Kind{Send, Recv, Close}
	cfgs["sendRecv"] = sendRecv
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			for range 2000 {
				p := Generate(rng, cfg)
				if err := p.Validate(); err != nil {
					t.Fatalf("%v\n%v", err, p)
				}
				if p.MaxOps() > cfg.MaxOps {
					t.Fatalf("%d operations, over %d:\n%v", p.MaxOps(), cfg.MaxOps, p)
				}
				if p.UsesVars() && !cfg.Vars {
					t.Fatalf("Var accesses:\n%v", p)
				}
			}
		})
	}
	t.Run("FromBytes", func(t *testing.T) {
		for range 2000 {
			data := make([]byte, rng.IntN(64))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			if p := FromBytes(data); p.Validate() != nil || p.MaxOps() > DefaultConfig().MaxOps {
				t.Fatalf("%q: %v, %d operations\n%v", data, p.Validate(), p.MaxOps(), p)
			}
		}
	})
}

// TestGoSource checks that GoSource is a Go program that compiles, for
// the hand-written programs and some generated ones.
func TestGoSource(t *testing.T) {
	var ps []*Program
	for _, h := range handmade {
		ps = append(ps, h.p)
	}
	for _, p := range programs(2, 100) {
		ps = append(ps, p)
	}
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	for i, p := range ps {
		src := p.GoSource()
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "main.go", src, 0)
		if err != nil {
			t.Fatalf("program %d: %v\n%s", i, err, src)
		}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check("main", fset, []*ast.File{f}, nil); err != nil {
			t.Fatalf("program %d: %v\n%s", i, err, src)
		}
	}
}
