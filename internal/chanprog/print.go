package chanprog

import (
	"fmt"
	"strings"
)

// printer writes statements, in String's compact form or, when goSrc, as
// Go that compiles.
type printer struct {
	b      *strings.Builder
	depth  int
	goSrc  bool
	g      int      // the goroutine, for assert messages
	labels int      // labels made so far
	loops  []string // the labels of the enclosing loops, innermost last ("" when none)
}

func (w *printer) line(format string, args ...any) {
	for range w.depth {
		w.b.WriteByte('\t')
	}
	fmt.Fprintf(w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *printer) block(ss []Stmt) {
	w.depth++
	for i := range ss {
		w.stmt(&ss[i])
	}
	w.depth--
}

// recv writes the receiving part of a receive statement or case.
func recvText(c, reg int, ok bool) string {
	switch {
	case ok:
		return fmt.Sprintf("r%d, ok = <-c%d", reg, c)
	case reg >= 0:
		return fmt.Sprintf("r%d = <-c%d", reg, c)
	}
	return fmt.Sprintf("<-c%d", c)
}

// loop writes a loop whose header is head and whose body starts with the
// lines of pre, labelling it when a break or continue of its body needs
// the label to get past a select.
func (w *printer) loop(head string, pre func(), body []Stmt) {
	label := ""
	if w.goSrc && targetsLoop(body) {
		w.labels++
		label = fmt.Sprintf("L%d", w.labels)
		w.depth--
		w.line("%s:", label)
		w.depth++
	}
	w.line("%s {", head)
	w.loops = append(w.loops, label)
	w.depth++
	if pre != nil {
		pre()
	}
	w.depth--
	w.block(body)
	w.loops = w.loops[:len(w.loops)-1]
	w.line("}")
}

// targetsLoop reports whether a statement of ss breaks or continues the
// loop whose body ss is (not a loop nested in it).
func targetsLoop(ss []Stmt) bool {
	for i := range ss {
		s := &ss[i]
		switch s.Kind {
		case Break, Continue:
			return true
		case If:
			if targetsLoop(s.Body) || targetsLoop(s.Else) {
				return true
			}
		case Select:
			if targetsLoop(s.Default) {
				return true
			}
			for _, c := range s.Cases {
				if targetsLoop(c.Body) {
					return true
				}
			}
		}
	}
	return false
}

func (w *printer) jump(word string) {
	if w.goSrc && len(w.loops) > 0 && w.loops[len(w.loops)-1] != "" {
		w.line("%s %s", word, w.loops[len(w.loops)-1])
		return
	}
	w.line("%s", word)
}

func (w *printer) stmt(s *Stmt) {
	v := "v"
	if w.goSrc {
		v = "*v"
	}
	switch s.Kind {
	case Send:
		w.line("c%d <- %v", s.Chan, s.Val)
	case Recv:
		w.line("%s", recvText(s.Chan, s.Reg, s.OK))
	case Close:
		w.line("close(c%d)", s.Chan)
	case Len:
		if w.goSrc {
			w.line("r%d = int64(len(c%d))", s.Reg, s.Chan)
		} else {
			w.line("r%d = len(c%d)", s.Reg, s.Chan)
		}
	case SetNil:
		w.line("c%d = nil", s.Chan)
	case Select:
		w.line("select {")
		for _, c := range s.Cases {
			if c.Send {
				w.line("case c%d <- %v:", c.Chan, c.Val)
			} else {
				w.line("case %s:", recvText(c.Chan, c.Reg, c.OK))
			}
			w.block(c.Body)
		}
		if s.HasDefault {
			w.line("default:")
			w.block(s.Default)
		}
		w.line("}")
	case If:
		w.line("if %s {", s.Cond.String())
		w.block(s.Body)
		if len(s.Else) > 0 {
			w.line("} else {")
			w.block(s.Else)
		}
		w.line("}")
	case For:
		w.loop(fmt.Sprintf("for i := 0; i < %d; i++", s.N), nil, s.Body)
	case Range:
		w.loop(fmt.Sprintf("for i := 0; i < %d; i++", s.N), func() {
			w.line("r%d, ok = <-c%d", s.Reg, s.Chan)
			w.line("if !ok {")
			w.depth++
			w.line("break")
			w.depth--
			w.line("}")
		}, s.Body)
	case Break:
		w.jump("break")
	case Continue:
		w.jump("continue")
	case Return:
		w.line("return")
	case Assert:
		if w.goSrc {
			w.line("if !(%s) {", s.Cond.String())
			w.depth++
			w.line("panic(assertionFailure{%q})", assertMsg(w.g, s.Cond))
			w.depth--
			w.line("}")
		} else {
			w.line("assert(%s)", s.Cond.String())
		}
	case Load:
		w.line("r%d = x%d.Load()", s.Reg, s.Obj)
	case Store:
		w.line("x%d.Store(%v)", s.Obj, s.Val)
	case Add:
		w.line("r%d = x%d.Add(%v)", s.Reg, s.Obj, s.Val)
	case VarLoad:
		w.line("r%d = %s%d", s.Reg, v, s.Obj)
	case VarStore:
		w.line("%s%d = %v", v, s.Obj, s.Val)
	default:
		w.line("// %v", s.Kind)
	}
}

// assertMsg is the message of a failed assert, the same in every runner.
func assertMsg(g int, c Cond) string {
	return fmt.Sprintf("g%d: assert(%v) failed", g, c)
}

// GoSource returns p as a Go program (package main) that a person can read
// and run: main makes the objects, starts g1.. with go statements and
// calls g0, the body; each goroutine is a function whose parameters are
// its copies of the channels. A failed assert panics with an
// assertionFailure. When g0 returns, main waits up to a second for every
// goroutine and panics naming the leak if one is still blocked, since the
// checker keeps running the goroutines after the body returns where a real
// main would exit; a blocked g0 is Go's own "all goroutines are asleep"
// (when every goroutine is blocked). Var accesses are plain, racy int64s.
func (p *Program) GoSource() string {
	var b strings.Builder
	b.WriteString("// A channel program of weft's chanprog oracle.\npackage main\n\nimport (\n")
	if p.Atomics > 0 {
		b.WriteString("\t\"sync/atomic\"\n")
	}
	b.WriteString("\t\"time\"\n)\n\n")
	b.WriteString("// assertionFailure is the panic of a failed assert.\ntype assertionFailure struct{ msg string }\n\n")

	var params, args []string
	for i := range p.Chans {
		params = append(params, fmt.Sprintf("c%d", i))
		args = append(args, fmt.Sprintf("c%d", i))
	}
	params[len(params)-1] += " chan int64"
	for i := range p.Atomics {
		params = append(params, fmt.Sprintf("x%d *atomic.Int64", i))
		args = append(args, fmt.Sprintf("&x%d", i))
	}
	for i := range p.Vars {
		params = append(params, fmt.Sprintf("v%d *int64", i))
		args = append(args, fmt.Sprintf("&v%d", i))
	}

	b.WriteString("func main() {\n")
	for i, c := range p.Chans {
		if c.Nil {
			fmt.Fprintf(&b, "\tvar c%d chan int64 // nil\n", i)
		} else {
			fmt.Fprintf(&b, "\tc%d := make(chan int64, %d)\n", i, c.Cap)
		}
	}
	for i := range p.Atomics {
		fmt.Fprintf(&b, "\tvar x%d atomic.Int64\n", i)
	}
	for i := range p.Vars {
		fmt.Fprintf(&b, "\tvar v%d int64\n", i)
	}
	var dones []string
	for g := 1; g < len(p.Goroutines); g++ {
		dones = append(dones, fmt.Sprintf("done%d", g))
		fmt.Fprintf(&b, "\tdone%d := make(chan struct{})\n", g)
	}
	for g := 1; g < len(p.Goroutines); g++ {
		fmt.Fprintf(&b, "\tgo func() {\n\t\tdefer close(done%d)\n\t\tg%d(%s)\n\t}()\n", g, g, strings.Join(args, ", "))
	}
	fmt.Fprintf(&b, "\tg0(%s)\n", strings.Join(append(args, dones...), ", "))
	if len(dones) > 0 {
		b.WriteString("\t// The body returned. The checker runs the other goroutines on,\n\t// and one blocked forever is a leak.\n")
		fmt.Fprintf(&b, "\tfor _, done := range []chan struct{}{%s} {\n", strings.Join(dones, ", "))
		b.WriteString("\t\tselect {\n\t\tcase <-done:\n\t\tcase <-time.After(time.Second):\n\t\t\tpanic(\"leak: a goroutine is blocked forever\")\n\t\t}\n\t}\n")
	} else {
		b.WriteString("\t_ = time.Second\n")
	}
	b.WriteString("}\n")

	for g, ss := range p.Goroutines {
		ps := params
		if g == 0 && len(dones) > 0 {
			ps = append(append([]string(nil), params...), strings.Join(dones, ", ")+" chan struct{}")
		}
		fmt.Fprintf(&b, "\nfunc g%d(%s) {\n", g, strings.Join(ps, ", "))
		b.WriteString("\tvar r0, r1, r2 int64\n\tvar ok bool\n\t_, _, _, _ = r0, r1, r2, ok\n")
		w := &printer{b: &b, depth: 0, goSrc: true, g: g}
		w.block(ss)
		if g == 0 {
			for _, k := range p.Wait {
				fmt.Fprintf(&b, "\t<-done%d\n", k)
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}
