package chanprog

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The blocking detector's thresholds. A run is declared blocked when, at
// quietChecks consecutive checks spanning at least quietTime, every live
// goroutine waits in a channel operation or a join, no recorded wait could
// complete, and no goroutine took a step. A handoff in flight (the
// runtime has completed an operation but its goroutine has not yet run to
// say so) shows as a wait that could complete, or as a step, within
// microseconds; the quiet time is for the rest: a goroutine whose thread
// the OS paused right after a buffered operation. A check whose timer
// fired more than lateCheck late does not count: the process was starved,
// and so may have been the goroutines. After hardLimit the detector stops
// waiting for quiet: a run stuck by the analysis is blocked, any other is
// TimedOut.
const (
	firstCheck  = 50 * time.Microsecond // typical runs are over before it
	maxInterval = time.Millisecond
	quietChecks = 4
	quietTime   = 5 * time.Millisecond
	lateCheck   = 2 * time.Millisecond
	hardLimit   = 800 * time.Millisecond
)

// Failure is a panic or a failed assert of a goroutine of a real run.
type Failure struct {
	G      int    // the goroutine
	Assert bool   // a failed assert; else a panic
	Msg    string // the assert's message or the panic value, e.g. "close of closed channel"
}

func (f Failure) String() string {
	if f.Assert {
		return fmt.Sprintf("g%d: %s", f.G, f.Msg)
	}
	return fmt.Sprintf("g%d: panic: %s", f.G, f.Msg)
}

// Outcome is what one run of a program on real Go did.
//
// A real program dies at its first unrecovered panic; RunReal recovers
// every panic so as to end the run in order, and lets the other goroutines
// go on. What happened after the first failure is what no real program
// reaches and what weft does not explore (it ends an execution at its
// first bug), so the verdict of a run is its first failure (Failures[0])
// when there is one, and Deadlock or Leak only when there is none. The
// rest is kept to help read a run.
type Outcome struct {
	// Failures are the panics and failed asserts in the order the
	// goroutines recovered them; a goroutine ends at its failure.
	Failures []Failure
	// Panics and AssertFailed are the messages of Failures, split by kind.
	Panics       []string
	AssertFailed []string
	// Deadlock: the run ended with the body blocked forever (on a
	// channel or a join), and with it every goroutine still alive.
	Deadlock bool
	// Leak: the body ended, but goroutines are blocked forever.
	Leak bool
	// Blocked lists the goroutines blocked forever, ascending.
	Blocked []int
	// TimedOut: the run was abandoned after hardLimit without being
	// found blocked, which no program Generate makes should do unless the
	// process is starved; such a run says nothing.
	TimedOut bool
	Elapsed  time.Duration
}

// Verdict is the one-line summary of o by which runs compare: the first
// failure, "deadlock", "leak", "timeout" or "ok".
func (o Outcome) Verdict() string {
	switch {
	case len(o.Failures) > 0:
		f := o.Failures[0]
		if f.Assert {
			return "assert: " + f.Msg
		}
		return "panic: " + f.Msg
	case o.Deadlock:
		return "deadlock"
	case o.Leak:
		return "leak"
	case o.TimedOut:
		return "timeout"
	}
	return "ok"
}

func (o Outcome) String() string {
	var b strings.Builder
	b.WriteString(o.Verdict())
	if len(o.Blocked) > 0 {
		b.WriteString(" (blocked:")
		for _, g := range o.Blocked {
			fmt.Fprintf(&b, " g%d", g)
		}
		b.WriteString(")")
	}
	for _, f := range o.Failures[min(1, len(o.Failures)):] {
		fmt.Fprintf(&b, "; then %v", f)
	}
	return b.String()
}

// assertionFailure is the panic of a failed assert on real Go, told apart
// from the program's runtime errors by its type.
type assertionFailure struct{ msg string }

// abortSignal is the panic by which a goroutine of an abandoned run ends;
// it is not a failure of the program.
type abortSignal struct{}

// wait is one way a waiting goroutine can go on: a case on channel c
// (nilChan never), or the end of goroutine join when join >= 0.
type wait struct {
	c    int
	send bool
	join int
}

// realRun is the state of one RunReal.
type realRun struct {
	p        *Program
	chans    []chan int64 // nil for nil channels
	rchans   []reflect.Value
	xs       []atomic.Int64
	abort    chan struct{}
	done     []chan struct{} // closed when goroutine g ends
	finished chan struct{}   // closed when the last goroutine ends
	progress atomic.Uint64   // steps taken and waits completed
	yield    int             // out of 4: the chance of yielding at a step
	seed     uint64

	mu       sync.Mutex // guards the fields below
	live     int        // goroutines started and not ended
	blocked  int        // live goroutines with waits
	waits    [][]wait   // per goroutine, while it waits
	ended    []bool
	closed   []bool // channels closed (set once close returned)
	failures []Failure
}

// RunReal runs p once on real goroutines and channels and reports what
// happened. Every goroutine yields (runtime.Gosched) at random steps drawn
// from its own generator seeded by seed and its index, at a rate the seed
// also picks, so that runs are cheap and their schedules vary; the
// schedule still is Go's, so a seed does not replay a run. Selects are
// reflect.Select, which has Go's select semantics.
//
// Unlike a real main, the body returning does not end the run: the other
// goroutines run on, as under weft, and one blocked forever then is a
// leak. A run blocked forever is found by a detector (see the thresholds
// above), then abandoned: every waiting operation also waits on an abort
// channel, which the detector closes, and the goroutines end by a private
// panic that is not a failure. RunReal returns only after all the run's
// goroutines have ended.
//
// RunReal panics if p accesses Vars (plain memory: a data race on real Go
// is undefined behaviour, not an outcome).
func (p *Program) RunReal(seed uint64) Outcome {
	if p.UsesVars() {
		panic("chanprog: RunReal of a program with Var accesses")
	}
	start := time.Now()
	n := len(p.Goroutines)
	r := &realRun{
		p:        p,
		chans:    make([]chan int64, len(p.Chans)),
		rchans:   make([]reflect.Value, len(p.Chans)),
		xs:       make([]atomic.Int64, p.Atomics),
		abort:    make(chan struct{}),
		done:     make([]chan struct{}, n),
		finished: make(chan struct{}),
		seed:     seed,
		waits:    make([][]wait, n),
		ended:    make([]bool, n),
		closed:   make([]bool, len(p.Chans)),
	}
	r.yield = rand.New(rand.NewPCG(seed, 0x5eed)).IntN(4)
	for i, c := range p.Chans {
		if !c.Nil {
			r.chans[i] = make(chan int64, c.Cap)
		}
		r.rchans[i] = reflect.ValueOf(r.chans[i])
	}
	for g := range r.done {
		r.done[g] = make(chan struct{})
	}
	r.spawn(0)
	var o Outcome
	r.watch(start, &o)
	<-r.finished
	for _, f := range r.failures {
		o.Failures = append(o.Failures, f)
		if f.Assert {
			o.AssertFailed = append(o.AssertFailed, f.Msg)
		} else {
			o.Panics = append(o.Panics, f.Msg)
		}
	}
	o.Elapsed = time.Since(start)
	return o
}

// watch waits for the run to end, or finds it blocked or out of time,
// records that in o and aborts it.
func (r *realRun) watch(start time.Time, o *Outcome) {
	interval := firstCheck
	t := time.NewTimer(interval)
	defer t.Stop()
	asked := time.Now()
	quiet := 0
	var quietSince time.Time
	var last uint64
	for {
		select {
		case <-r.finished:
			return
		case <-t.C:
		}
		now := time.Now()
		late := now.Sub(asked) > interval+lateCheck
		stuck := r.stuck()
		pg := r.progress.Load()
		switch {
		case !stuck || late || pg != last:
			quiet = 0
		case quiet == 0:
			quiet, quietSince = 1, now
		default:
			quiet++
		}
		last = pg
		over := now.Sub(start) > hardLimit
		if quiet >= quietChecks && now.Sub(quietSince) >= quietTime || over && stuck {
			r.declareBlocked(o)
			return
		}
		if over {
			o.TimedOut = true
			close(r.abort)
			return
		}
		interval = min(2*interval, maxInterval)
		t.Reset(interval)
		asked = time.Now()
	}
}

// stuck reports whether every live goroutine waits and none of the waits
// could complete now: a stable state, unless a completed operation is
// not recorded yet.
func (r *realRun) stuck() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live == 0 || r.blocked < r.live {
		return false
	}
	for g, ws := range r.waits {
		for _, w := range ws {
			if r.couldGo(g, w) {
				return false
			}
		}
	}
	return true
}

// couldGo reports whether goroutine g's wait w could complete, given the
// other waits and the channels' states; r.mu is held.
func (r *realRun) couldGo(g int, w wait) bool {
	if w.join >= 0 {
		return r.ended[w.join]
	}
	if w.c == nilChan {
		return false
	}
	ch := r.chans[w.c]
	if r.closed[w.c] || w.send && len(ch) < cap(ch) || !w.send && len(ch) > 0 {
		return true
	}
	for h, ws := range r.waits {
		if h == g { // a select cannot pair its own send and receive
			continue
		}
		for _, v := range ws {
			if v.join < 0 && v.c == w.c && v.send != w.send {
				return true
			}
		}
	}
	return false
}

// declareBlocked records the blocked goroutines in o and aborts the run.
func (r *realRun) declareBlocked(o *Outcome) {
	r.mu.Lock()
	for g, ws := range r.waits {
		if ws != nil {
			o.Blocked = append(o.Blocked, g)
		}
	}
	if !r.ended[0] {
		o.Deadlock = true
	} else {
		o.Leak = true
	}
	r.mu.Unlock()
	close(r.abort)
}

// spawn starts goroutine g; it is live from now, so that the detector
// does not take a run whose goroutine has not started yet for blocked.
func (r *realRun) spawn(g int) {
	r.mu.Lock()
	r.live++
	r.mu.Unlock()
	go r.goroutine(g)
}

func (r *realRun) goroutine(g int) {
	defer r.exit(g)
	b := &realG{r: r, g: g, rng: rand.New(rand.NewPCG(r.seed, uint64(g)+1))}
	if g == 0 {
		for k := 1; k < len(r.p.Goroutines); k++ {
			b.step()
			r.spawn(k)
		}
	}
	if newMachine(r.p, g, b).run(r.p.Goroutines[g]) || g != 0 {
		return
	}
	for _, k := range r.p.Wait {
		b.join(k)
	}
}

// exit ends goroutine g, recording its failure if it panicked.
func (r *realRun) exit(g int) {
	v := recover()
	r.mu.Lock()
	switch v := v.(type) {
	case nil, abortSignal:
	case assertionFailure:
		r.failures = append(r.failures, Failure{G: g, Assert: true, Msg: v.msg})
	case runtime.Error:
		r.failures = append(r.failures, Failure{G: g, Msg: v.Error()})
	default:
		r.failures = append(r.failures, Failure{G: g, Msg: fmt.Sprint(v)})
	}
	if r.waits[g] != nil { // a panic in a wait: a send on a channel closed meanwhile, or the abort
		r.waits[g] = nil
		r.blocked--
	}
	r.ended[g] = true
	r.live--
	last := r.live == 0
	r.mu.Unlock()
	close(r.done[g])
	if last {
		close(r.finished)
	}
}

// realG is the backend of one goroutine of a real run.
type realG struct {
	r   *realRun
	g   int
	rng *rand.Rand
}

// step starts an operation: the goroutine ends if the run is abandoned,
// and may yield.
func (b *realG) step() {
	select {
	case <-b.r.abort:
		panic(abortSignal{})
	default:
	}
	b.r.progress.Add(1)
	if b.r.yield > 0 && b.rng.IntN(4) < b.r.yield {
		for range 1 + b.rng.IntN(3) {
			runtime.Gosched()
		}
	}
}

// waiting records that the goroutine is about to block on ws.
func (b *realG) waiting(ws []wait) {
	b.r.mu.Lock()
	b.r.waits[b.g] = ws
	b.r.blocked++
	b.r.mu.Unlock()
}

// woken records that the goroutine's wait is over.
func (b *realG) woken() {
	b.r.mu.Lock()
	b.r.waits[b.g] = nil
	b.r.blocked--
	b.r.mu.Unlock()
	b.r.progress.Add(1)
}

func (b *realG) ch(c int) chan int64 {
	if c == nilChan {
		return nil
	}
	return b.r.chans[c]
}

func (b *realG) send(c int, v int64) {
	b.step()
	ch := b.ch(c)
	select {
	case ch <- v:
		return
	default:
	}
	b.waiting([]wait{{c: c, send: true, join: -1}})
	select {
	case ch <- v:
	case <-b.r.abort:
		panic(abortSignal{})
	}
	b.woken()
}

func (b *realG) recv(c int) (int64, bool) {
	b.step()
	ch := b.ch(c)
	select {
	case v, ok := <-ch:
		return v, ok
	default:
	}
	b.waiting([]wait{{c: c, join: -1}})
	var v int64
	var ok bool
	select {
	case v, ok = <-ch:
	case <-b.r.abort:
		panic(abortSignal{})
	}
	b.woken()
	return v, ok
}

func (b *realG) close(c int) {
	b.step()
	close(b.ch(c))
	b.r.mu.Lock()
	b.r.closed[c] = true
	b.r.mu.Unlock()
}

func (b *realG) len(c int) int64 {
	b.step()
	return int64(len(b.ch(c)))
}

func (b *realG) sel(cases []selCase, hasDefault bool) (int, int64, bool) {
	b.step()
	rc := make([]reflect.SelectCase, len(cases)+1)
	for i, c := range cases {
		ch := reflect.ValueOf(b.ch(c.c))
		if c.c != nilChan {
			ch = b.r.rchans[c.c]
		}
		if c.send {
			rc[i] = reflect.SelectCase{Dir: reflect.SelectSend, Chan: ch, Send: reflect.ValueOf(c.v)}
		} else {
			rc[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: ch}
		}
	}
	n := len(cases)
	rc[n] = reflect.SelectCase{Dir: reflect.SelectDefault}
	i, v, ok := reflect.Select(rc)
	if i == n && !hasDefault {
		ws := make([]wait, n)
		for k, c := range cases {
			ws[k] = wait{c: c.c, send: c.send, join: -1}
		}
		rc[n] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(b.r.abort)}
		b.waiting(ws)
		i, v, ok = reflect.Select(rc)
		if i == n {
			panic(abortSignal{})
		}
		b.woken()
	}
	if i < n && !cases[i].send {
		return i, v.Int(), ok
	}
	return i, 0, false
}

// join waits for goroutine k to end: the body's wait, on a channel of the
// runner's own that the program cannot touch.
func (b *realG) join(k int) {
	b.step()
	select {
	case <-b.r.done[k]:
		return
	default:
	}
	b.waiting([]wait{{c: nilChan, join: k}})
	select {
	case <-b.r.done[k]:
	case <-b.r.abort:
		panic(abortSignal{})
	}
	b.woken()
}

func (b *realG) load(x int) int64 {
	b.step()
	return b.r.xs[x].Load()
}

func (b *realG) store(x int, v int64) {
	b.step()
	b.r.xs[x].Store(v)
}

func (b *realG) add(x int, v int64) int64 {
	b.step()
	return b.r.xs[x].Add(v)
}

func (b *realG) varLoad(int) int64   { panic("chanprog: Var access on real Go") }
func (b *realG) varStore(int, int64) { panic("chanprog: Var access on real Go") }

func (b *realG) assert(cond bool, msg string) {
	if !cond {
		panic(assertionFailure{msg})
	}
}
