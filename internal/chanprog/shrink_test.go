package chanprog

import "slices"

// shrink returns a program, made from p by simplifications, on which
// still holds (it must hold on p) and on none of whose one-step
// simplifications it does: it tries them in turn, keeps the first on
// which still holds, and starts again from it. A mismatch the oracle
// finds is then read on a few lines.
func shrink(p *Program, still func(*Program) bool) *Program {
	for {
		smaller := false
		for _, q := range variants(p) {
			if q.Validate() == nil && still(q) {
				p, smaller = q, true
				break
			}
		}
		if !smaller {
			return p
		}
	}
}

// variants returns the programs one step simpler than p: a goroutine, a
// wait, a statement, a select case or a default less, a branch or loop
// body in place of its statement, a plain operation in place of a select
// of one case or a range of one round, a loop shorter, a channel, an
// atomic or the variable less, a capacity smaller. They share what they
// do not change with p, which nothing modifies.
func variants(p *Program) []*Program {
	var out []*Program
	with := func(f func(q *Program)) {
		q := *p
		f(&q)
		out = append(out, &q)
	}
	for g := len(p.Goroutines) - 1; g >= 1; g-- {
		with(func(q *Program) { q.dropGoroutine(g) })
	}
	for i := range p.Wait {
		with(func(q *Program) { q.Wait = splice(p.Wait, i, nil) })
	}
	for g, ss := range p.Goroutines {
		for _, b := range blockVariants(ss) {
			with(func(q *Program) {
				q.Goroutines = slices.Clone(p.Goroutines)
				q.Goroutines[g] = b
			})
		}
	}
	for c := len(p.Chans) - 1; c >= 0; c-- {
		if !p.usesChan(c) {
			with(func(q *Program) { q.dropChan(c) })
		}
		if p.Chans[c].Cap > 0 {
			with(func(q *Program) {
				q.Chans = slices.Clone(p.Chans)
				q.Chans[c].Cap--
			})
		}
	}
	if p.Atomics > 0 && !p.usesAtomic(p.Atomics-1) {
		with(func(q *Program) { q.Atomics-- })
	}
	if p.Vars > 0 && !p.UsesVars() {
		with(func(q *Program) { q.Vars = 0 })
	}
	return out
}

// splice returns a new slice: s with s[i] replaced by r.
func splice[T any](s []T, i int, r []T) []T {
	return slices.Concat(s[:i], r, s[i+1:])
}

// blockVariants returns the blocks one step simpler than ss.
func blockVariants(ss []Stmt) [][]Stmt {
	var out [][]Stmt
	for i := range ss {
		out = append(out, splice(ss, i, nil))
		for _, r := range stmtVariants(&ss[i]) {
			out = append(out, splice(ss, i, r))
		}
	}
	return out
}

// stmtVariants returns what may replace s, one step simpler.
func stmtVariants(s *Stmt) [][]Stmt {
	var out [][]Stmt
	with := func(f func(t *Stmt)) {
		t := *s
		f(&t)
		out = append(out, []Stmt{t})
	}
	switch s.Kind {
	case If:
		out = append(out, s.Body, s.Else)
	case For:
		out = append(out, s.Body)
	case Range:
		if s.N == 1 {
			out = append(out, slices.Concat([]Stmt{{Kind: Recv, Chan: s.Chan, Reg: s.Reg, OK: true}}, s.Body))
		}
	case Select:
		if c := s.Cases; len(c) == 1 && !s.HasDefault {
			op := Stmt{Kind: Recv, Chan: c[0].Chan, Reg: c[0].Reg, OK: c[0].OK}
			if c[0].Send {
				op = Stmt{Kind: Send, Chan: c[0].Chan, Val: c[0].Val}
			}
			out = append(out, slices.Concat([]Stmt{op}, c[0].Body))
		}
		for i := range s.Cases {
			out = append(out, s.Cases[i].Body)
			if len(s.Cases) > 1 || s.HasDefault {
				with(func(t *Stmt) { t.Cases = splice(s.Cases, i, nil) })
			}
		}
		if s.HasDefault {
			out = append(out, s.Default)
			if len(s.Cases) > 0 {
				with(func(t *Stmt) { t.HasDefault, t.Default = false, nil })
			}
		}
	}
	if (s.Kind == For || s.Kind == Range) && s.N > 1 {
		with(func(t *Stmt) { t.N-- })
	}
	if s.Kind == Recv && s.OK {
		with(func(t *Stmt) { t.OK = false })
	}
	for _, b := range blockVariants(s.Body) {
		with(func(t *Stmt) { t.Body = b })
	}
	for _, b := range blockVariants(s.Else) {
		with(func(t *Stmt) { t.Else = b })
	}
	for _, b := range blockVariants(s.Default) {
		with(func(t *Stmt) { t.Default = b })
	}
	for i, c := range s.Cases {
		for _, b := range blockVariants(c.Body) {
			with(func(t *Stmt) {
				t.Cases = slices.Clone(s.Cases)
				t.Cases[i].Body = b
			})
		}
	}
	return out
}

// dropGoroutine removes goroutine g (not the body) and the body's wait
// for it, renumbering the goroutines after it.
func (p *Program) dropGoroutine(g int) {
	p.Goroutines = splice(p.Goroutines, g, nil)
	var wait []int
	for _, w := range p.Wait {
		switch {
		case w < g:
			wait = append(wait, w)
		case w > g:
			wait = append(wait, w-1)
		}
	}
	p.Wait = wait
}

// chanRefs calls f with a pointer to every channel index in ss.
func chanRefs(ss []Stmt, f func(*int)) {
	walk(ss, func(s *Stmt) {
		switch s.Kind {
		case Send, Recv, Close, Len, SetNil, Range:
			f(&s.Chan)
		case Select:
			for i := range s.Cases {
				f(&s.Cases[i].Chan)
			}
		}
	})
}

func (p *Program) usesChan(c int) bool {
	used := false
	for _, ss := range p.Goroutines {
		chanRefs(ss, func(x *int) { used = used || *x == c })
	}
	return used
}

// dropChan removes channel c, which no statement uses, renumbering the
// channels after it in copies of the goroutines.
func (p *Program) dropChan(c int) {
	p.Chans = splice(p.Chans, c, nil)
	gs := make([][]Stmt, len(p.Goroutines))
	for g, ss := range p.Goroutines {
		gs[g] = deepCopy(ss)
		chanRefs(gs[g], func(x *int) {
			if *x > c {
				*x--
			}
		})
	}
	p.Goroutines = gs
}

func (p *Program) usesAtomic(x int) bool {
	used := false
	for _, ss := range p.Goroutines {
		walk(ss, func(s *Stmt) {
			switch s.Kind {
			case Load, Store, Add:
				used = used || s.Obj == x
			case If, Assert:
				used = used || (s.Cond.Kind == AtomicEq || s.Cond.Kind == AtomicNe) && s.Cond.Obj == x
			}
		})
	}
	return used
}

// deepCopy returns a copy of ss that shares no slice with it.
func deepCopy(ss []Stmt) []Stmt {
	if ss == nil {
		return nil
	}
	out := make([]Stmt, len(ss))
	for i, s := range ss {
		s.Body, s.Else, s.Default = deepCopy(s.Body), deepCopy(s.Else), deepCopy(s.Default)
		s.Cases = slices.Clone(s.Cases)
		for j := range s.Cases {
			s.Cases[j].Body = deepCopy(s.Cases[j].Body)
		}
		out[i] = s
	}
	return out
}
