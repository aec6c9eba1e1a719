package plain_test

import (
	"bytes"
	"flag"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"

	"weft.dev/weft/bench/overhead/plain"
	"weft.dev/weft/internal/rewrite"
)

var update = flag.Bool("update", false, "regenerate ../rewritten/plain from this package with the rewriter")

// TestRewrittenUpToDate checks that the files of ../rewritten/plain are
// internal/rewrite's output for those of this package, gofmt'ed (which moves
// lines, not code: the rewriter keeps each line where it was, and puts the
// imports it adds on the package clause's). With -update, it writes them.
func TestRewrittenUpToDate(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading the package: %v", pkgs)
	}
	p := pkgs[0]
	want := map[string][]byte{}
	for i, f := range p.Syntax {
		name := filepath.Base(p.CompiledGoFiles[i])
		src, err := os.ReadFile(p.CompiledGoFiles[i])
		if err != nil {
			t.Fatal(err)
		}
		// The line directives name the file as seen from the rewritten one.
		// Only this package is rewritten: it imports none of the module's.
		self := func(path string) bool { return path == p.PkgPath }
		out, err := rewrite.File(p.Fset, f, filepath.Join("..", "..", "plain", name), src, p.TypesInfo, self)
		if err != nil {
			t.Fatal(err)
		}
		if out == nil { // unchanged, as weft test leaves it
			out = src
		}
		if out, err = format.Source(out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want[name] = out
	}
	dir := filepath.Join("..", "rewritten", "plain")
	have, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range have {
		if _, ok := want[filepath.Base(h)]; !ok {
			if *update {
				if err := os.Remove(h); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: not a file of this package", h)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		file := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(file, want[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(got, want[name]) {
			t.Errorf("%s is not the rewriter's output for %s (go test -run %s -update regenerates it): %v", file, name, t.Name(), err)
		}
	}
}

// TestPlain runs the plain programs as plain Go: they are Go programs
// whose checks hold.
func TestPlain(t *testing.T) {
	for range 100 {
		plain.Counter(3)
		plain.Atomics(2, 4)
		plain.Pipeline(3)
		plain.Pool(2, 3)
		plain.Query(3)
	}
}
