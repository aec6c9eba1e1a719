// Package progtest generates small random concurrent programs over weft's
// primitives, for fuzzing the checker and for comparing engines with each
// other.
//
// A Program is data: goroutines of straight-line operations over a few
// atomic locations, plain Vars and mutexes, which may hand the rest of
// their operations to a goroutine they start. Body turns it into a
// function that runs under the checker.
package progtest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/rewritten"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// OpKind is the kind of an operation of a generated program.
type OpKind uint8

// The operations of generated programs.
const (
	Load       OpKind = iota // r = x[Loc].Load()
	Store                    // x[Loc].Store(Val)
	Add                      // x[Loc].Add(Val)
	CAS                      // x[Loc].CompareAndSwap(Val, Val2)
	Lock                     // m[Loc].Lock()
	Unlock                   // m[Loc].Unlock()
	Assume                   // Assume(x[Loc].Load() != Val)
	Assert                   // Assert(x[Loc].Load() != Val)
	VarLoad                  // v[Loc].Load()
	VarStore                 // v[Loc].Store(Val)
	SymNew                   // r = sym.NewInt()
	SymStore                 // s[Loc].Store(r + Val)
	SymLoad                  // r = s[Loc].Load()
	SymBranch                // (r < Val).Eval()
	SymAssume                // sym.Assume(r != Val)
	ChanSend                 // c[Loc].Send(Val); channel Loc has capacity Loc % 3
	ChanRecv                 // c[Loc].Recv()
	ChanClose                // c[Loc].Close()
	ChanLen                  // c[Loc].Len()
	ChanSelect               // select { case c[Loc] <- Val: ; case <-c[New]: ; default (if Val is odd) }
	Await                    // for x[Loc].Load() == Val { weft.Yield() }
	Go                       // go func() { the operations after it }(), which nothing joins
	numOps
)

// bytesOps is how many kinds FromBytes draws from: those before Go, so that
// the fuzz corpora keep their meaning.
const bytesOps = Go

var opNames = [numOps]string{"load", "store", "add", "cas", "lock", "unlock", "assume", "assert", "vload", "vstore",
	"snew", "sstore", "sload", "sbranch", "sassume", "send", "recv", "close", "len", "select", "await", "go"}

// Op is one operation.
type Op struct {
	Kind     OpKind
	Loc      int
	Val, New int64
}

func (o Op) String() string {
	switch o.Kind {
	case Go:
		return "go"
	case Load, Lock, Unlock, VarLoad:
		return fmt.Sprintf("%s %d", opNames[o.Kind], o.Loc)
	case CAS:
		return fmt.Sprintf("cas %d %d→%d", o.Loc, o.Val, o.New)
	case ChanSelect:
		return fmt.Sprintf("select %d %d %d", o.Loc, o.Val, o.New)
	}
	return fmt.Sprintf("%s %d %d", opNames[o.Kind], o.Loc, o.Val)
}

// Program is a generated program: the body starts one goroutine per entry
// of Goroutines and joins them all (not those that a Go starts).
type Program struct {
	Goroutines [][]Op
	Locs       int // atomic locations, plain Vars and mutexes each
}

// usesChans reports whether a goroutine of p uses channels, so that
// programs without do not make them.
func (p Program) usesChans() bool {
	for _, g := range p.Goroutines {
		for _, o := range g {
			if o.Kind >= ChanSend && o.Kind <= ChanSelect {
				return true
			}
		}
	}
	return false
}

// Parse reads a program in the form String writes it.
func Parse(text string) (Program, error) {
	var p Program
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if n, ok := strings.CutPrefix(line, "locs: "); ok {
			if _, err := fmt.Sscan(n, &p.Locs); err != nil {
				return p, fmt.Errorf("progtest: %q: %v", line, err)
			}
			continue
		}
		_, ops, ok := strings.Cut(line, ":")
		if !ok {
			return p, fmt.Errorf("progtest: %q is not a goroutine", line)
		}
		var g []Op
		for _, f := range strings.Split(ops, "]") {
			f = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f), "["))
			if f == "" {
				continue
			}
			f = strings.ReplaceAll(f, "→", " ")
			var name string
			var o Op
			n, _ := fmt.Sscan(f, &name, &o.Loc, &o.Val, &o.New)
			kind := -1
			for k, s := range opNames {
				if s == name {
					kind = k
				}
			}
			if kind < 0 || n < 2 && OpKind(kind) != Go {
				return p, fmt.Errorf("progtest: %q is not an operation", f)
			}
			o.Kind = OpKind(kind)
			g = append(g, o)
		}
		p.Goroutines = append(p.Goroutines, g)
	}
	return p, nil
}

// Ops returns the number of operations of all goroutines.
func (p Program) Ops() int {
	n := 0
	for _, g := range p.Goroutines {
		n += len(g)
	}
	return n
}

func (p Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "locs: %d\n", p.Locs)
	for i, g := range p.Goroutines {
		fmt.Fprintf(&b, "g%d:", i+1)
		for _, o := range g {
			fmt.Fprintf(&b, " [%v]", o)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Config bounds what Generate produces.
type Config struct {
	Goroutines  [2]int   // min, max
	Ops         [2]int   // per goroutine: min, max
	Locs        int      // locations of each kind
	Kinds       []OpKind // the operations to draw from; nil: all but Assert
	LockedRatio float64  // probability that an operation is a critical section
}

// Generate draws a program. Critical sections are balanced (Lock, one
// operation, Unlock) and never nested, so that generated programs do not
// deadlock unless Kinds says otherwise by including Lock and Unlock alone.
func Generate(rng *rand.Rand, c Config) Program {
	kinds := c.Kinds
	if kinds == nil {
		kinds = []OpKind{Load, Store, Add, CAS, Assume, VarLoad, VarStore}
	}
	p := Program{Locs: max(c.Locs, 1)}
	n := c.Goroutines[0] + rng.IntN(c.Goroutines[1]-c.Goroutines[0]+1)
	for range n {
		var ops []Op
		k := c.Ops[0] + rng.IntN(c.Ops[1]-c.Ops[0]+1)
		for range k {
			o := Op{Kind: kinds[rng.IntN(len(kinds))], Loc: rng.IntN(p.Locs), Val: int64(rng.IntN(3)), New: int64(rng.IntN(3))}
			if rng.Float64() < c.LockedRatio {
				m := rng.IntN(p.Locs)
				ops = append(ops, Op{Kind: Lock, Loc: m}, o, Op{Kind: Unlock, Loc: m})
				continue
			}
			ops = append(ops, o)
		}
		p.Goroutines = append(p.Goroutines, ops)
	}
	return p
}

// FromBytes decodes a program from arbitrary bytes (for fuzzing): every
// byte string is a valid program of at most 4 goroutines of at most 6
// operations over 2 locations of each kind.
func FromBytes(data []byte) Program {
	p := Program{Locs: 2}
	if len(data) == 0 {
		return p
	}
	n := 1 + int(data[0])%4
	data = data[1:]
	for range n {
		var ops []Op
		for len(data) >= 2 && len(ops) < 6 {
			a, b := data[0], data[1]
			data = data[2:]
			if a == 0xff {
				break
			}
			ops = append(ops, Op{Kind: OpKind(a % byte(bytesOps)), Loc: int(a>>4) % 2, Val: int64(b % 3), New: int64(b>>4) % 3})
		}
		p.Goroutines = append(p.Goroutines, ops)
	}
	return p
}

// Body returns the function that runs p under the checker. The objects are
// created inside it, so every execution starts from zero.
func (p Program) Body() func() { return p.body(false) }

// PlainBody is Body with plain variables, as weft test rewrites them,
// instead of Vars: their accesses are not operations, and races on them
// are found by the runtime's race checker rather than by the engines.
// p has a data race exactly when it has one with Vars.
func (p Program) PlainBody() func() { return p.body(true) }

func (p Program) body(plain bool) func() {
	return func() {
		xs := make([]atomic.Int64, p.Locs)
		vs := make([]weft.Var[int64], p.Locs)
		ps := make([]int64, p.Locs)
		ss := make([]atomic.Value, p.Locs)
		cs := make([]*weft.Chan[int64], p.Locs)
		for i := range cs {
			if p.usesChans() {
				cs[i] = weft.MakeChan[int64](i % 3)
			}
		}
		ms := make([]sync.Mutex, p.Locs)
		// run performs ops; r is the goroutine's symbolic register.
		var run func(ops []Op, r sym.Int)
		run = func(ops []Op, r sym.Int) {
			for i, o := range ops {
				switch o.Kind {
				case Load:
					xs[o.Loc].Load()
				case Store:
					xs[o.Loc].Store(o.Val)
				case Add:
					xs[o.Loc].Add(o.Val)
				case CAS:
					xs[o.Loc].CompareAndSwap(o.Val, o.New)
				case Lock:
					ms[o.Loc].Lock()
				case Unlock:
					ms[o.Loc].Unlock()
				case Assume:
					weft.Assume(xs[o.Loc].Load() != o.Val)
				case Assert:
					weft.Assert(xs[o.Loc].Load() != o.Val, "x%d == %d", o.Loc, o.Val)
				case Await:
					for xs[o.Loc].Load() == o.Val {
						weft.Yield()
					}
				case VarLoad:
					if plain {
						rewritten.Read(&ps[o.Loc])
					} else {
						vs[o.Loc].Load()
					}
				case VarStore:
					if plain {
						rewritten.Set(&ps[o.Loc])(o.Val)
					} else {
						vs[o.Loc].Store(o.Val)
					}
				case SymNew:
					r = sym.NewInt("r")
				case SymStore:
					ss[o.Loc].Store(r.Add(sym.Const(o.Val)))
				case SymLoad:
					r = sym.Int{}
					if v := ss[o.Loc].Load(); v != nil {
						r = v.(sym.Int)
					}
				case SymBranch:
					r.Lt(sym.Const(o.Val)).Eval()
				case SymAssume:
					sym.Assume(r.Ne(sym.Const(o.Val)))
				case ChanSend:
					cs[o.Loc].Send(o.Val)
				case ChanRecv:
					cs[o.Loc].Recv()
				case ChanClose:
					cs[o.Loc].Close()
				case ChanLen:
					cs[o.Loc].Len()
				case ChanSelect:
					cases := []weft.SelectCase{cs[o.Loc].SendCase(o.Val), cs[int(o.New)%len(cs)].RecvCase(nil, nil)}
					if o.Val%2 == 1 {
						cases = append(cases, weft.Default())
					}
					weft.Select(cases...)
				case Go:
					weft.Go(func() { run(ops[i+1:], r) })
					return
				}
			}
		}
		gs := make([]*weft.Goroutine, len(p.Goroutines))
		for i, ops := range p.Goroutines {
			gs[i] = weft.Go(func() { run(ops, sym.Int{}) })
		}
		for _, g := range gs {
			g.Join()
		}
	}
}
