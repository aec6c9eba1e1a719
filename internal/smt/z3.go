//go:build (darwin || freebsd || linux || netbsd) && !android && !faketime

package smt

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ebitengine/purego"

	"weft.dev/weft/internal/sym"
)

// z3Names are the file names under which libz3 is looked up in the
// dynamic loader's search path: the Debian names, then the macOS one.
var z3Names = []string{"libz3.so", "libz3.so.4", "libz3.dylib"}

// z3API holds the libz3 entry points. Z3 handles (contexts, ASTs, sorts,
// solvers, models) are opaque pointers, passed as uintptr.
type z3API struct {
	mkConfig               func() uintptr
	delConfig              func(cfg uintptr)
	mkContext              func(cfg uintptr) uintptr
	delContext             func(ctx uintptr)
	setErrorHandler        func(ctx uintptr, h uintptr)
	getErrorMsg            func(ctx uintptr, code int32) string
	mkBvSort               func(ctx uintptr, size uint32) uintptr
	mkIntSymbol            func(ctx uintptr, i int32) uintptr
	mkConst                func(ctx, symbol, sort uintptr) uintptr
	mkFreshConst           func(ctx uintptr, prefix string, sort uintptr) uintptr
	mkUnsignedInt64        func(ctx uintptr, v uint64, sort uintptr) uintptr
	mkTrue                 func(ctx uintptr) uintptr
	mkFalse                func(ctx uintptr) uintptr
	mkNot                  func(ctx, a uintptr) uintptr
	mkAnd                  func(ctx uintptr, n uint32, args *uintptr) uintptr
	mkOr                   func(ctx uintptr, n uint32, args *uintptr) uintptr
	mkIte                  func(ctx, c, t, e uintptr) uintptr
	mkBvneg                func(ctx, a uintptr) uintptr
	mkBvnot                func(ctx, a uintptr) uintptr
	mkBvule                func(ctx, a, b uintptr) uintptr
	mkBvult                func(ctx, a, b uintptr) uintptr
	binary                 map[sym.Op]*func(ctx, a, b uintptr) uintptr
	mkSimpleSolver         func(ctx uintptr) uintptr
	solverIncRef           func(ctx, s uintptr)
	solverDecRef           func(ctx, s uintptr)
	solverAssert           func(ctx, s, a uintptr)
	solverCheck            func(ctx, s uintptr) int32
	solverCheckAssumptions func(ctx, s uintptr, n uint32, a *uintptr) int32
	solverGetModel         func(ctx, s uintptr) uintptr
	modelIncRef            func(ctx, m uintptr)
	modelDecRef            func(ctx, m uintptr)
	modelEval              func(ctx, m, t uintptr, completion bool, out *uintptr) bool
	getNumeralUint64       func(ctx, a uintptr, out *uint64) bool

	// handler is the error handler installed in every context. Z3's
	// default handler exits the process; this one records the error code
	// per context, for the Go side to turn into an error. The API call
	// that failed then returns a null handle.
	handler uintptr
	mu      sync.Mutex
	errs    map[uintptr]int32
}

// libz3 is loaded at most once per process: purego callbacks are a
// limited resource, and the library stays mapped anyway.
var libz3 struct {
	once sync.Once
	api  *z3API
	err  error
}

func loadZ3() (*z3API, error) {
	libz3.once.Do(func() { libz3.api, libz3.err = openZ3(z3Names) })
	return libz3.api, libz3.err
}

// binaryOps maps operations to the Z3 functions that build them from two
// operands.
var binaryOps = map[sym.Op]string{
	sym.OpAdd: "Z3_mk_bvadd", sym.OpSub: "Z3_mk_bvsub", sym.OpMul: "Z3_mk_bvmul",
	sym.OpDiv: "Z3_mk_bvsdiv", sym.OpRem: "Z3_mk_bvsrem", sym.OpAnd: "Z3_mk_bvand",
	sym.OpOr: "Z3_mk_bvor", sym.OpXor: "Z3_mk_bvxor", sym.OpShl: "Z3_mk_bvshl",
	sym.OpShr: "Z3_mk_bvashr", sym.OpEq: "Z3_mk_eq", sym.OpLt: "Z3_mk_bvslt",
	sym.OpLe: "Z3_mk_bvsle",
}

// openZ3 loads the first of the named libraries that exists.
func openZ3(names []string) (*z3API, error) {
	var lib uintptr
	var failures []string
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			lib = h
			break
		}
		failures = append(failures, err.Error())
	}
	if lib == 0 {
		return nil, fmt.Errorf("smt: libz3 not found (tried %s); install it (on Debian and Ubuntu: apt-get install libz3-dev) or use the builtin solver: %s",
			strings.Join(names, ", "), strings.Join(failures, "; "))
	}
	api := &z3API{errs: make(map[uintptr]int32), binary: make(map[sym.Op]*func(ctx, a, b uintptr) uintptr)}
	fns := []struct {
		ptr  any
		name string
	}{
		{&api.mkConfig, "Z3_mk_config"},
		{&api.delConfig, "Z3_del_config"},
		{&api.mkContext, "Z3_mk_context"},
		{&api.delContext, "Z3_del_context"},
		{&api.setErrorHandler, "Z3_set_error_handler"},
		{&api.getErrorMsg, "Z3_get_error_msg"},
		{&api.mkBvSort, "Z3_mk_bv_sort"},
		{&api.mkIntSymbol, "Z3_mk_int_symbol"},
		{&api.mkConst, "Z3_mk_const"},
		{&api.mkFreshConst, "Z3_mk_fresh_const"},
		{&api.mkUnsignedInt64, "Z3_mk_unsigned_int64"},
		{&api.mkTrue, "Z3_mk_true"},
		{&api.mkFalse, "Z3_mk_false"},
		{&api.mkNot, "Z3_mk_not"},
		{&api.mkAnd, "Z3_mk_and"},
		{&api.mkOr, "Z3_mk_or"},
		{&api.mkIte, "Z3_mk_ite"},
		{&api.mkBvneg, "Z3_mk_bvneg"},
		{&api.mkBvnot, "Z3_mk_bvnot"},
		{&api.mkBvule, "Z3_mk_bvule"},
		{&api.mkBvult, "Z3_mk_bvult"},
		{&api.mkSimpleSolver, "Z3_mk_simple_solver"},
		{&api.solverIncRef, "Z3_solver_inc_ref"},
		{&api.solverDecRef, "Z3_solver_dec_ref"},
		{&api.solverAssert, "Z3_solver_assert"},
		{&api.solverCheck, "Z3_solver_check"},
		{&api.solverCheckAssumptions, "Z3_solver_check_assumptions"},
		{&api.solverGetModel, "Z3_solver_get_model"},
		{&api.modelIncRef, "Z3_model_inc_ref"},
		{&api.modelDecRef, "Z3_model_dec_ref"},
		{&api.modelEval, "Z3_model_eval"},
		{&api.getNumeralUint64, "Z3_get_numeral_uint64"},
	}
	for op, name := range binaryOps {
		f := new(func(ctx, a, b uintptr) uintptr)
		api.binary[op] = f
		fns = append(fns, struct {
			ptr  any
			name string
		}{f, name})
	}
	for _, f := range fns {
		addr, err := purego.Dlsym(lib, f.name)
		if err != nil {
			return nil, fmt.Errorf("smt: libz3 lacks %s: %w", f.name, err)
		}
		purego.RegisterFunc(f.ptr, addr)
	}
	api.handler = purego.NewCallback(func(ctx, code uintptr) {
		api.mu.Lock()
		defer api.mu.Unlock()
		if _, ok := api.errs[ctx]; !ok {
			api.errs[ctx] = int32(code)
		}
	})
	return api, nil
}

// newContext returns a fresh context with the Go error handler.
func (api *z3API) newContext() (uintptr, error) {
	cfg := api.mkConfig()
	ctx := api.mkContext(cfg)
	api.delConfig(cfg)
	if ctx == 0 {
		return 0, errors.New("smt: z3: cannot create a context")
	}
	api.setErrorHandler(ctx, api.handler)
	return ctx, nil
}

func (api *z3API) deleteContext(ctx uintptr) {
	api.delContext(ctx)
	api.takeErr(ctx)
}

// takeErr returns and clears the error recorded for ctx, if any.
func (api *z3API) takeErr(ctx uintptr) (int32, bool) {
	api.mu.Lock()
	defer api.mu.Unlock()
	code, ok := api.errs[ctx]
	delete(api.errs, ctx)
	return code, ok
}

// z3Backend decides each part in a fresh Z3 context. Z3's search depends
// on the internal numbering of the ASTs of its context, so a context that
// outlived other queries could make a model depend on them; a fresh
// context costs about a millisecond and frees every AST.
type z3Backend struct {
	api *z3API
}

func newZ3() (*z3Backend, error) {
	api, err := loadZ3()
	if err != nil {
		return nil, err
	}
	return &z3Backend{api: api}, nil
}

func (b *z3Backend) close() error { return nil }

func (b *z3Backend) solve(tab *sym.Table, terms []sym.Term, vars []int, least bool) (outcome, error) {
	api := b.api
	ctx, err := api.newContext()
	if err != nil {
		return outcome{}, err
	}
	defer api.deleteContext(ctx)
	p := &z3Part{api: api, ctx: ctx, tab: tab, asts: make(map[sym.Term]uintptr)}
	p.bv64 = api.mkBvSort(ctx, 64)
	if err := p.failed("create sort", p.bv64); err != nil {
		return outcome{}, err
	}
	if err := p.translate(terms); err != nil {
		return outcome{}, err
	}
	p.solver = api.mkSimpleSolver(ctx)
	if err := p.failed("create solver", p.solver); err != nil {
		return outcome{}, err
	}
	api.solverIncRef(ctx, p.solver)
	defer api.solverDecRef(ctx, p.solver)
	for _, t := range terms {
		api.solverAssert(ctx, p.solver, p.asts[t])
	}
	for _, a := range p.defs {
		api.solverAssert(ctx, p.solver, a)
	}
	if err := p.failed("assert"); err != nil {
		return outcome{}, err
	}
	p.vars = make([]uintptr, len(vars))
	for i, id := range vars {
		// Z3 hash-conses ASTs: this is the constant the terms use.
		p.vars[i] = p.variable(id)
		if err := p.failed("variable", p.vars[i]); err != nil {
			return outcome{}, err
		}
	}
	if !least {
		return firstModel(p)
	}
	return leastModel(p, len(vars), probeKeys(tab, terms))
}

// z3Part is one part in its context. As a session, it fixes constraints
// by assertions and tries them with check_assumptions.
type z3Part struct {
	api    *z3API
	ctx    uintptr
	bv64   uintptr
	tab    *sym.Table
	asts   map[sym.Term]uintptr
	divs   map[[2]sym.Term][2]uintptr // quotient and remainder by dividend and divisor
	defs   []uintptr                  // constraints defining the quotients and remainders
	solver uintptr
	vars   []uintptr
}

// failed turns a Z3 error recorded during op, or a null result of op,
// into an error.
func (p *z3Part) failed(op string, results ...uintptr) error {
	if code, ok := p.api.takeErr(p.ctx); ok {
		return fmt.Errorf("smt: z3: %s: %s (error code %d)", op, p.api.getErrorMsg(p.ctx, code), code)
	}
	if slices.Contains(results, 0) {
		return fmt.Errorf("smt: z3: %s failed", op)
	}
	return nil
}

func (p *z3Part) variable(id int) uintptr {
	return p.api.mkConst(p.ctx, p.api.mkIntSymbol(p.ctx, int32(id)), p.bv64)
}

func (p *z3Part) constant(v int64) uintptr {
	return p.api.mkUnsignedInt64(p.ctx, uint64(v), p.bv64)
}

func (p *z3Part) op(op sym.Op, a, b uintptr) uintptr {
	return (*p.api.binary[op])(p.ctx, a, b)
}

// translate builds the Z3 ASTs of the DAG below terms, operands first, so
// the sequence of API calls, and with it Z3's search, depends only on the
// terms.
func (p *z3Part) translate(terms []sym.Term) error {
	api, ctx := p.api, p.ctx
	for _, t := range subterms(p.tab, terms) {
		n := p.tab.Node(t)
		a := func(i int) uintptr { return p.asts[n.Args[i]] }
		var r uintptr
		switch n.Op {
		case sym.OpFalse:
			r = api.mkFalse(ctx)
		case sym.OpTrue:
			r = api.mkTrue(ctx)
		case sym.OpConst:
			r = p.constant(n.Value)
		case sym.OpVar:
			if n.Value > math.MaxInt32 {
				return fmt.Errorf("smt: z3: variable id %d too large", n.Value)
			}
			r = p.variable(int(n.Value))
		case sym.OpNeg:
			r = api.mkBvneg(ctx, a(0))
		case sym.OpNot:
			r = api.mkNot(ctx, a(0))
		case sym.OpIte:
			r = api.mkIte(ctx, a(0), a(1), a(2))
		case sym.OpBAnd:
			args := [2]uintptr{a(0), a(1)}
			r = api.mkAnd(ctx, 2, &args[0])
		case sym.OpBOr:
			args := [2]uintptr{a(0), a(1)}
			r = api.mkOr(ctx, 2, &args[0])
		case sym.OpDiv, sym.OpRem:
			d, ok := p.tab.IsConst(n.Args[1])
			if !ok || d == 0 {
				r = p.op(n.Op, a(0), a(1))
				break
			}
			qr, err := p.divrem(n.Args, a(0), d)
			if err != nil {
				return err
			}
			r = qr[0]
			if n.Op == sym.OpRem {
				r = qr[1]
			}
		default:
			if _, ok := api.binary[n.Op]; !ok {
				return fmt.Errorf("smt: z3: cannot translate operation %v", n.Op)
			}
			r = p.op(n.Op, a(0), a(1))
		}
		if err := p.failed("translate "+n.Op.String(), r); err != nil {
			return err
		}
		p.asts[t] = r
	}
	return nil
}

// divrem returns the quotient and remainder of x / d, where x is the AST
// of args[0] and d != 0 is the constant args[1]. Z3 turns bvsdiv and bvsrem
// into divider circuits that make every check slow, so, as the builtin
// backend does, this defines them by fresh constants for the magnitudes,
// |x| = uq*|d| + ur without overflow and ur < |d|, with the signs of
// bvsdiv and bvsrem.
func (p *z3Part) divrem(args [3]sym.Term, x uintptr, d int64) ([2]uintptr, error) {
	k := [2]sym.Term{args[0], args[1]}
	if qr, ok := p.divs[k]; ok {
		return qr, nil
	}
	api, ctx := p.api, p.ctx
	ud := uint64(d)
	if d < 0 {
		ud = -ud
	}
	neg := p.op(sym.OpLt, x, p.constant(0))
	ux := api.mkIte(ctx, neg, api.mkBvneg(ctx, x), x)
	uq := api.mkFreshConst(ctx, "q", p.bv64)
	ur := api.mkFreshConst(ctx, "r", p.bv64)
	prod := p.op(sym.OpMul, uq, p.constant(int64(ud)))
	defs := []uintptr{
		api.mkBvule(ctx, uq, p.constant(int64(math.MaxUint64/ud))),
		api.mkBvult(ctx, ur, p.constant(int64(ud))),
		api.mkBvule(ctx, prod, api.mkBvnot(ctx, ur)),
		p.op(sym.OpEq, ux, p.op(sym.OpAdd, prod, ur)),
	}
	qNeg := neg
	if d < 0 {
		qNeg = api.mkNot(ctx, neg)
	}
	qr := [2]uintptr{
		api.mkIte(ctx, qNeg, api.mkBvneg(ctx, uq), uq),
		api.mkIte(ctx, neg, api.mkBvneg(ctx, ur), ur),
	}
	if err := p.failed("define division", append(defs, qr[:]...)...); err != nil {
		return qr, err
	}
	p.defs = append(p.defs, defs...)
	if p.divs == nil {
		p.divs = make(map[[2]sym.Term][2]uintptr)
	}
	p.divs[k] = qr
	return qr, nil
}

// constraint returns the Bool AST of c.
func (p *z3Part) constraint(c constraint) (uintptr, error) {
	x := p.vars[c.v]
	var r uintptr
	if c.lo == c.hi {
		r = p.op(sym.OpEq, x, p.constant(c.lo))
	} else {
		args := [2]uintptr{p.op(sym.OpLe, p.constant(c.lo), x), p.op(sym.OpLe, x, p.constant(c.hi))}
		r = p.api.mkAnd(p.ctx, 2, &args[0])
	}
	return r, p.failed("constraint", r)
}

func (p *z3Part) check(trial *constraint) (Result, []int64, error) {
	api, ctx := p.api, p.ctx
	var r int32
	if trial != nil {
		a, err := p.constraint(*trial)
		if err != nil {
			return Unknown, nil, err
		}
		r = api.solverCheckAssumptions(ctx, p.solver, 1, &a)
	} else {
		r = api.solverCheck(ctx, p.solver)
	}
	if err := p.failed("check"); err != nil {
		return Unknown, nil, err
	}
	switch r {
	case 1:
	case -1:
		return Unsat, nil, nil
	default:
		return Unknown, nil, nil
	}
	m := api.solverGetModel(ctx, p.solver)
	if err := p.failed("get model", m); err != nil {
		return Unknown, nil, err
	}
	api.modelIncRef(ctx, m)
	defer api.modelDecRef(ctx, m)
	vals := make([]int64, len(p.vars))
	for i, x := range p.vars {
		var v uintptr
		var u uint64
		if !api.modelEval(ctx, m, x, true, &v) || !api.getNumeralUint64(ctx, v, &u) {
			if err := p.failed("evaluate model"); err != nil {
				return Unknown, nil, err
			}
			return Unknown, nil, errors.New("smt: z3: model value is not a numeral")
		}
		vals[i] = int64(u)
	}
	return Sat, vals, nil
}

func (p *z3Part) fix(c constraint) error {
	a, err := p.constraint(c)
	if err != nil {
		return err
	}
	p.api.solverAssert(p.ctx, p.solver, a)
	return p.failed("assert")
}
