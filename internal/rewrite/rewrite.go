// Package rewrite turns type-checked Go source written with plain Go
// concurrency into source that runs under the checker, so that weft test can
// check a package's ordinary tests as they are written.
//
// What becomes what:
//
//	go f(x)                   { weft_a0 := x; weft.Go(func() { f(weft_a0) }) }  (the function value and arguments evaluated first, as go does)
//	go f()                    weft.Go(f)
//	go panic(e), go close(c)  { weft_a0 := e; weft.Go(func() { panic(weft_a0) }) }, ...: a builtin is called by name in the goroutine
//	chan T, <-chan T, chan<- T (in any position)   *weft.Chan[T]
//	type C chan T             type C = *weft.Chan[T]   (an alias, so that C keeps the methods of *weft.Chan)
//	type N chan T, with methods   type N struct{ *weft.Chan[T] }   (the channel's methods promoted; N(c) becomes (N{c}), n == nil n.Chan == nil)
//	make(chan T, n)           weft.MakeChan[T](n); make(C, n) for a named C: rewritten.Make[C](n); for an N with methods (N{rewritten.MakeLike((N{}).Chan, n)}); n as an int
//	c <- v                    c.Send(v)
//	<-c                       rewritten.Recv(c)
//	v, ok := <-c              v, ok := c.Recv()   (and v, ok = <-c, var v, ok = <-c)
//	close(c), len(c), cap(c)  c.Close(), c.Len(), c.Cap()
//	for v := range c          for v := range rewritten.Range(c)
//	select { ... }            switch weft_s0, ... := <cases>; weft.Select(...) { case 0: ... }
//	sync.Mutex, RWMutex, WaitGroup, Once, Cond, NewCond, Locker, Map, Pool   weft/sync's
//	sync.OnceFunc, OnceValue, OnceValues                             weft/sync's
//	atomic.Int32 ... atomic.Value (the types)                        weft/atomic's
//	atomic.AddInt32(&x, 1) ... (the functions)                       weft/atomic's, on the same plain variable
//	time.Now, Since, Until, Sleep, After, AfterFunc, Tick, NewTimer, NewTicker, Timer, Ticker   weft/time's
//	context.*                 weft/context's
//	runtime.Gosched()         weft.Yield()
//	signal.Notify, Stop, NotifyContext   rewritten.SignalNotify, ...: a check models no signals, none is sent
//	f(c), for f of a package not rewritten that takes (or returns) a channel   an error: it takes Go's channels
//	func TestXxx(t *testing.T) { body }   (in _test.go files)   func TestXxx(t *testing.T) { rewritten.Check(t, func() { body }) }: weft.Check, but a body in plain Go passes
//	t.Run(name, func(t *testing.T) { body })   (in a test)       t.Run(name, func(t *testing.T) { rewritten.Check(t, func() { body }) }), and the test is left as it is
//	t.Run(name, f)            rewritten.Run(t, name, f): f is checked as a body
//	t.Error(...), t.Errorf(...), t.Fail()  rewritten.Error(t, ...), ...: the failure of the execution, with its interleaving
//	t.Fatal(...), t.Fatalf(...), t.FailNow()  rewritten.Fatal(t, ...), ...: the same, its message the report's headline
//	t.Parallel() (not the first statement)  rewritten.Parallel(t): the test runs serially
//	func ExampleXxx() { body }  (in _test.go files)   func ExampleXxx() { rewritten.Example("ExampleXxx", func() { body }) }: the first execution's output is the example's
//
// A test, or a subtest given as a function literal, that calls t.Run
// itself is not checked as a body: its own code runs once, as plain Go
// (weft operations there panic, outside any check), and each of its
// subtests is checked as a body of its own; its t.Error and t.Parallel
// stay testing's. A leading t.Parallel() of a test or subtest stays
// outside its check, so that parallel subtests wait for their parent as
// testing wants, and their checks then run at once.
//
// A select's cases are evaluated once, in source order, in the init
// statement of the switch that replaces it; a receive case that assigns or
// declares what it received reads it from a rewritten.Received in its
// clause. A nil channel is a nil *weft.Chan, which behaves as Go's.
// Standard packages whose uses all became weft's stay imported blank; the
// names of the time package that do not touch the clock (Duration, Date,
// the units...) are left as they are.
//
// Positions: the rewritten source keeps every line of the original where
// it was, and where a rewrite moves code to another line (the cases of a
// select, the arguments of a multi-line go statement) it says where that
// code came from with a /*line file:line:col*/ directive, then where the
// original goes on. So reports, stacks and panics point at the user's
// file:line.
//
// What is not rewritten yet is an error that names the construct and its
// position, never left as it is: channel operations on values of
// type-parameter type, methods on generic channel types, defined types
// over named channel types, dot imports of the rewritten packages, and
// channels passed to or returned by the functions of packages that are
// not rewritten (outside the module: they take Go's channels). A
// value of a channel type with methods must be converted explicitly to
// or from another channel type (Go also assigns it implicitly to chan T;
// the rewritten struct is not, and the build fails there). A t.Run that a helper
// calls from inside a check is a Misuse bug when it runs: checks do not
// nest.
//
// Plain memory that goroutines may share is race-checked, not
// interleaved (memory.go says what becomes what). Packages adds to each
// package a file that registers its variables (weft/rewritten's Vars),
// which every execution starts from. Out of scope for now: dependencies
// outside the main module are rewritten only when Packages' extra
// patterns name them (a goroutine or channel inside the others runs as
// real Go); cgo files are left as they are; channels made at package
// initialization belong to no execution, so a package-level channel must
// be made inside the test.
package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Error is a construct the rewriter cannot rewrite yet.
type Error struct {
	Pos       token.Position
	Construct string // what it is, e.g. "sync.Map"
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s is not supported by weft test yet", e.Pos, e.Construct)
}

// Errors lists every construct of a package that could not be rewritten,
// in the order of their positions.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// The import paths of what rewritten code uses, and the names the rewritten
// files give them: a user's identifier with one of these names, or with
// the prefix of the temporaries (weft_), is an error rather than a
// silent capture.
var weftPkgs = map[string]string{
	"weft":        "weft.dev/weft",
	"weftsync":    "weft.dev/weft/sync",
	"weftatomic":  "weft.dev/weft/atomic",
	"wefttime":    "weft.dev/weft/time",
	"weftcontext": "weft.dev/weft/context",
	"weftrw":      "weft.dev/weft/rewritten",
}

const tempPrefix = "weft_"

// stdPkg says what the names of a standard package become.
type stdPkg struct {
	alias string // of the weft package in rewritten files
	// names maps a name to its counterpart in the weft package, or in
	// another when it is qualified (weftrw.SetFinalizer).
	names map[string]string
	// keep says that the names not in names stay the standard library's;
	// otherwise they are not supported yet.
	keep bool
}

func same(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = n
	}
	return m
}

var stdPkgs = map[string]stdPkg{
	"sync": {alias: "weftsync", names: same("Mutex", "RWMutex", "WaitGroup", "Once", "Cond", "NewCond", "Locker",
		"Map", "Pool", "OnceFunc", "OnceValue", "OnceValues")},
	"sync/atomic": {alias: "weftatomic", names: atomicNames()},
	"time": {alias: "wefttime", keep: true, names: same("Now", "Since", "Until", "Sleep", "After", "AfterFunc",
		"Tick", "NewTimer", "NewTicker", "Timer", "Ticker")},
	"context": {alias: "weftcontext", names: same("Context", "CancelFunc", "CancelCauseFunc", "Background", "TODO",
		"WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause",
		"WithValue", "WithoutCancel", "AfterFunc", "Cause", "Canceled", "DeadlineExceeded")},
	"runtime": {alias: "weft", keep: true, names: map[string]string{"Gosched": "Yield",
		"SetFinalizer": "weftrw.SetFinalizer", "AddCleanup": "weftrw.AddCleanup", "NumGoroutine": "weftrw.NumGoroutine"}},
	// Their numbers and orders, drawn at random in every run, are the
	// same in every execution of a check: see weft/rewritten.
	"math/rand":    {alias: "weftrw", keep: true, names: randNames(false)},
	"math/rand/v2": {alias: "weftrw", keep: true, names: randNames(true)},
	"maps":         {alias: "weftrw", keep: true, names: map[string]string{"All": "MapAll", "Keys": "MapKeys", "Values": "MapValues"}},
	"hash/maphash": {alias: "weftrw", keep: true, names: same("MakeSeed")},
	// A check models no signals: see weft/rewritten.
	"os/signal": {alias: "weftrw", keep: true, names: map[string]string{"Notify": "SignalNotify", "Stop": "SignalStop",
		"NotifyContext": "SignalNotifyContext"}},
}

// randNames are the top-level functions of math/rand, or of math/rand/v2,
// whose counterparts in weft/rewritten have the prefix Rand.
func randNames(v2 bool) map[string]string {
	names := []string{"Int", "Float64", "Float32", "ExpFloat64", "NormFloat64", "Perm", "Shuffle", "Uint32", "Uint64"}
	if v2 {
		names = append(names, "Int32", "Int32N", "Int64", "Int64N", "IntN", "N", "Uint", "Uint32N", "Uint64N", "UintN")
	} else {
		names = append(names, "Int31", "Int31n", "Int63", "Int63n", "Intn", "Read", "Seed")
	}
	m := map[string]string{}
	for _, n := range names {
		m[n] = "Rand" + n
	}
	return m
}

// atomicNames are the names of sync/atomic: its types, and its functions
// on plain variables.
func atomicNames() map[string]string {
	names := same("Int32", "Int64", "Uint32", "Uint64", "Uintptr", "Bool", "Pointer", "Value")
	for _, op := range []string{"Add", "And", "Or", "CompareAndSwap", "Load", "Store", "Swap"} {
		for _, t := range []string{"Int32", "Int64", "Uint32", "Uint64", "Uintptr", "Pointer"} {
			if t != "Pointer" || op != "Add" && op != "And" && op != "Or" {
				names[op+t] = op + t
			}
		}
	}
	return names
}

// File rewrites one type-checked file of a package whose types info has
// Types, Defs, Uses and Selections. name is the file's name, for the line
// directives; src its content, from which f was parsed with fset.
// rewritten says which packages are rewritten too (the file's own, those of
// its module it imports): the functions of the others take and return Go's
// channels, which the rewritten code does not have. It returns the
// rewritten source, or nil when the file needs no change.
func File(fset *token.FileSet, f *ast.File, name string, src []byte, info *types.Info, rewritten func(path string) bool) ([]byte, error) {
	r := &rewriter{fset: fset, tf: fset.File(f.Pos()), name: name, src: src, info: info, inside: rewritten,
		imports: map[string]bool{}, rendering: map[int]bool{}, rewritten: map[*ast.Ident]bool{}, handled: map[ast.Node]bool{}}
	r.file(f)
	if len(r.errs) > 0 {
		// Both a select and its receive report a channel of type
		// parameter type.
		sort.SliceStable(r.errs, func(i, j int) bool { return r.errs[i].Pos.Offset < r.errs[j].Pos.Offset })
		r.errs = slices.CompactFunc(r.errs, func(a, b *Error) bool { return *a == *b })
		return nil, r.errs
	}
	if len(r.edits) == 0 {
		return nil, nil
	}
	r.importEdits(f)
	sort.SliceStable(r.edits, func(i, j int) bool {
		a, b := r.edits[i], r.edits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		// Of two edits that start together, an insertion first, then the
		// outer.
		if ai, bi := a.start == a.end, b.start == b.end; ai || bi {
			return ai && !bi
		}
		return a.end > b.end
	})
	return []byte(r.text(0, len(src))), nil
}

// An edit replaces src[start:end] with what render returns; edits nested in
// an edit are applied only where its render asks for the text of a part
// of its range.
type edit struct {
	start, end int
	render     func() string
}

type rewriter struct {
	fset      *token.FileSet
	tf        *token.File
	name      string
	src       []byte
	info      *types.Info
	edits     []edit
	rendering map[int]bool // the edits being rendered, by index
	errs      Errors
	imports   map[string]bool        // aliases of weftPkgs the edits use
	rewritten map[*ast.Ident]bool    // uses of standard packages turned into weft's
	handled   map[ast.Node]bool      // nodes an enclosing construct rewrites
	inside    func(path string) bool // the packages rewritten
	isTest    bool                   // a _test.go file
	rangeFunc bool                   // the file's Go version has range over functions (see rangesOverFuncs)
	maxOK     bool                   // the file's Go version has the built-in max, which no name of the package hides
	subtests  map[*ast.FuncLit]bool  // the subtests given to t.Run as literals
}

func (r *rewriter) off(p token.Pos) int { return r.tf.Offset(p) }

func (r *rewriter) errorf(p token.Pos, format string, args ...any) {
	r.errs = append(r.errs, &Error{Pos: r.fset.Position(p), Construct: fmt.Sprintf(format, args...)})
}

// replace registers an edit of the range of n.
func (r *rewriter) replace(from, to token.Pos, render func() string) {
	r.edits = append(r.edits, edit{start: r.off(from), end: r.off(to), render: render})
}

// text returns src[from:to] with the edits within it applied, each
// followed by a line directive where its output does not end on the line
// its range ends on.
func (r *rewriter) text(from, to int) string {
	var b strings.Builder
	pos := from
	for i, e := range r.edits {
		if e.start < pos || e.end > to || r.rendering[i] {
			continue
		}
		// An insertion at the end of a part belongs to what follows it.
		if e.start == e.end && e.start == to && to != len(r.src) {
			continue
		}
		b.Write(r.src[pos:e.start])
		// The part of an edit may be its whole range, as for the
		// channel of a range statement, where an edit of the same range
		// may apply (for v := range <-cc).
		r.rendering[i] = true
		out := e.render()
		r.rendering[i] = false
		b.WriteString(out)
		if strings.Contains(out, "/*line ") || strings.Count(out, "\n") != bytes.Count(r.src[e.start:e.end], []byte("\n")) {
			b.WriteString(r.directive(e.end))
		}
		pos = e.end
	}
	b.Write(r.src[pos:to])
	return b.String()
}

// node returns the rewritten text of n.
func (r *rewriter) node(n ast.Node) string { return r.text(r.off(n.Pos()), r.off(n.End())) }

// directive returns the line directive that says that what follows is at
// offset off of the original file.
func (r *rewriter) directive(off int) string {
	p := r.tf.Position(r.tf.Pos(off))
	return fmt.Sprintf("/*line %s:%d:%d*/", r.name, p.Line, p.Column)
}

// out builds the output of an edit from generated text and the rewritten
// text of parts of the original, saying with a directive where a part
// came from when it does not land on its own line.
type out struct {
	r    *rewriter
	b    strings.Builder
	line int // the line of the original that the output is at
}

func (r *rewriter) out(start token.Pos) *out { return &out{r: r, line: r.tf.Line(start)} }

func (o *out) gen(s string) *out {
	o.b.WriteString(s)
	o.line += strings.Count(s, "\n")
	return o
}

// at says that what follows is at p, if the output is not on its line.
func (o *out) at(p token.Pos) *out {
	if l := o.r.tf.Line(p); l != o.line {
		o.b.WriteString(o.r.directive(o.r.off(p)))
		o.line = l
	}
	return o
}

func (o *out) part(n ast.Node) *out {
	if l := o.r.tf.Line(n.Pos()); l != o.line {
		o.b.WriteString(o.r.directive(o.r.off(n.Pos())))
	}
	o.b.WriteString(o.r.node(n))
	o.line = o.r.tf.Line(n.End())
	return o
}

// operand is part for the operand of a selector: parenthesized unless it
// binds tighter than the selector already.
func (o *out) operand(n ast.Node) *out {
	switch n.(type) {
	case *ast.UnaryExpr, *ast.BinaryExpr, *ast.StarExpr:
		o.gen("(").part(n).gen(")")
	default:
		o.part(n)
	}
	return o
}

// size writes the capacity of a make, which make takes of any integer
// type and weft.MakeChan as an int.
func (o *out) size(n ast.Expr) *out {
	if b, ok := o.r.info.TypeOf(n).(*types.Basic); ok && (b.Kind() == types.Int || b.Info()&types.IsUntyped != 0) {
		return o.part(n)
	}
	return o.gen("int(").part(n).gen(")")
}

func (o *out) String() string { return o.b.String() }

// use notes that the edits use the weft package imported as alias.
func (r *rewriter) use(alias string) { r.imports[alias] = true }

func (r *rewriter) file(f *ast.File) {
	r.isTest = strings.HasSuffix(r.name, "_test.go")
	r.rangeFunc = rangesOverFuncs(f)
	r.maxOK = r.builtinMax(f)
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := stdPkgs[path]; ok && imp.Name != nil && imp.Name.Name == "." {
			r.errorf(imp.Pos(), "a dot import of %q", path)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if _, clash := weftPkgs[id.Name]; clash || strings.HasPrefix(id.Name, tempPrefix) {
				r.errorf(id.Pos(), "the identifier %s (a name the rewrite gives its own)", id.Name)
			}
		}
		return true
	})
	r.subtests = map[*ast.FuncLit]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		switch {
		case !ok || !r.isTest:
		case r.isTestFunc(fd):
			r.testFunc(fd.Type.Params, fd.Body)
		case isExampleFunc(fd):
			r.use("weftrw")
			name := fd.Name.Name
			r.replace(fd.Body.Lbrace+1, fd.Body.Lbrace+1, func() string { return " weftrw.Example(" + strconv.Quote(name) + ", func() {" })
			r.replace(fd.Body.Rbrace, fd.Body.Rbrace, func() string { return "})" })
		}
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body == nil {
			r.linkedRand(f, fd)
		}
	}
	ast.Inspect(f, r.visit)
	r.memory(f)
}

// goleakChecks maps the functions of go.uber.org/goleak that look at every
// goroutine of the process to the helpers of weft/rewritten that call them
// outside checks only: inside one, they found the check's own goroutines,
// and weft finds the execution's leaks itself.
var goleakChecks = map[string]string{"VerifyNone": "OutsideOnly", "Find": "OutsideOnlyErr"}

// goleak makes a call of goleak.VerifyNone(t, opts...) or goleak.Find(opts...)
// weftrw.OutsideOnly(goleak.VerifyNone, t, opts...), or OutsideOnlyErr: its
// arguments are evaluated where they were (a deferred call's at the defer).
func (r *rewriter) goleak(call *ast.CallExpr) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	fn, ok := r.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "go.uber.org/goleak" {
		return
	}
	helper, ok := goleakChecks[fn.Name()]
	if !ok {
		return
	}
	sep := ", "
	if len(call.Args) == 0 {
		sep = ""
	}
	r.use("weftrw")
	r.replace(call.Fun.Pos(), call.Lparen+1, func() string {
		return r.out(call.Pos()).gen("weftrw." + helper + "(").part(call.Fun).gen(sep).String()
	})
}

// runtimeRand maps the runtime's random functions that code links to
// (go:linkname) to their counterparts in package rewritten.
var runtimeRand = map[string]string{
	"cheaprand": "Cheaprand", "cheaprand64": "Cheaprand64", "cheaprandn": "Cheaprandn",
	"fastrand": "Fastrand", "fastrandn": "Fastrandn", "fastrand64": "Fastrand64", "fastrandu": "Fastrandu",
}

// linkedRand gives fd, a function without a body, a body that calls the
// counterpart in package rewritten of the runtime's random function that a
// go:linkname directive of f links it to (see rewritten.Cheaprand), and
// drops the directive, and a go:noescape, which a function with a body
// cannot have. A function with an unnamed parameter, or more than one
// result, is left as it is.
func (r *rewriter) linkedRand(f *ast.File, fd *ast.FuncDecl) {
	var directive *ast.Comment
	helper := ""
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			fields := strings.Fields(c.Text)
			if len(fields) == 3 && fields[0] == "//go:linkname" && fields[1] == fd.Name.Name {
				if name, ok := strings.CutPrefix(fields[2], "runtime."); ok && runtimeRand[name] != "" {
					directive, helper = c, runtimeRand[name]
				}
			}
		}
	}
	results := fd.Type.Results
	if directive == nil || results == nil || len(results.List) != 1 || len(results.List[0].Names) > 1 {
		return
	}
	var args []string
	for _, p := range fd.Type.Params.List {
		if len(p.Names) == 0 {
			return
		}
		for _, n := range p.Names {
			args = append(args, n.Name)
		}
	}
	drop := func(c *ast.Comment) { r.replace(c.Pos(), c.End(), func() string { return "//" }) }
	drop(directive)
	if fd.Doc != nil {
		for _, c := range fd.Doc.List {
			if strings.HasPrefix(c.Text, "//go:noescape") {
				drop(c)
			}
		}
	}
	r.use("weftrw")
	end := fd.Type.End()
	r.replace(end, end, func() string {
		return " { return " + r.node(results.List[0].Type) + "(weftrw." + helper + "(" + strings.Join(args, ", ") + ")) }"
	})
}

// builtinMax says whether the built-in max can be used in f: its Go
// version has it (go1.21), and the package declares no max of its own.
func (r *rewriter) builtinMax(f *ast.File) bool {
	if v := r.info.FileVersions[f]; v != "" && version.Compare(v, "go1.21") < 0 {
		return false
	}
	for id := range r.info.Defs {
		if id.Name == "max" {
			return false
		}
	}
	return true
}

// padding keeps a constant A - B of an unsigned type, where B measures a
// type with unsafe.Sizeof, Alignof or Offsetof, from overflowing once the
// rewrite changed that type: the padding that fills a cache line
// ([cacheLineSize - unsafe.Sizeof(bucket{})]byte in puzpuzpuz/xsync, whose
// bucket holds a sync.Mutex, smaller than weft's) becomes max(A, B) - (B),
// of the same value for the types as they were, and 0 for rewritten ones
// that no longer fit. The measures themselves are those of the rewritten
// types, which the pointer arithmetic of such code needs.
func (r *rewriter) padding(n *ast.BinaryExpr) {
	if n.Op != token.SUB || !r.maxOK {
		return
	}
	tv, ok := r.info.Types[n]
	if !ok || tv.Value == nil {
		return
	}
	if b, ok := tv.Type.Underlying().(*types.Basic); !ok || b.Info()&types.IsUnsigned == 0 {
		return
	}
	if !r.measures(n.Y) {
		return
	}
	r.replace(n.Pos(), n.End(), func() string {
		return r.out(n.Pos()).gen("max(").part(n.X).gen(", ").part(n.Y).gen(") - (").part(n.Y).gen(")").String()
	})
}

// measures says whether e calls unsafe.Sizeof, Alignof or Offsetof.
func (r *rewriter) measures(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			var id *ast.Ident
			switch f := ast.Unparen(c.Fun).(type) {
			case *ast.SelectorExpr:
				id = f.Sel
			case *ast.Ident:
				id = f
			}
			if b, ok := r.info.Uses[id].(*types.Builtin); ok && b == types.Unsafe.Scope().Lookup(b.Name()) {
				found = true
			}
		}
		return !found
	})
	return found
}

// isTestFunc says whether fd is a test go test runs: func TestXxx(*testing.T).
func (r *rewriter) isTestFunc(fd *ast.FuncDecl) bool {
	name := fd.Name.Name
	if fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return false
	}
	if rest := name[len("Test"):]; rest != "" && rest[0] >= 'a' && rest[0] <= 'z' {
		return false
	}
	sig, ok := r.info.Defs[fd.Name].Type().(*types.Signature)
	return ok && sig.Params().Len() == 1 && sig.Results().Len() == 0 && isTestingT(sig.Params().At(0).Type())
}

// isExampleFunc says whether fd is an example go test may run: func
// ExampleXxx() in a test file.
func isExampleFunc(fd *ast.FuncDecl) bool {
	name := fd.Name.Name
	if fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(name, "Example") || fd.Type.TypeParams != nil {
		return false
	}
	if rest := name[len("Example"):]; rest != "" && rest[0] >= 'a' && rest[0] <= 'z' {
		return false
	}
	return fd.Type.Params.NumFields() == 0 && fd.Type.Results.NumFields() == 0
}

func isTestingT(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "testing" && n.Obj().Name() == "T"
}

// testFunc rewrites a test, or a subtest that t.Run is given as a
// function literal in a test: its body becomes the body of a weft.Check,
// unless it runs subtests itself. Then its own code runs once, as plain
// Go, and each subtest is checked as a body of its own: a check cannot
// run inside another, and a subtest that calls t.Parallel waits for its
// parent to return.
func (r *rewriter) testFunc(params *ast.FieldList, body *ast.BlockStmt) {
	runs := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && r.isTMethod(call, "Run") {
			runs = true
		}
		return !runs
	})
	if !runs {
		r.wrapTest(params, body)
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && r.subtests[lit] {
			return false // a body of its own
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if r.isTMethod(call, "Run") && len(call.Args) == 2 {
			if lit, ok := ast.Unparen(call.Args[1]).(*ast.FuncLit); ok {
				r.handled[call] = true
				r.subtests[lit] = true
				r.testFunc(lit.Type.Params, lit.Body)
			}
		}
		// Plain Go, outside any check: t.Parallel is testing's, and a
		// failure is the test's.
		for _, m := range []string{"Parallel", "Error", "Errorf", "Fail", "Fatal", "Fatalf", "FailNow", "Cleanup"} {
			if r.isTMethod(call, m) {
				r.handled[call] = true
			}
		}
		return true
	})
}

// wrapTest makes body the body of a weft.Check. A leading t.Parallel()
// stays outside: testing wants it called on the test's goroutine, and the
// test waits there for its parent (or for the other tests) to finish.
func (r *rewriter) wrapTest(params *ast.FieldList, body *ast.BlockStmt) {
	param := params.List[0]
	t := "weft_t"
	switch {
	case len(param.Names) == 0:
		r.replace(param.Type.Pos(), param.Type.Pos(), func() string { return t + " " })
	case param.Names[0].Name == "_":
		r.replace(param.Names[0].Pos(), param.Names[0].End(), func() string { return t })
	default:
		t = param.Names[0].Name
	}
	start, check := body.Lbrace+1, " weftrw.Check("+t+", func() {"
	if len(body.List) > 0 && r.isTCall(body.List[0], "Parallel") {
		r.handled[body.List[0].(*ast.ExprStmt).X] = true
		start, check = body.List[0].End(), ";"+check
	}
	r.use("weftrw")
	r.replace(start, start, func() string { return check })
	r.replace(body.Rbrace, body.Rbrace, func() string { return "})" })
}

// isTCall says whether s is a call of method name on a *testing.T.
func (r *rewriter) isTCall(s ast.Stmt, name string) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	return ok && r.isTMethod(call, name)
}

func (r *rewriter) isTMethod(call *ast.CallExpr, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && isTestingT(r.info.TypeOf(sel.X))
}

// chanOf returns the channel type of e's type, or nil; a type parameter
// whose core type is a channel is an error.
func (r *rewriter) chanOf(e ast.Expr) *types.Chan {
	t := r.info.TypeOf(e)
	if t == nil {
		return nil
	}
	if tp, ok := t.(*types.TypeParam); ok {
		if c, ok := coreType(tp).(*types.Chan); ok {
			r.errorf(e.Pos(), "a channel operation on a value of type parameter type %s", tp)
			return c
		}
		return nil
	}
	c, _ := t.Underlying().(*types.Chan)
	return c
}

// coreType returns the single underlying type of a type parameter's type
// set, or nil.
func coreType(tp *types.TypeParam) types.Type {
	var core types.Type
	iface := tp.Constraint().Underlying().(*types.Interface)
	for i := range iface.NumEmbeddeds() {
		u, ok := iface.EmbeddedType(i).(*types.Union)
		if !ok {
			continue
		}
		for j := range u.Len() {
			t := u.Term(j).Type().Underlying()
			if core != nil && !types.Identical(core, t) {
				return nil
			}
			core = t
		}
	}
	return core
}

func (r *rewriter) visit(n ast.Node) bool {
	if n == nil || r.handled[n] {
		return true
	}
	switch n := n.(type) {
	case *ast.GoStmt:
		r.goStmt(n)
	case *ast.SelectStmt:
		r.selectStmt(n)
	case *ast.SendStmt:
		r.chanOf(n.Chan)
		r.replace(n.Pos(), n.End(), func() string {
			return r.out(n.Pos()).operand(n.Chan).gen(".Send(").part(n.Value).gen(")").String()
		})
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			r.chanOf(n.X)
			r.use("weftrw")
			r.replace(n.Pos(), n.End(), func() string {
				return r.out(n.Pos()).gen("weftrw.Recv(").channel(n.X).gen(")").String()
			})
		}
	case *ast.AssignStmt:
		if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
			r.commaOK(n.Rhs[0])
		}
	case *ast.ValueSpec:
		if len(n.Names) == 2 && len(n.Values) == 1 {
			r.commaOK(n.Values[0])
		}
	case *ast.RangeStmt:
		if r.chanOf(n.X) != nil && !r.rangeFunc {
			r.errorf(n.For, "a range over a channel in a file whose Go version (its //go:build line) is below go1.23, which has no range over functions")
		} else if r.chanOf(n.X) != nil {
			r.use("weftrw")
			r.replace(n.X.Pos(), n.X.End(), func() string {
				return r.out(n.X.Pos()).gen("weftrw.Range(").channel(n.X).gen(")").String()
			})
		}
	case *ast.CallExpr:
		r.call(n)
	case *ast.BinaryExpr:
		r.compareNil(n)
		r.padding(n)
	case *ast.ChanType:
		r.use("weft")
		r.replace(n.Pos(), n.End(), func() string {
			return r.out(n.Pos()).gen("*weft.Chan[").part(n.Value).gen("]").String()
		})
	case *ast.TypeSpec:
		r.typeSpec(n)
	case *ast.SelectorExpr:
		r.selector(n)
	}
	return true
}

// commaOK rewrites the receive of v, ok := <-c (or =, or var).
func (r *rewriter) commaOK(e ast.Expr) {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return
	}
	r.handled[u] = true
	r.chanOf(u.X)
	r.replace(u.Pos(), u.End(), func() string {
		return r.out(u.Pos()).operand(u.X).gen(".Recv()").String()
	})
}

func (r *rewriter) call(call *ast.CallExpr) {
	for _, m := range []string{"Run", "Error", "Errorf", "Fail", "Fatal", "Fatalf", "FailNow", "Parallel", "Cleanup"} {
		if r.isTMethod(call, m) {
			// A failure that lets the test go on would be reported once
			// per execution, without its interleaving: it is a failure of
			// the execution. t.Fatal is one already, but its message went
			// to the test's log, once more for each replay of the
			// execution (its minimization, its trace): as a failure of
			// the execution, it is the report's headline. A subtest that is
			// not a literal of a test is checked by rewritten.Run. A
			// t.Parallel inside a check would wait for the parent test
			// outside any weft operation: rewritten.Parallel lets the
			// test run serially. A cleanup runs in each execution
			// (rewritten.Cleanup).
			x, sep := call.Fun.(*ast.SelectorExpr).X, ", "
			if len(call.Args) == 0 {
				sep = ""
			}
			r.use("weftrw")
			r.replace(call.Fun.Pos(), call.Lparen+1, func() string {
				return r.out(call.Pos()).gen("weftrw." + m + "(").part(x).gen(sep).String()
			})
		}
	}
	if tv := r.info.Types[call.Fun]; tv.IsType() && len(call.Args) == 1 {
		r.conversion(call, tv.Type)
		return
	}
	r.goleak(call)
	r.outsideChannels(call)
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return
	}
	if _, builtin := r.info.Uses[id].(*types.Builtin); !builtin || len(call.Args) == 0 {
		return
	}
	switch id.Name {
	case "make":
		if r.chanOf(call.Args[0]) == nil {
			return
		}
		typ := call.Args[0]
		if r.withMethods(typ) {
			// N{ch}, with ch of the element type of N's embedded channel.
			r.use("weftrw")
			r.replace(call.Pos(), call.End(), func() string {
				// Parenthesized: a composite literal may not stand bare in
				// the header of an if, for or switch.
				o := r.out(call.Pos()).gen("(").part(typ).gen("{weftrw.MakeLike((").part(typ).gen("{}).Chan, ")
				if len(call.Args) > 1 {
					o.size(call.Args[1])
				} else {
					o.gen("0")
				}
				return o.gen(")})").String()
			})
			return
		}
		_, lit := ast.Unparen(typ).(*ast.ChanType)
		if lit {
			r.use("weft")
		} else {
			r.use("weftrw")
		}
		r.replace(call.Pos(), call.End(), func() string {
			o := r.out(call.Pos())
			if ct, ok := ast.Unparen(typ).(*ast.ChanType); ok {
				o.gen("weft.MakeChan[").part(ct.Value).gen("](")
			} else {
				o.gen("weftrw.Make[").part(typ).gen("](")
			}
			if len(call.Args) > 1 {
				o.size(call.Args[1])
			} else {
				o.gen("0")
			}
			return o.gen(")").String()
		})
	case "close", "len", "cap":
		c := call.Args[0]
		if r.chanOf(c) == nil {
			return
		}
		method := map[string]string{"close": "Close", "len": "Len", "cap": "Cap"}[id.Name]
		r.replace(call.Pos(), call.End(), func() string {
			return r.out(call.Pos()).operand(c).gen("." + method + "()").String()
		})
	}
}

// outsideChannels reports a call of a function of a package that is not
// rewritten (nor one whose names become weft's) that takes or returns a
// channel: the rewritten code would hand it, or get from it, Go's
// channels where it has weft's, and the build would fail in the
// rewritten file (oklog/run's signal.Notify before os/signal was
// modelled). A context it takes or returns is converted between weft's
// and the standard library's (weft/rewritten's StdContext and
// WeftContext).
func (r *rewriter) outsideChannels(call *ast.CallExpr) {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || r.inside == nil || r.inside(fn.Pkg().Path()) {
		return
	}
	if _, modelled := stdPkgs[fn.Pkg().Path()]; modelled {
		return
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return
	}
	name := fn.Pkg().Name() + "." + fn.Name()
	if recv := sig.Recv(); recv != nil {
		name = fmt.Sprintf("(%s).%s", types.TypeString(recv.Type(), func(p *types.Package) string { return p.Name() }), fn.Name())
	}
	params := sig.Params()
	for i, a := range call.Args {
		if r.info.Types[a].IsNil() {
			continue
		}
		var t types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1 && !call.Ellipsis.IsValid():
			t = params.At(params.Len() - 1).Type().(*types.Slice).Elem()
		case i < params.Len():
			t = params.At(i).Type()
		default:
			continue
		}
		if hasChan(t, nil) {
			r.errorf(a.Pos(), "a channel passed to %s (of %s, which weft test does not rewrite: it takes Go channels)", name, fn.Pkg().Path())
		}
		if isStdContext(t) {
			// The rewritten code's contexts are weft's.
			r.use("weftrw")
			r.replace(a.Pos(), a.End(), func() string {
				return r.out(a.Pos()).gen("weftrw.StdContext(").part(a).gen(")").String()
			})
		}
		if isTestingT(r.info.TypeOf(a)) && reports(t) {
			// testify's assert.Equal(t, ...): its failures are the
			// execution's.
			r.use("weftrw")
			r.replace(a.Pos(), a.End(), func() string {
				return r.out(a.Pos()).gen("weftrw.Report(").part(a).gen(")").String()
			})
		}
	}
	for v := range sig.Results().Variables() {
		if hasChan(v.Type(), nil) {
			r.errorf(call.Pos(), "a channel returned by %s (of %s, which weft test does not rewrite: it returns Go channels)", name, fn.Pkg().Path())
			break
		}
	}
	if sig.Results().Len() == 1 && isStdContext(sig.Results().At(0).Type()) {
		r.use("weftrw")
		r.replace(call.Pos(), call.End(), func() string {
			return r.out(call.Pos()).gen("weftrw.WeftContext(").part(call).gen(")").String()
		})
	}
}

// reports says whether t is an interface through which a failure is
// reported (testify's TestingT, testing.TB): a *testing.T passed as one is
// wrapped in a weftrw.Reporter.
func reports(t types.Type) bool {
	if _, isParam := t.(*types.TypeParam); isParam {
		return false
	}
	iface, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range iface.NumMethods() {
		switch iface.Method(i).Name() {
		case "Error", "Errorf", "Fail", "FailNow", "Fatal", "Fatalf":
			return true
		}
	}
	return false
}

// isStdContext says whether t is the standard library's context.Context,
// which the rewritten code's contexts, weft's, are not.
func isStdContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// hasChan says whether t is a channel type, or a type made of one without
// a name of its own (a slice of channels, a func that takes one...).
func hasChan(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	switch u := t.(type) {
	case *types.Chan:
		return true
	case *types.Named:
		_, isChan := u.Underlying().(*types.Chan)
		return isChan
	case *types.Alias:
		return hasChan(types.Unalias(u), seen)
	case *types.Pointer:
		return hasChan(u.Elem(), seen)
	case *types.Slice:
		return hasChan(u.Elem(), seen)
	case *types.Array:
		return hasChan(u.Elem(), seen)
	case *types.Map:
		return hasChan(u.Key(), seen) || hasChan(u.Elem(), seen)
	case *types.Signature:
		if seen == nil {
			seen = map[types.Type]bool{}
		}
		seen[t] = true
		for _, tup := range []*types.Tuple{u.Params(), u.Results()} {
			for v := range tup.Variables() {
				if hasChan(v.Type(), seen) {
					return true
				}
			}
		}
	}
	return false
}

// compareNil makes n == nil, for n of a named channel type with methods,
// n.Chan == nil.
func (r *rewriter) compareNil(b *ast.BinaryExpr) {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return
	}
	for _, side := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		c, other := side[0], side[1]
		if r.withMethods(c) && r.info.Types[other].IsNil() {
			r.replace(c.Pos(), c.End(), func() string { return r.out(c.Pos()).channel(c).String() })
			return
		}
	}
}

// conversion rewrites a conversion to or from a named channel type with
// methods, a struct once rewritten: N(c) becomes (N{c}), N(nil) (N{}),
// and a conversion of n of type N to another channel type n.Chan.
func (r *rewriter) conversion(call *ast.CallExpr, to types.Type) {
	x := call.Args[0]
	from := r.info.TypeOf(x)
	switch {
	case r.hasMethods(to) && r.info.Types[x].IsNil():
		r.replace(call.Pos(), call.End(), func() string {
			return r.out(call.Pos()).gen("(").part(call.Fun).gen("{})").String()
		})
	case r.hasMethods(to) && !types.Identical(to, from):
		r.replace(call.Pos(), call.End(), func() string {
			return r.out(call.Pos()).gen("(").part(call.Fun).gen("{").part(x).gen("})").String()
		})
	case r.hasMethods(from) && !types.Identical(to, from):
		r.replace(call.Pos(), call.End(), func() string {
			return r.out(call.Pos()).channel(x).String()
		})
	}
}

// typeSpec makes a named channel type an alias of its *weft.Chan, whose
// methods a defined type would not have.
func (r *rewriter) typeSpec(ts *ast.TypeSpec) {
	if ts.Assign.IsValid() {
		return
	}
	obj := r.info.Defs[ts.Name]
	if obj == nil {
		return
	}
	if _, isChan := obj.Type().Underlying().(*types.Chan); !isChan {
		return
	}
	if _, lit := ast.Unparen(ts.Type).(*ast.ChanType); !lit {
		r.errorf(ts.Pos(), "the defined type %s over the named channel type %s", ts.Name.Name, r.info.TypeOf(ts.Type))
		return
	}
	if n, ok := obj.Type().(*types.Named); ok && n.NumMethods() > 0 {
		// A defined type over *weft.Chan could have no methods (its
		// underlying type is a pointer): the channel is embedded, and
		// its methods are promoted.
		if ts.TypeParams != nil {
			r.errorf(ts.Pos(), "methods on the generic channel type %s", ts.Name.Name)
			return
		}
		r.replace(ts.Type.Pos(), ts.Type.End(), func() string { return "struct{ " + r.node(ts.Type) + " }" })
		return
	}
	r.replace(ts.Type.Pos(), ts.Type.Pos(), func() string { return "= " })
}

// withMethods says whether e is of a named channel type with methods,
// which the rewrite makes a struct that embeds its *weft.Chan.
func (r *rewriter) withMethods(e ast.Expr) bool {
	return r.hasMethods(r.info.TypeOf(e))
}

func (r *rewriter) hasMethods(t types.Type) bool {
	n, ok := t.(*types.Named)
	if !ok || n.NumMethods() == 0 {
		return false
	}
	_, isChan := n.Underlying().(*types.Chan)
	return isChan
}

// channel writes c as the *weft.Chan that the generic helpers of
// weft/rewritten take: the embedded channel of a type with methods.
func (o *out) channel(c ast.Expr) *out {
	if o.r.withMethods(c) {
		return o.operand(c).gen(".Chan")
	}
	return o.part(c)
}

// selector rewrites a use of a name of a standard package that weft
// models.
func (r *rewriter) selector(sel *ast.SelectorExpr) {
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return
	}
	pn, ok := r.info.Uses[id].(*types.PkgName)
	if !ok {
		return
	}
	path := pn.Imported().Path()
	std, ok := stdPkgs[path]
	if !ok {
		return
	}
	name, ok := std.names[sel.Sel.Name]
	if !ok {
		if !std.keep {
			r.errorf(sel.Pos(), "%s.%s", path, sel.Sel.Name)
		}
		return
	}
	alias := std.alias
	if a, n, ok := strings.Cut(name, "."); ok {
		alias, name = a, n
	}
	r.rewritten[id] = true
	r.use(alias)
	r.replace(sel.Pos(), sel.End(), func() string { return alias + "." + name })
}

// goStmt makes go f(x) weft.Go(func() { f(x) }), with the function value
// and the arguments evaluated before, as go evaluates them.
func (r *rewriter) goStmt(g *ast.GoStmt) {
	call := g.Call
	fun := ast.Unparen(call.Fun)
	tv := r.info.Types[call.Fun]
	// A builtin is no function value: it is called by name inside the
	// goroutine, on its arguments evaluated before (go panic(e), go
	// close(c)).
	builtin := tv.IsBuiltin()
	sig, _ := tv.Type.Underlying().(*types.Signature)
	r.use("weft")
	if !builtin && len(call.Args) == 0 && sig != nil && sig.Results().Len() == 0 {
		// weft.Go(f) evaluates f now, as go f() does.
		r.replace(g.Pos(), g.End(), func() string {
			return r.out(g.Pos()).gen("weft.Go(").part(call.Fun).gen(")").String()
		})
		return
	}
	// A function that needs no evaluation stays where it is; a generic
	// one could not be stored without its instantiation.
	static := builtin || r.isStatic(fun)
	id, _ := fun.(*ast.Ident)
	closeChan := builtin && id != nil && id.Name == "close" && len(call.Args) == 1 && r.chanOf(call.Args[0]) != nil
	var temps []ast.Expr
	var tempName []string
	if !static {
		temps, tempName = append(temps, call.Fun), append(tempName, tempPrefix+"f")
	}
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		atv := r.info.Types[a]
		if atv.Value != nil || atv.IsNil() {
			args[i] = "" // a constant, written where it was
			continue
		}
		args[i] = fmt.Sprintf("%sa%d", tempPrefix, i)
		temps, tempName = append(temps, a), append(tempName, args[i])
	}
	r.replace(g.Pos(), g.End(), func() string {
		o := r.out(g.Pos()).gen("{ ")
		if len(temps) > 0 {
			o.gen(strings.Join(tempName, ", ") + " := ")
			for i, t := range temps {
				if i > 0 {
					o.gen(", ")
				}
				o.part(t)
			}
			o.gen("; ")
		}
		o.at(g.Pos()).gen("weft.Go(func() { ")
		if closeChan {
			return o.gen(args[0] + ".Close() }) }").String()
		}
		if static {
			o.part(call.Fun)
		} else {
			o.gen(tempPrefix + "f")
		}
		o.gen("(")
		for i, a := range call.Args {
			if i > 0 {
				o.gen(", ")
			}
			if args[i] == "" {
				o.part(a)
			} else {
				o.gen(args[i])
			}
		}
		if call.Ellipsis.IsValid() {
			o.gen("...")
		}
		return o.gen(") }) }").String()
	})
}

// isStatic says whether a function expression denotes a function declared
// at package level or a method expression: nothing to evaluate.
func (r *rewriter) isStatic(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.IndexExpr:
		return r.isStatic(f.X)
	case *ast.IndexListExpr:
		return r.isStatic(f.X)
	case *ast.Ident:
		fn, ok := r.info.Uses[f].(*types.Func)
		return ok && fn.Parent() == fn.Pkg().Scope()
	case *ast.SelectorExpr:
		if s, ok := r.info.Selections[f]; ok {
			return s.Kind() == types.MethodExpr
		}
		_, ok := r.info.Uses[f.Sel].(*types.Func) // pkg.F
		return ok
	}
	return false
}

// selectStmt makes a select a switch on weft.Select, its cases evaluated
// in order in the switch's init statement.
func (r *rewriter) selectStmt(s *ast.SelectStmt) {
	r.use("weft")
	if len(s.Body.List) == 0 {
		// A loop, as select {} is a terminating statement: the select
		// blocks forever.
		r.replace(s.Pos(), s.End(), func() string { return "for { weft.Select() }" })
		return
	}
	clauses := make([]*ast.CommClause, len(s.Body.List))
	for i, c := range s.Body.List {
		clauses[i] = c.(*ast.CommClause)
	}
	// What each clause's comm statement is.
	type comm struct {
		ch, val ast.Expr   // channel, and value sent
		lhs     []ast.Expr // what a receive assigns or declares
		define  bool
	}
	comms := make([]comm, len(clauses))
	for i, c := range clauses {
		var k comm
		// The select rewrites its comm statements: their receives and
		// sends are not operations of their own.
		r.handled[c.Comm] = true
		switch st := c.Comm.(type) {
		case nil:
			continue
		case *ast.SendStmt:
			k.ch, k.val = st.Chan, st.Value
		case *ast.ExprStmt:
			u := ast.Unparen(st.X).(*ast.UnaryExpr)
			r.handled[u] = true
			k.ch = u.X
		case *ast.AssignStmt:
			u := ast.Unparen(st.Rhs[0]).(*ast.UnaryExpr)
			r.handled[u] = true
			k.ch = u.X
			k.lhs, k.define = st.Lhs, st.Tok == token.DEFINE
		}
		r.chanOf(k.ch)
		comms[i] = k
	}
	hasTemps := slices.ContainsFunc(comms, func(k comm) bool { return k.ch != nil })
	if slices.ContainsFunc(comms, func(k comm) bool { return k.lhs != nil }) {
		r.use("weftrw")
	}
	r.replace(s.Select, s.Body.Lbrace+1, func() string {
		o := r.out(s.Pos()).gen("switch ")
		var names, args []string
		for i, k := range comms {
			if k.ch == nil {
				args = append(args, "weft.Default()")
				continue
			}
			name := fmt.Sprintf("%ss%d", tempPrefix, i)
			names = append(names, name)
			if k.lhs != nil {
				args = append(args, name+".Case()")
			} else {
				args = append(args, name)
			}
		}
		if hasTemps {
			o.gen(strings.Join(names, ", ") + " := ")
			first := true
			for _, k := range comms {
				if k.ch == nil {
					continue
				}
				if !first {
					o.gen(", ")
				}
				first = false
				switch {
				case k.val != nil:
					o.operand(k.ch).gen(".SendCase(").part(k.val).gen(")")
				case k.lhs != nil:
					o.gen("weftrw.Receive(").channel(k.ch).gen(")")
				default:
					o.operand(k.ch).gen(".RecvCase(nil, nil)")
				}
			}
			o.gen("; ")
		}
		// The select is where its keyword is, not where its last case is.
		return o.at(s.Pos()).gen("weft.Select(" + strings.Join(args, ", ") + ") {").String()
	})
	for i, c := range clauses {
		k := comms[i]
		r.replace(c.Case, c.Colon+1, func() string {
			// The last case is the default of the switch, so that the
			// switch is a terminating statement where the select was.
			o := r.out(c.Case)
			if i == len(clauses)-1 {
				o.gen("default:")
			} else {
				o.gen(fmt.Sprintf("case %d:", i))
			}
			if len(k.lhs) == 0 {
				return o.String()
			}
			name := fmt.Sprintf("%ss%d", tempPrefix, i)
			o.gen(" ")
			for j, l := range k.lhs {
				if j > 0 {
					o.gen(", ")
				}
				o.part(l)
			}
			if k.define {
				o.gen(" := ")
			} else {
				o.gen(" = ")
			}
			o.gen(name + ".V")
			if len(k.lhs) == 2 {
				o.gen(", " + name + ".OK")
			}
			return o.gen(";").String()
		})
	}
}

// importEdits adds the imports of the weft packages the edits use after
// the package clause, on its line, and makes blank the imports of
// standard packages whose every use became weft's.
func (r *rewriter) importEdits(f *ast.File) {
	left := map[*types.PkgName]bool{}
	for id, obj := range r.info.Uses {
		if pn, ok := obj.(*types.PkgName); ok && !r.rewritten[id] && id.Pos() >= f.Pos() && id.Pos() <= f.End() {
			left[pn] = true
		}
	}
	for _, imp := range f.Imports {
		pn := r.info.PkgNameOf(imp)
		if pn == nil || left[pn] || imp.Name != nil && imp.Name.Name == "_" {
			continue
		}
		if _, ok := stdPkgs[pn.Imported().Path()]; !ok {
			continue
		}
		r.replace(imp.Pos(), imp.End(), func() string { return "_ " + imp.Path.Value })
	}
	aliases := slices.Sorted(func(yield func(string) bool) {
		for a := range r.imports {
			if !yield(a) {
				return
			}
		}
	})
	specs := make([]string, len(aliases))
	for i, a := range aliases {
		specs[i] = a + " " + strconv.Quote(weftPkgs[a])
	}
	r.replace(f.Name.End(), f.Name.End(), func() string { return "; import (" + strings.Join(specs, "; ") + ")" })
}
