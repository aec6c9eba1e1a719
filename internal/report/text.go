package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text renders t as a table with one column per goroutine and one row per
// operation in execution order, each cell giving the operation and its
// file:line; repeated iterations of a loop are collapsed into one note.
// Below the table come the goroutines that had not finished, the objects,
// and whether the execution was minimized.
func Text(t *Trace) string {
	var b strings.Builder
	tab := newTable(t)
	tab.write(&b, t)
	if m := t.Minimized; m != nil {
		fmt.Fprintf(&b, "minimized: this execution has %s, the one found had %d\n", plural(m.Switches, "goroutine switch", "goroutine switches"), m.Original)
	}
	stuck := t.Bug.Kind == "deadlock" || t.Bug.Kind == "goroutine leak"
	// The goroutines that did not finish, those that wait in the same
	// operation at the same place on one line (conc's 100 goroutines of a
	// WaitGroup test that had not run yet).
	type wait struct {
		ids       []int
		one, many string // what they do, for one goroutine and for several
	}
	var waits []*wait
	byWhat := map[string]*wait{}
	for _, g := range t.Goroutines {
		at := ""
		if g.WaitPos != "" {
			at = " at " + g.WaitPos
		}
		var one, many string
		switch {
		case g.State == "blocked":
			one, many = "is blocked forever by a failed assume"+at, "are blocked forever by a failed assume"+at
		case g.State == "waiting" && g.System:
			one = "(a system goroutine, not a bug): " + clean(g.Waiting) + at
			many = "(system goroutines, not a bug): " + clean(g.Waiting) + at
		case g.State == "waiting" && stuck:
			one, many = "waits in "+clean(g.Waiting)+at, "wait in "+clean(g.Waiting)+at
		case g.State == "waiting":
			one, many = "was about to "+clean(g.Waiting)+at, "were about to "+clean(g.Waiting)+at
		default:
			continue
		}
		w := byWhat[one]
		if w == nil {
			w = &wait{one: one, many: many}
			byWhat[one] = w
			waits = append(waits, w)
		}
		w.ids = append(w.ids, g.ID)
	}
	if len(waits) > 0 {
		if stuck {
			b.WriteString("blocked forever at the end:\n")
		} else {
			b.WriteString("not finished when the bug happened:\n")
		}
		for _, w := range waits {
			if len(w.ids) == 1 {
				fmt.Fprintf(&b, "  g%d %s\n", w.ids[0], w.one)
				continue
			}
			fmt.Fprintf(&b, "  %s (%d goroutines) %s\n", idRanges(w.ids), len(w.ids), w.many)
		}
	}
	if len(t.Objects) > 0 {
		b.WriteString("objects:\n")
		for _, o := range t.Objects {
			if o.First == "" {
				// Made by weft's own code (the clock of weft/time, a
				// context), with no frame of the program on the stack.
				fmt.Fprintf(&b, "  %-10s made inside weft\n", o.Name)
				continue
			}
			fmt.Fprintf(&b, "  %-10s first used at %s\n", o.Name, o.First)
		}
	}
	return b.String()
}

// idRanges writes goroutine ids, in increasing order, as "g1-g5, g7".
func idRanges(ids []int) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprintf("g%d", ids[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprintf("g%d, g%d", ids[i], ids[j]))
		default:
			parts = append(parts, fmt.Sprintf("g%d-g%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// row is a line of the table: a step, or a note that stands for the
// repetitions of the steps above it.
type row struct {
	step int    // index in Trace.Steps, -1 for a note
	note string // for a note
}

type table struct {
	col   map[int]int // goroutine id -> column
	heads [][2]string // per column: name, where it was started
	opW   []int       // per column: width of the operations
	posW  []int       // per column: width of the positions
	width []int       // per column
	rows  []row
	numW  int
}

// minRepeats is how many times in a row a block of steps must occur to be
// collapsed, and maxBlock the longest block looked for.
const (
	minRepeats = 3
	maxBlock   = 4
)

func newTable(t *Trace) *table {
	tab := &table{col: map[int]int{}}
	addCol := func(id int, name, where string) {
		tab.col[id] = len(tab.heads)
		tab.heads = append(tab.heads, [2]string{clean(fmt.Sprintf("g%d %s", id, name)), clean(where)})
		tab.opW, tab.posW, tab.width = append(tab.opW, 0), append(tab.posW, 0), append(tab.width, 0)
	}
	tab.rows = elide(collapse(t.Steps))
	// A column per goroutine; of more than fewColumns goroutines, a column
	// per goroutine that has a step shown, and the body's: those that
	// never ran (100 of conc's WaitGroup test, when Wait returned before
	// them) are listed below the table, not as empty columns.
	shown := map[int]bool{0: true}
	for _, r := range tab.rows {
		if r.step >= 0 {
			shown[t.Steps[r.step].G] = true
		}
	}
	for _, g := range t.Goroutines {
		if !shown[g.ID] && len(t.Goroutines) > fewColumns {
			continue
		}
		where := "the body"
		if g.ID != 0 {
			where = fmt.Sprintf("go at %s in g%d", g.Spawn, g.Parent)
		}
		addCol(g.ID, g.Func, where)
	}
	for _, r := range tab.rows {
		if r.step < 0 {
			continue
		}
		if g := t.Steps[r.step].G; !tabHas(tab, g) {
			addCol(g, "", "")
		}
	}
	for _, r := range tab.rows {
		if r.step < 0 {
			continue
		}
		s := &t.Steps[r.step]
		c := tab.col[s.G]
		tab.opW[c] = max(tab.opW[c], width(clean(s.Op)))
		tab.posW[c] = max(tab.posW[c], width(s.Pos))
	}
	for c, h := range tab.heads {
		tab.width[c] = max(width(h[0]), width(h[1]), tab.cellWidth(c))
	}
	tab.numW = len(strconv.Itoa(len(t.Steps))) + 1
	return tab
}

func tabHas(tab *table, g int) bool {
	_, ok := tab.col[g]
	return ok
}

func (tab *table) cellWidth(c int) int {
	if tab.posW[c] == 0 {
		return tab.opW[c]
	}
	return tab.opW[c] + 2 + tab.posW[c]
}

// collapse lists the rows of steps, replacing the repetitions of a block
// of steps (a loop that spins) by a note after its first occurrence.
func collapse(steps []Step) []row {
	same := func(i, j int) bool {
		a, b := &steps[i], &steps[j]
		return a.G == b.G && a.Op == b.Op && a.Pos == b.Pos && !a.Failed && !b.Failed
	}
	var rows []row
	for i := 0; i < len(steps); {
		bestK, bestN := 0, 0
		for k := 1; k <= maxBlock && i+minRepeats*k <= len(steps); k++ {
			n := 1
			for i+(n+1)*k <= len(steps) && blockEqual(same, i, i+n*k, k) {
				n++
			}
			if n >= minRepeats && n*k > bestN*bestK {
				bestK, bestN = k, n
			}
		}
		if bestK == 0 {
			rows = append(rows, row{step: i})
			i++
			continue
		}
		for j := range bestK {
			rows = append(rows, row{step: i + j})
		}
		first, last := i+bestK, i+bestN*bestK-1
		what := "the step above"
		if bestK > 1 {
			what = fmt.Sprintf("the %d steps above", bestK)
		}
		rows = append(rows, row{step: -1, note: fmt.Sprintf("... %s repeated %d more times (#%d-#%d)", what, bestN-1, first+1, last+1)})
		i += bestN * bestK
	}
	return rows
}

// fewColumns is how many goroutines a table shows all of, whether they
// have steps or not.
const fewColumns = 8

// A table of more than maxRows rows shows its first headRows and its last
// maxRows-headRows-1, with a note between: a loop whose iterations differ
// (a step limit after 100,000 operations) would otherwise print a row per
// operation. The end is where a bug happens; the start, how the goroutines
// were set up.
const (
	maxRows  = 500
	headRows = 100
)

// elide cuts the middle of rows longer than maxRows.
func elide(rows []row) []row {
	if len(rows) <= maxRows {
		return rows
	}
	tailFrom := len(rows) - (maxRows - headRows - 1)
	first, last := -1, -1
	for _, r := range rows[headRows:tailFrom] {
		if r.step >= 0 {
			if first < 0 {
				first = r.step
			}
			last = r.step
		}
	}
	note := fmt.Sprintf("... %d rows not shown", tailFrom-headRows)
	if first >= 0 {
		note = fmt.Sprintf("... steps #%d-#%d not shown (%d rows)", first+1, last+1, tailFrom-headRows)
	}
	out := append(rows[:headRows:headRows], row{step: -1, note: note + "; weft test -json records the whole trace"})
	return append(out, rows[tailFrom:]...)
}

func blockEqual(same func(i, j int) bool, a, b, k int) bool {
	for j := range k {
		if !same(a+j, b+j) {
			return false
		}
	}
	return true
}

func (tab *table) write(b *strings.Builder, t *Trace) {
	line := func(num string, cells []string) {
		var l strings.Builder
		fmt.Fprintf(&l, "%*s", tab.numW, num)
		for c, cell := range cells {
			l.WriteString(" | ")
			l.WriteString(cell)
			l.WriteString(strings.Repeat(" ", tab.width[c]-width(cell)))
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	cells := make([]string, len(tab.heads))
	for i := range 2 {
		for c, h := range tab.heads {
			cells[c] = h[i]
		}
		line("", cells)
	}
	b.WriteString(strings.Repeat("-", tab.numW))
	for c := range tab.heads {
		b.WriteString("-+-")
		b.WriteString(strings.Repeat("-", tab.width[c]))
	}
	b.WriteByte('\n')
	for _, r := range tab.rows {
		if r.step < 0 {
			fmt.Fprintf(b, "%*s | %s\n", tab.numW, "", r.note)
			continue
		}
		s := &t.Steps[r.step]
		clear(cells)
		c := tab.col[s.G]
		cells[c] = clean(s.Op)
		if s.Pos != "" {
			cells[c] += strings.Repeat(" ", tab.opW[c]-width(cells[c])+2) + s.Pos
		}
		num := strconv.Itoa(r.step + 1)
		if s.Failed {
			num = ">" + num
		}
		line(num, cells)
	}
}

// width is the number of columns s takes on a terminal, counting a rune as
// one column.
func width(s string) int { return utf8.RuneCountInString(s) }

// clean makes s fit on one line of a table: control characters (a newline
// in a value) are written as escapes.
func clean(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
