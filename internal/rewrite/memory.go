package rewrite

import (
	"go/ast"
	"go/build/constraint"
	"go/token"
	"go/types"
	"go/version"
)

// Plain memory that goroutines may share is race-checked, not interleaved
// (see weft/rewritten's Read): its accesses go through weft/rewritten.
//
//	x (read)                          weftrw.Read(&x)
//	x = v, x op= v, x++               *weftrw.Write(&x) = v, ...
//	x = f(), a, b = f()               weftrw.Set(&x)(f()), weftrw.Set2(&a, &b)(f()): the store checked after f
//	m[k], v, ok := m[k], range m, len(m)   weftrw.MapRead(m)[k], ...
//	m[k] = v, delete(m, k), clear(m)  weftrw.MapWrite(m)[k] = v, ...
//	for i, v := range s (a slice)     for i, v := range weftrw.Elems(s)
//	for k, v := range m               for k, v := range weftrw.MapRange(weftrw.MapRead(m)): in the keys' order
//
// What may be shared: package variables (of the packages rewritten), local
// variables that a function literal captures or whose address is taken,
// what a pointer points to (fields and elements through pointers, *p),
// slice elements, maps, and the fields and array elements of all of
// those. A field or array element is one access of its own, not a read of
// the whole variable. Not checked: the elements that append and copy
// write and read, assignments of range loops (for k, v = range),
// variables declared again by :=, and everything inside the packages
// that are not rewritten.

// access is what an expression's parent does with its value.
type access uint8

const (
	read      access = iota // its value is used
	path                    // it is the base of a field or element access, or its address is taken: not read as a whole
	unchecked               // not checked (see above)
	store                   // assigned: *weftrw.Write(&x) = v
	readWrite               // read and assigned: x op= v, x++
	target                  // an operand of a weftrw.Set of its statement
	mapRead                 // a map read by its parent
	mapWrite                // a map written by its parent
)

// memory registers the edits that check the accesses of plain memory of f.
// It runs after the other edits are registered, so that it knows the
// statements they rewrite.
func (r *rewriter) memory(f *ast.File) {
	m := &memPass{r: r, shared: map[*types.Var]bool{}, ctx: map[ast.Expr]access{}, sets: map[*ast.AssignStmt]bool{}, elems: map[*ast.RangeStmt]bool{},
		sorted: map[*ast.RangeStmt]bool{}}
	m.findShared(f)
	ast.Inspect(f, m.context)
	ast.Inspect(f, m.edit)
}

type memPass struct {
	r      *rewriter
	shared map[*types.Var]bool // the local variables that may be shared
	ctx    map[ast.Expr]access
	sets   map[*ast.AssignStmt]bool // assignments rewritten as weftrw.Set
	elems  map[*ast.RangeStmt]bool
	// sorted are the ranges over maps that use the keys or values, which
	// the rewrite ranges over in the keys' order (see weftrw.MapRange):
	// their map read nests in that edit, as the element reads of elems.
	sorted map[*ast.RangeStmt]bool
}

// rangesOverFuncs reports whether f's language version has range over
// functions (go1.23). The module's own version does not tell: the
// overlaid go.mod that requires weft raises it to weft's, which has them;
// but a //go:build go1.N line lowers the version of its file.
func rangesOverFuncs(f *ast.File) bool {
	v := ""
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if constraint.IsGoBuild(c.Text) {
				if x, err := constraint.Parse(c.Text); err == nil {
					if gv := constraint.GoVersion(x); gv != "" && (v == "" || version.Compare(gv, v) < 0) {
						v = gv
					}
				}
			}
		}
	}
	return v == "" || version.Compare(v, "go1.23") >= 0
}

// findShared finds the local variables that function literals capture or
// whose address is taken.
func (m *memPass) findShared(f *ast.File) {
	var lits []*ast.FuncLit
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
			ast.Inspect(n.Body, walk)
			lits = lits[:len(lits)-1]
			return false
		case *ast.Ident:
			if v := m.local(n); v != nil && len(lits) > 0 {
				lit := lits[len(lits)-1]
				if v.Pos() < lit.Pos() || v.Pos() >= lit.End() {
					m.shared[v] = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				m.addressed(n.X)
			}
		case *ast.SliceExpr:
			if _, ok := m.under(n.X).(*types.Array); ok {
				m.addressed(n.X)
			}
		case *ast.SelectorExpr:
			if sel := m.r.info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal && ptrRecv(sel) {
				if _, ptr := m.under(n.X).(*types.Pointer); !ptr {
					m.addressed(n.X) // x.M() is (&x).M()
				}
			}
		}
		return true
	}
	ast.Inspect(f, walk)
}

// addressed marks the local variable at the root of e as shared: its
// address is taken.
func (m *memPass) addressed(e ast.Expr) {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			if v := m.local(x); v != nil {
				m.shared[v] = true
			}
			return
		case *ast.SelectorExpr:
			if sel := m.r.info.Selections[x]; sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return
			}
			e = x.X
		case *ast.IndexExpr:
			if _, ok := m.under(x.X).(*types.Array); !ok {
				return
			}
			e = x.X
		default:
			return
		}
	}
}

// local returns the local variable that id uses, if it is one.
func (m *memPass) local(id *ast.Ident) *types.Var {
	v, ok := m.r.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || v.Parent() == nil {
		return nil
	}
	return v
}

func ptrRecv(sel *types.Selection) bool {
	sig, ok := sel.Obj().Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	_, ptr := sig.Recv().Type().(*types.Pointer)
	return ptr
}

func (m *memPass) under(e ast.Expr) types.Type {
	t := m.r.info.TypeOf(e)
	if t == nil {
		return nil
	}
	return t.Underlying()
}

func (m *memPass) set(e ast.Expr, a access) {
	if e != nil {
		m.ctx[e] = a
	}
}

// context records what each node does with its operands. ast.Inspect
// visits a node before its operands, so a node's own access is known when
// its operands' are decided.
func (m *memPass) context(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.ParenExpr:
		m.set(n.X, m.ctx[n])
	case *ast.AssignStmt:
		m.assign(n)
	case *ast.IncDecStmt:
		m.set(n.X, readWrite)
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			m.set(n.X, path)
		}
	case *ast.SelectorExpr:
		m.set(n.Sel, unchecked) // the name of a field or method, or pkg.V as a whole
		sel := m.r.info.Selections[n]
		if sel == nil {
			break
		}
		_, ptr := m.under(n.X).(*types.Pointer)
		switch {
		case sel.Kind() == types.FieldVal && !ptr:
			m.set(n.X, path)
		case sel.Kind() == types.MethodVal && ptrRecv(sel) && !ptr:
			m.set(n.X, path)
		case sel.Kind() == types.MethodExpr:
			m.set(n.X, unchecked)
		}
	case *ast.IndexExpr:
		switch m.under(n.X).(type) {
		case *types.Array:
			m.set(n.X, path)
		case *types.Map:
			if a := m.ctx[n]; a == store || a == readWrite {
				m.set(n.X, mapWrite)
			} else {
				m.set(n.X, mapRead)
			}
		}
	case *ast.SliceExpr:
		if _, ok := m.under(n.X).(*types.Array); ok {
			m.set(n.X, path)
		}
	case *ast.StarExpr:
		if m.r.info.Types[n].IsType() {
			return false
		}
	case *ast.RangeStmt:
		if n.Tok == token.ASSIGN {
			m.set(n.Key, unchecked)
			m.set(n.Value, unchecked)
		}
		switch m.under(n.X).(type) {
		case *types.Map:
			m.set(n.X, mapRead)
			if m.r.rangeFunc && (used(n.Key) || used(n.Value)) {
				m.sorted[n] = true
			}
		case *types.Slice:
			_, fresh := ast.Unparen(n.X).(*ast.CompositeLit)
			if used(n.Value) && !fresh && m.r.rangeFunc {
				m.elems[n] = true
			}
		case *types.Array, *types.Pointer:
			if n.Value == nil {
				// len(x) is constant: x is not evaluated.
				m.set(n.X, unchecked)
			}
		}
	case *ast.CallExpr:
		m.call(n)
	}
	return true
}

// call records what builtins do with their arguments.
func (m *memPass) call(c *ast.CallExpr) {
	tv := m.r.info.Types[c.Fun]
	if !tv.IsBuiltin() || len(c.Args) == 0 {
		return
	}
	id, ok := ast.Unparen(c.Fun).(*ast.Ident)
	if !ok {
		if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
			id = sel.Sel // unsafe.Sizeof...
		} else {
			return
		}
	}
	arg := c.Args[0]
	switch id.Name {
	case "len", "cap":
		switch m.under(arg).(type) {
		case *types.Map:
			m.set(arg, mapRead)
		case *types.Array, *types.Pointer:
			m.set(arg, unchecked) // maybe a constant
		}
	case "delete", "clear":
		if _, ok := m.under(arg).(*types.Map); ok {
			m.set(arg, mapWrite)
		}
	case "Sizeof", "Alignof", "Offsetof":
		for _, a := range c.Args {
			m.set(a, unchecked)
		}
	}
}

// assign records the accesses of an assignment's left side, and whether
// the statement becomes a weftrw.Set: its right side calls functions,
// whose synchronization may order the store, which must then be checked
// after them.
func (m *memPass) assign(a *ast.AssignStmt) {
	switch a.Tok {
	case token.DEFINE:
		for _, l := range a.Lhs {
			m.set(l, unchecked)
		}
		return
	case token.ASSIGN:
	default:
		m.set(a.Lhs[0], readWrite)
		return
	}
	setForm := !m.r.handled[a] && len(a.Lhs) <= 3 && m.calls(a.Rhs) && !m.commaOK(a)
	locs := false
	for _, l := range a.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == "_" {
			setForm = false
		}
		if m.mapIndex(l) {
			setForm = false
		}
		locs = locs || m.location(l)
	}
	if setForm && locs {
		m.sets[a] = true
		for _, l := range a.Lhs {
			m.set(l, target)
		}
		return
	}
	for _, l := range a.Lhs {
		m.set(l, store)
	}
}

// commaOK reports whether a is v, ok = x.(T) or v, ok = m[k], whose
// right side yields two values only in an assignment (a receive becomes a
// call that returns both).
func (m *memPass) commaOK(a *ast.AssignStmt) bool {
	if len(a.Lhs) != 2 || len(a.Rhs) != 1 {
		return false
	}
	_, assertion := ast.Unparen(a.Rhs[0]).(*ast.TypeAssertExpr)
	return assertion || m.mapIndex(a.Rhs[0])
}

// mapIndex reports whether e is an index expression of a map.
func (m *memPass) mapIndex(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	_, isMap := m.under(ix.X).(*types.Map)
	return isMap
}

// calls reports whether any of es calls a function or receives: what
// may synchronize.
func (m *memPass) calls(es []ast.Expr) bool {
	found := false
	for _, e := range es {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if tv := m.r.info.Types[n.Fun]; !tv.IsType() && !tv.IsBuiltin() {
					found = true
				}
			case *ast.UnaryExpr:
				found = found || n.Op == token.ARROW
			}
			return !found
		})
	}
	return found
}

// location reports whether e denotes plain memory that goroutines may
// share.
func (m *memPass) location(e ast.Expr) bool {
	info := m.r.info
	if tv := info.Types[e]; tv.Value != nil || tv.IsType() || tv.IsBuiltin() {
		return false
	}
	switch e := e.(type) {
	case *ast.Ident:
		return m.variable(e)
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		if sel == nil {
			return m.variable(e.Sel) // pkg.V
		}
		if sel.Kind() != types.FieldVal {
			return false
		}
		if _, ptr := m.under(e.X).(*types.Pointer); ptr || sel.Indirect() {
			return true
		}
		return m.location(ast.Unparen(e.X))
	case *ast.IndexExpr:
		switch m.under(e.X).(type) {
		case *types.Slice, *types.Pointer:
			return true
		case *types.Array:
			return m.location(ast.Unparen(e.X))
		}
	case *ast.StarExpr:
		return true
	}
	return false
}

// variable reports whether id uses a variable that goroutines may share:
// a package variable of a package rewritten, or a shared local.
func (m *memPass) variable(id *ast.Ident) bool {
	v, ok := m.r.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || id.Name == "_" {
		return false
	}
	if v.Parent() == v.Pkg().Scope() {
		return m.r.inside(v.Pkg().Path())
	}
	return m.shared[v]
}

// edit registers the edit of each access: the outer edit of a range first,
// so that an edit of the same range (the read of the variable) nests in
// it.
func (m *memPass) edit(n ast.Node) bool {
	r := m.r
	switch n := n.(type) {
	case *ast.AssignStmt:
		if m.sets[n] {
			m.setStmt(n)
		}
	case *ast.RangeStmt:
		if m.sorted[n] {
			r.use("weftrw")
			x := n.X
			r.replace(x.Pos(), x.End(), func() string {
				return r.out(x.Pos()).gen("weftrw.MapRange(").part(x).gen(")").String()
			})
		}
		if m.elems[n] {
			r.use("weftrw")
			x := n.X
			r.replace(x.Pos(), x.End(), func() string {
				return r.out(x.Pos()).gen("weftrw.Elems(").part(x).gen(")").String()
			})
		}
	case ast.Expr:
		m.access(n)
	}
	return true
}

// access registers the edit of expression e, if it accesses shared memory.
func (m *memPass) access(e ast.Expr) {
	r := m.r
	a := m.ctx[e]
	switch a {
	case mapRead, mapWrite:
		fn := "weftrw.MapRead("
		if a == mapWrite {
			fn = "weftrw.MapWrite("
		}
		r.use("weftrw")
		r.replace(e.Pos(), e.End(), func() string {
			return r.out(e.Pos()).gen(fn).part(e).gen(")").String()
		})
		a = read // the map variable itself is read
	case path, unchecked, target:
		return
	}
	if _, paren := e.(*ast.ParenExpr); paren || !m.location(e) {
		return
	}
	r.use("weftrw")
	switch a {
	case read:
		r.replace(e.Pos(), e.End(), func() string {
			return r.out(e.Pos()).gen("weftrw.Read(&").part(e).gen(")").String()
		})
	case store, readWrite:
		r.replace(e.Pos(), e.End(), func() string {
			return r.out(e.Pos()).gen("*weftrw.Write(&").part(e).gen(")").String()
		})
	}
}

// setStmt registers the edit of an assignment that becomes a weftrw.Set.
func (m *memPass) setStmt(a *ast.AssignStmt) {
	r := m.r
	r.use("weftrw")
	r.replace(a.Pos(), a.End(), func() string {
		o := r.out(a.Pos())
		switch len(a.Lhs) {
		case 1:
			o.gen("weftrw.Set(")
		default:
			o.gen("weftrw.Set" + string(rune('0'+len(a.Lhs))) + "(")
		}
		for i, l := range a.Lhs {
			if i > 0 {
				o.gen(", ")
			}
			o.gen("&").part(l)
		}
		o.gen(")(")
		for i, e := range a.Rhs {
			if i > 0 {
				o.gen(", ")
			}
			o.part(e)
		}
		return o.gen(")").String()
	})
}

// used reports whether e, a range loop's key or value, is used: given,
// and not the blank identifier.
func used(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return e != nil && (!ok || id.Name != "_")
}
