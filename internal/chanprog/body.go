package chanprog

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// Body returns the function that runs p under weft, through its public API
// only. Every call of the function makes the objects afresh, so that each
// execution starts from zero; nothing in it depends on anything but p and
// the results of weft's operations.
func (p *Program) Body() func() {
	return func() { p.run(p.newWeftObjects()) }
}

// newWeftObjects makes the objects of an execution of p.
func (p *Program) newWeftObjects() *weftObjects {
	w := &weftObjects{
		chans: make([]*weft.Chan[int64], len(p.Chans)),
		xs:    make([]atomic.Int64, p.Atomics),
		vs:    make([]weft.Var[int64], p.Vars),
	}
	for i, c := range p.Chans {
		if !c.Nil {
			w.chans[i] = weft.MakeChan[int64](c.Cap)
		}
	}
	return w
}

// run runs p's goroutines on w, the body's on the calling goroutine, and
// joins those p waits for.
func (p *Program) run(w *weftObjects) {
	gs := make([]*weft.Goroutine, len(p.Goroutines))
	for g := 1; g < len(p.Goroutines); g++ {
		gs[g] = weft.Go(func() { newMachine(p, g, w).run(p.Goroutines[g]) })
	}
	if newMachine(p, 0, w).run(p.Goroutines[0]) {
		return
	}
	for _, g := range p.Wait {
		gs[g].Join()
	}
}

// weftObjects is the backend of every goroutine of a run under weft: the
// goroutines' state lives in their machines, not here.
type weftObjects struct {
	chans []*weft.Chan[int64]
	xs    []atomic.Int64
	vs    []weft.Var[int64]
}

func (w *weftObjects) ch(c int) *weft.Chan[int64] {
	if c == nilChan {
		return nil
	}
	return w.chans[c]
}

func (w *weftObjects) send(c int, v int64)      { w.ch(c).Send(v) }
func (w *weftObjects) recv(c int) (int64, bool) { return w.ch(c).Recv() }
func (w *weftObjects) close(c int)              { w.ch(c).Close() }
func (w *weftObjects) len(c int) int64          { return int64(w.ch(c).Len()) }

func (w *weftObjects) sel(cases []selCase, hasDefault bool) (int, int64, bool) {
	var v int64
	var ok bool
	wc := make([]weft.SelectCase, len(cases), len(cases)+1)
	for i, c := range cases {
		if c.send {
			wc[i] = w.ch(c.c).SendCase(c.v)
		} else {
			wc[i] = w.ch(c.c).RecvCase(&v, &ok)
		}
	}
	if hasDefault {
		wc = append(wc, weft.Default())
	}
	return weft.Select(wc...), v, ok
}

func (w *weftObjects) load(x int) int64         { return w.xs[x].Load() }
func (w *weftObjects) store(x int, v int64)     { w.xs[x].Store(v) }
func (w *weftObjects) add(x int, v int64) int64 { return w.xs[x].Add(v) }
func (w *weftObjects) varLoad(v int) int64      { return w.vs[v].Load() }
func (w *weftObjects) varStore(v int, x int64)  { w.vs[v].Store(x) }
func (w *weftObjects) assert(cond bool, msg string) {
	weft.Assert(cond, "%s", msg)
}
