package rewrite

import (
	"flag"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata with the current output")

// The importer is shared: it type-checks the standard library and weft
// from source once for all the cases.
var (
	fset = token.NewFileSet()
	imp  = importer.ForCompiler(fset, "source", nil)
)

// check parses and type-checks the files of one package.
func check(t *testing.T, files map[string][]byte, names []string) ([]*ast.File, *types.Info, error) {
	t.Helper()
	var fs []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, n, files[n], parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v\n%s", n, err, files[n])
		}
		fs = append(fs, f)
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp}
	_, err := conf.Check("example.com/p", fset, fs, info)
	return fs, info, err
}

// TestGolden rewrites the package of each testdata/*.txtar and compares
// each file with its NAME.want, or the errors with the file "errors"; a
// file with neither must be left unchanged. The rewritten package must
// type-check against weft's packages.
func TestGolden(t *testing.T) {
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, a := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(a), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(a)
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			var names []string
			for _, f := range ar.Files {
				files[f.Name] = f.Data
				if strings.HasSuffix(f.Name, ".go") {
					names = append(names, f.Name)
				}
			}
			asts, info, err := check(t, files, names)
			if err != nil {
				t.Fatalf("the input does not type-check: %v", err)
			}
			got := map[string][]byte{}
			var errs []string
			for i, f := range asts {
				out, err := File(fset, f, names[i], files[names[i]], info, func(path string) bool { return path == "example.com/p" })
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				if out != nil {
					got[names[i]+".want"] = out
				}
			}
			if len(errs) > 0 {
				got["errors"] = []byte(strings.Join(errs, "\n") + "\n")
			}
			if *update {
				writeGolden(t, a, ar, got)
				return
			}
			for _, n := range append(names, "errors") {
				want, ok := files[n+".want"]
				if n == "errors" {
					want, ok = files[n]
				}
				g, rewritten := got[n+".want"]
				if n == "errors" {
					g, rewritten = got[n]
				}
				switch {
				case !ok && rewritten:
					t.Errorf("%s: rewritten, want unchanged:\n%s", n, g)
				case ok && !rewritten:
					t.Errorf("%s: unchanged, want:\n%s", n, want)
				case string(g) != string(want):
					t.Errorf("%s: got\n%s\nwant\n%s", n, g, want)
				}
			}
			if len(errs) > 0 {
				return
			}
			out := map[string][]byte{}
			for _, n := range names {
				out[n] = files[n]
				if g, ok := got[n+".want"]; ok {
					out[n] = g
				}
			}
			if _, _, err := check(t, out, names); err != nil {
				t.Errorf("the rewritten package does not type-check: %v", err)
			}
		})
	}
}

// writeGolden replaces the outputs in the archive with got.
func writeGolden(t *testing.T, name string, ar *txtar.Archive, got map[string][]byte) {
	t.Helper()
	out := &txtar.Archive{Comment: ar.Comment}
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".go") {
			out.Files = append(out.Files, f)
			if g, ok := got[f.Name+".want"]; ok {
				out.Files = append(out.Files, txtar.File{Name: f.Name + ".want", Data: g})
			}
		}
	}
	if g, ok := got["errors"]; ok {
		out.Files = append(out.Files, txtar.File{Name: "errors", Data: g})
	}
	if err := os.WriteFile(name, txtar.Format(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
