package runtime

import (
	"reflect"
	"sync"
	"unsafe"
)

// The package variables of code rewritten by weft test are state that every
// execution starts from: a map that one execution filled must be empty
// again in the next, or the second execution of a test that registers a
// name finds it registered. The rewritten packages register their
// variables (RegisterVars); a check takes a copy of them when it starts,
// puts it back before each execution, and once more when it ends, so that
// the code after it sees them as they were before it. Checks of such
// programs run one at a time, and with one worker: the variables are the
// process's, and two executions at once would share them.
var pkgVars struct {
	sync.Mutex
	ptrs []reflect.Value // pointers to the variables
	pkgs map[string]bool // the packages that registered them
	seen map[any]bool    // the pointers registered, once each
	held sync.Mutex      // held by the check that resets them
}

// RegisterVars registers package variables of the package pkg (a rewritten
// one), given as pointers, to be reset before each execution of a check.
func RegisterVars(pkg string, ptrs ...any) {
	pkgVars.Lock()
	defer pkgVars.Unlock()
	if pkgVars.pkgs == nil {
		pkgVars.pkgs = map[string]bool{}
		pkgVars.seen = map[any]bool{}
	}
	pkgVars.pkgs[pkg] = true
	for _, p := range ptrs {
		v := reflect.ValueOf(p)
		if v.Kind() != reflect.Pointer || v.IsNil() || pkgVars.seen[p] {
			continue
		}
		pkgVars.seen[p] = true
		pkgVars.ptrs = append(pkgVars.ptrs, v)
	}
}

// PackageState reports whether rewritten packages registered variables:
// their checks run with one worker.
func PackageState() bool {
	pkgVars.Lock()
	defer pkgVars.Unlock()
	return len(pkgVars.ptrs) > 0
}

// varsSnapshot is a copy of the registered variables.
type varsSnapshot struct {
	ptrs   []reflect.Value
	values []reflect.Value
	deep   func(reflect.Type) bool
}

// takeVars waits until no other check resets the variables, and returns a
// copy of them, nil when there are none.
func takeVars() *varsSnapshot {
	pkgVars.Lock()
	ptrs := pkgVars.ptrs[:len(pkgVars.ptrs):len(pkgVars.ptrs)]
	pkgs := make(map[string]bool, len(pkgVars.pkgs))
	for p := range pkgVars.pkgs {
		pkgs[p] = true
	}
	pkgVars.Unlock()
	if len(ptrs) == 0 {
		return nil
	}
	pkgVars.held.Lock()
	s := &varsSnapshot{ptrs: ptrs, deep: func(t reflect.Type) bool { return t.PkgPath() == "" || pkgs[t.PkgPath()] }}
	c := copier{deep: s.deep, seen: map[unsafe.Pointer]reflect.Value{}}
	for _, p := range ptrs {
		v := reflect.New(p.Type().Elem()).Elem()
		c.into(v, p.Elem())
		s.values = append(s.values, v)
	}
	return s
}

// restore puts a fresh copy of the snapshot into the variables.
func (s *varsSnapshot) restore() {
	c := copier{deep: s.deep, seen: map[unsafe.Pointer]reflect.Value{}}
	for i, p := range s.ptrs {
		c.into(settable(p.Elem()), s.values[i])
	}
}

// release restores the variables as they were when the check started and
// lets the next check take them.
func (s *varsSnapshot) release() {
	s.restore()
	pkgVars.held.Unlock()
}

// copier copies values deeply: maps, slices and what pointers to the
// rewritten packages' types (and to unnamed types) point to are copied,
// with the sharing among pointers kept; pointers to other packages' types
// (an *os.File, a *log.Logger) are shared, as copying what they point to
// could break them (a copied file closes its descriptor when collected).
type copier struct {
	deep func(reflect.Type) bool
	seen map[unsafe.Pointer]reflect.Value
}

// settable returns v, addressable, as a value that may be set even if it
// was reached through unexported fields.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// into sets dst, settable, to a deep copy of src.
func (c *copier) into(dst, src reflect.Value) {
	if !src.CanAddr() {
		tmp := reflect.New(src.Type()).Elem()
		tmp.Set(src)
		src = tmp
	}
	src = settable(src)
	switch src.Kind() {
	case reflect.Map:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(src.Type().Elem()).Elem()
			c.into(v, it.Value())
			m.SetMapIndex(it.Key(), v)
		}
		dst.Set(m)
	case reflect.Slice:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Cap())
		for i := range src.Len() {
			c.into(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			c.into(settable(dst.Index(i)), src.Index(i))
		}
	case reflect.Struct:
		for i := range src.NumField() {
			c.into(settable(dst.Field(i)), src.Field(i))
		}
	case reflect.Pointer:
		if src.IsNil() || !c.deep(src.Type().Elem()) {
			dst.Set(src)
			return
		}
		if p, ok := c.seen[src.UnsafePointer()]; ok {
			dst.Set(p)
			return
		}
		p := reflect.New(src.Type().Elem())
		c.seen[src.UnsafePointer()] = p
		c.into(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		v := reflect.New(src.Elem().Type()).Elem()
		c.into(v, src.Elem())
		dst.Set(v)
	default:
		dst.Set(src)
	}
}
