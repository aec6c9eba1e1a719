package report

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// The layout of the HTML page's graph: one column per goroutine, one row
// per event in execution order, so that the picture reads like the text
// table, with the edges of the execution graph drawn over it.
const (
	colW     = 400 // width of a goroutine's column
	nodeW    = 312 // width of an event's box
	nodeH    = 34
	rowH     = 46
	marginX  = 16
	headH    = 44 // the goroutines' names
	charW10  = 73 // tenths of a pixel: width of a character of the 12px monospace font
	textPadX = 8
	loopW    = 36 // how far an edge between two events of a column bulges
)

// HTML returns a self-contained page (no script, nothing fetched) that
// shows the bug, the execution graph of t laid out as inline SVG, and the
// text table. Every string from the program is escaped.
func HTML(t *Trace) []byte {
	g := newGraph(t)
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>weft: %s</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #212121; }
h1 { font-size: 1.3em; color: %s; }
.message { font-family: monospace; white-space: pre-wrap; }
.legend span { display: inline-block; margin-right: 1.2em; padding-left: 0.4em; border-left: 1.6em solid; }
svg { display: block; margin: 1em 0; }
svg text { font-family: monospace; font-size: 12px; }
svg .pos { fill: #616161; }
svg .head { font-weight: bold; }
svg .edge { fill: none; stroke-width: 1.5; }
svg .co { stroke-dasharray: 5 3; }
pre { background: #f5f5f5; padding: 1em; overflow-x: auto; }
</style>
</head>
<body>
<h1>%s</h1>
<p class="message">%s</p>
`, esc(t.Bug.Kind), failColor, esc(t.Bug.Kind), esc(t.Bug.Message))
	b.WriteString(`<p class="legend">`)
	for _, k := range []string{edgePO, edgeRF, edgeCO, edgeSpawn, edgeJoin} {
		fmt.Fprintf(&b, `<span style="border-color: %s">%s</span>`, edgeColors[k], legend[k])
	}
	fmt.Fprintf(&b, `<span style="border-color: %s">the bug</span></p>`+"\n", failColor)
	if g.omitted > 0 {
		fmt.Fprintf(&b, "<p>The first %d steps are not drawn.</p>\n", g.omitted)
	}
	g.svg(&b)
	fmt.Fprintf(&b, "<pre>%s</pre>\n</body>\n</html>\n", esc(Text(t)))
	return []byte(b.String())
}

var legend = map[string]string{
	edgePO:    "program order",
	edgeRF:    "reads from",
	edgeCO:    "next write (coherence)",
	edgeSpawn: "go",
	edgeJoin:  "join",
}

// box returns the top left corner of node n's box.
func (g *graph) box(n int) (x, y int) {
	id, _, _ := g.node(n)
	return marginX + g.col[id]*colW + (colW-nodeW)/2, headH + (n-g.first)*rowH
}

func (g *graph) svg(b *strings.Builder) {
	nodes := g.nodes()
	w := 2*marginX + len(g.cols)*colW
	h := headH + len(nodes)*rowH + marginX
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", w, h, w, h)
	b.WriteString("<defs>\n")
	for _, k := range []string{edgePO, edgeRF, edgeCO, edgeSpawn, edgeJoin} {
		fmt.Fprintf(b, `<marker id="arrow-%s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>`+"\n", k, edgeColors[k])
	}
	b.WriteString("</defs>\n")
	for c, id := range g.cols {
		name, where := g.heading(id)
		x := marginX + c*colW + (colW-nodeW)/2
		fmt.Fprintf(b, `<g><title>%s</title><text class="head" x="%d" y="16">%s</text><text class="pos" x="%d" y="32">%s</text></g>`+"\n",
			html.EscapeString(name+"\n"+where), x, fit(name, nodeW), x, fit(where, nodeW))
	}
	for _, e := range g.edges {
		g.edge(b, e)
	}
	for _, n := range nodes {
		x, y := g.box(n)
		_, op, pos := g.node(n)
		stroke, fill, extra := "#757575", "#ffffff", ""
		if n >= len(g.t.Steps) {
			extra = ` stroke-dasharray="4 3"`
		}
		if g.failed(n) {
			stroke, fill, extra = failColor, failFill, extra+` stroke-width="3"`
		}
		fmt.Fprintf(b, `<g><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="5" fill="%s" stroke="%s"%s/>`,
			html.EscapeString(op+"\n"+pos), x, y, nodeW, nodeH, fill, stroke, extra)
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`, x+textPadX, y+14, fit(op, nodeW-2*textPadX))
		fmt.Fprintf(b, `<text class="pos" x="%d" y="%d">%s</text></g>`+"\n", x+textPadX, y+28, fit(pos, nodeW-2*textPadX))
	}
	b.WriteString("</svg>\n")
}

// edge draws e: a straight line down a column for program order, else a
// curve from the side of one box to the facing side of the other (or
// bulging out of the column when both are in it).
func (g *graph) edge(b *strings.Builder, e edge) {
	fx, fy := g.box(e.From)
	tx, ty := g.box(e.To)
	var d string
	switch {
	case e.Kind == edgePO:
		d = fmt.Sprintf("M%d,%d L%d,%d", fx+nodeW/2, fy+nodeH, tx+nodeW/2, ty)
	case fx == tx:
		x := fx + nodeW
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x, fy+nodeH/2, x+loopW, fy+nodeH/2, x+loopW, ty+nodeH/2, x, ty+nodeH/2)
	case fx < tx:
		x1, x2 := fx+nodeW, tx
		mid := (x1 + x2) / 2
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, fy+nodeH/2, mid, fy+nodeH/2, mid, ty+nodeH/2, x2, ty+nodeH/2)
	default:
		x1, x2 := fx, tx+nodeW
		mid := (x1 + x2) / 2
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, fy+nodeH/2, mid, fy+nodeH/2, mid, ty+nodeH/2, x2, ty+nodeH/2)
	}
	fmt.Fprintf(b, `<path class="edge %s" d="%s" stroke="%s" marker-end="url(#arrow-%s)"><title>%s: %s to %s</title></path>`+"\n",
		e.Kind, d, edgeColors[e.Kind], e.Kind, legend[e.Kind], g.name(e.From), g.name(e.To))
}

// fit escapes s, shortened with an ellipsis to fit in width pixels; the
// whole text is in the element's title.
func fit(s string, width int) string {
	n := width * 10 / charW10
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return html.EscapeString(s)
}
