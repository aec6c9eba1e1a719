package report

import (
	"fmt"
	"strings"
)

// Colors of the edges and of the failing node, shared by DOT and HTML.
var edgeColors = map[string]string{
	edgePO:    "#9e9e9e",
	edgeRF:    "#2e7d32",
	edgeCO:    "#ef6c00",
	edgeSpawn: "#1565c0",
	edgeJoin:  "#6a1b9a",
}

const (
	failColor = "#c62828"
	failFill  = "#ffebee"
)

// DOT draws the execution graph of t for Graphviz: one cluster per
// goroutine with its events in program order, and the reads-from,
// coherence, spawn and join edges; the failing event is red.
func DOT(t *Trace) []byte {
	g := newGraph(t)
	var b strings.Builder
	b.WriteString("digraph weft {\n")
	title := g.title()
	if g.omitted > 0 {
		title += fmt.Sprintf("\n(the first %d steps are not drawn)", g.omitted)
	}
	fmt.Fprintf(&b, "  graph [label=%s, labelloc=t, fontname=monospace, newrank=true];\n", dotQuote(title))
	b.WriteString("  node [shape=box, style=rounded, fontname=monospace, fontsize=10];\n")
	b.WriteString("  edge [fontname=monospace, fontsize=9];\n")
	byCol := make([][]int, len(g.cols))
	for _, n := range g.nodes() {
		id, _, _ := g.node(n)
		c := g.col[id]
		byCol[c] = append(byCol[c], n)
	}
	for c, id := range g.cols {
		name, where := g.heading(id)
		fmt.Fprintf(&b, "  subgraph cluster_g%d {\n", id)
		fmt.Fprintf(&b, "    label=%s;\n", dotQuote(name+"\n"+where))
		for _, n := range byCol[c] {
			_, op, pos := g.node(n)
			label := op
			if pos != "" {
				label += "\n" + pos
			}
			attrs := "label=" + dotQuote(label)
			if n >= len(t.Steps) {
				attrs += ", style=\"rounded,dashed\""
			}
			if g.failed(n) {
				attrs += fmt.Sprintf(", color=%q, fillcolor=%q, style=\"rounded,filled,bold\", penwidth=3", failColor, failFill)
			}
			fmt.Fprintf(&b, "    n%d [%s];\n", n, attrs)
		}
		b.WriteString("  }\n")
	}
	for _, e := range g.edges {
		attrs := fmt.Sprintf("color=%q", edgeColors[e.Kind])
		if e.Kind != edgePO {
			// Only program order ranks the nodes, so that each goroutine
			// reads from top to bottom.
			attrs += fmt.Sprintf(", label=%q, fontcolor=%q, constraint=false", e.Kind, edgeColors[e.Kind])
		}
		if e.Kind == edgeCO {
			attrs += ", style=dashed"
		}
		fmt.Fprintf(&b, "  n%d -> n%d [%s];\n", e.From, e.To, attrs)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// dotQuote quotes s as a DOT string. Backslashes are doubled so that none
// of s starts an escape of Graphviz's (\N, \G, \l...); line breaks become
// \n, Graphviz's centered line break.
func dotQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	return `"` + s + `"`
}
