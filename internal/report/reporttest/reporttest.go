// Package reporttest checks the files that package report draws: that a
// DOT file parses, and that an HTML page is well formed and inert (no
// script, no event handler, nothing fetched). The tests of package report
// and of the weft command share it.
package reporttest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Graph is a parsed DOT graph.
type Graph struct {
	Nodes map[string]Attrs // by node id
	Edges []Edge
	// Labels are the labels of the graph and of its subgraphs.
	Labels []string
}

// Attrs are the attributes of a node, an edge or a graph.
type Attrs map[string]string

// Edge is an edge statement.
type Edge struct {
	From, To string
	Attrs    Attrs
}

// ParseDOT parses the subset of the DOT language that package report
// writes: a digraph of node, edge, attribute and subgraph statements. It
// decodes quoted strings, so that labels can be compared with what they
// should say.
func ParseDOT(src []byte) (*Graph, error) {
	toks, err := lexDOT(string(src))
	if err != nil {
		return nil, err
	}
	p := &dotParser{toks: toks, g: &Graph{Nodes: map[string]Attrs{}}}
	if !p.accept("digraph") {
		return nil, p.errorf("want digraph")
	}
	if p.peek().kind == tokID {
		p.next()
	}
	if err := p.block(); err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, p.errorf("trailing input")
	}
	return p.g, nil
}

type tokKind int

const (
	tokID    tokKind = iota // a name, a number or a quoted string
	tokPunct                // { } [ ] ; , =
	tokArrow                // ->
	tokEOF
)

type token struct {
	kind tokKind
	text string // decoded for quoted strings
	at   int
}

func lexDOT(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.ContainsRune("{}[];,=", rune(c)):
			toks = append(toks, token{tokPunct, string(c), i})
			i++
		case strings.HasPrefix(s[i:], "->"):
			toks = append(toks, token{tokArrow, "->", i})
			i += 2
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					// DOT only unescapes \" ; report doubles backslashes,
					// so \\ stands for one backslash in the text it quoted.
					switch s[j+1] {
					case '"', '\\':
						b.WriteByte(s[j+1])
					case 'n':
						b.WriteByte('\n')
					default:
						return nil, fmt.Errorf("offset %d: escape \\%c", j, s[j+1])
					}
					j++
					continue
				}
				if s[j] == '\n' {
					return nil, fmt.Errorf("offset %d: line break in a string", j)
				}
				b.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, fmt.Errorf("offset %d: unterminated string", i)
			}
			toks = append(toks, token{tokID, b.String(), i})
			i = j + 1
		case c == '_' || c == '.' || c == '-' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '.' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("offset %d: unexpected %q", i, c)
			}
			toks = append(toks, token{tokID, s[i:j], i})
			i = j
		default:
			return nil, fmt.Errorf("offset %d: unexpected %q", i, c)
		}
	}
	return toks, nil
}

type dotParser struct {
	toks []token
	pos  int
	g    *Graph
}

func (p *dotParser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{kind: tokEOF}
}

func (p *dotParser) next() token {
	t := p.peek()
	p.pos++
	return t
}

func (p *dotParser) accept(text string) bool {
	if t := p.peek(); t.kind != tokEOF && t.text == text {
		p.pos++
		return true
	}
	return false
}

func (p *dotParser) errorf(format string, args ...any) error {
	return fmt.Errorf("DOT offset %d: %s", p.peek().at, fmt.Sprintf(format, args...))
}

// block parses { statements }.
func (p *dotParser) block() error {
	if !p.accept("{") {
		return p.errorf("want {")
	}
	for !p.accept("}") {
		if p.peek().kind == tokEOF {
			return p.errorf("unterminated block")
		}
		if err := p.statement(); err != nil {
			return err
		}
		p.accept(";")
	}
	return nil
}

func (p *dotParser) statement() error {
	t := p.next()
	if t.kind != tokID {
		return p.errorf("want a statement, got %q", t.text)
	}
	switch t.text {
	case "subgraph":
		if p.peek().kind == tokID {
			p.next()
		}
		return p.block()
	case "graph", "node", "edge":
		if p.peek().text == "[" {
			a, err := p.attrs()
			if err != nil {
				return err
			}
			if l, ok := a["label"]; ok && t.text == "graph" {
				p.g.Labels = append(p.g.Labels, l)
			}
			return nil
		}
	}
	switch p.peek().kind {
	case tokArrow:
		p.next()
		to := p.next()
		if to.kind != tokID {
			return p.errorf("want the head of an edge")
		}
		e := Edge{From: t.text, To: to.text, Attrs: Attrs{}}
		if p.peek().text == "[" {
			a, err := p.attrs()
			if err != nil {
				return err
			}
			e.Attrs = a
		}
		p.g.Edges = append(p.g.Edges, e)
	case tokPunct:
		switch p.peek().text {
		case "=":
			p.next()
			v := p.next()
			if v.kind != tokID {
				return p.errorf("want a value")
			}
			if t.text == "label" {
				p.g.Labels = append(p.g.Labels, v.text)
			}
		case "[":
			a, err := p.attrs()
			if err != nil {
				return err
			}
			p.g.Nodes[t.text] = a
		default:
			p.g.Nodes[t.text] = Attrs{}
		}
	default:
		p.g.Nodes[t.text] = Attrs{}
	}
	return nil
}

// attrs parses [name=value, ...].
func (p *dotParser) attrs() (Attrs, error) {
	p.next()
	a := Attrs{}
	for !p.accept("]") {
		name := p.next()
		if name.kind != tokID || !p.accept("=") {
			return nil, p.errorf("want name=value")
		}
		v := p.next()
		if v.kind != tokID {
			return nil, p.errorf("want a value for %s", name.text)
		}
		a[name.text] = v.text
		if !p.accept(",") && !p.accept(";") && p.peek().text != "]" {
			return nil, p.errorf("want , or ]")
		}
	}
	return a, nil
}

// allowed are the elements a page may have: nothing that runs, embeds or
// fetches.
var allowed = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"h1": true, "h2": true, "p": true, "span": true, "pre": true, "div": true,
	"svg": true, "defs": true, "marker": true, "g": true, "rect": true, "path": true, "text": true, "line": true,
}

// CheckHTML returns an error unless page is well formed (as XML, which the
// pages are written to be) and inert: only allowed elements, no event
// handler attributes, no reference to anything but the page's own
// markers. It returns the page's text, decoded, so that a test can check
// what it says.
func CheckHTML(page []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var text strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return text.String(), nil
		}
		if err != nil {
			return "", fmt.Errorf("not well formed: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !allowed[t.Name.Local] {
				return "", fmt.Errorf("element <%s> is not allowed", t.Name.Local)
			}
			for _, a := range t.Attr {
				name := strings.ToLower(a.Name.Local)
				v := strings.ToLower(a.Value)
				if strings.HasPrefix(name, "on") || name == "href" || name == "src" || strings.Contains(v, "javascript:") ||
					(strings.Contains(v, "url(") && !strings.Contains(v, "url(#")) {
					return "", fmt.Errorf("attribute %s=%q of <%s> is not allowed", a.Name.Local, a.Value, t.Name.Local)
				}
			}
		case xml.CharData:
			text.Write(t)
		}
	}
}
