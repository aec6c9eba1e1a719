package rewrite

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// weftModule is the module path of weft.
const weftModule = "weft.dev/weft"

// Rewritten is what Packages did.
type Rewritten struct {
	// Files holds the rewritten content of each file that changed, by
	// its absolute name.
	Files map[string][]byte
	// Packages are the import paths of the packages rewritten; Skipped
	// those left as they are because their tests use weft already, or
	// because weft itself is built from them.
	Packages, Skipped []string
	// Modules holds the modules other than the main one that files of
	// Files belong to (packages named by Packages' extra patterns), by
	// module path: the go command does not let an overlay replace the
	// files of the module cache, so they are built from a copy.
	Modules map[string]Module
}

// Module is a module whose files the rewrite changed.
type Module struct {
	Path, Version string
	Dir           string // where its files are
}

// Packages loads the packages that patterns match in dir, with their test
// files, and the packages of the main module that they import, and
// rewrites those whose tests do not import weft; and the packages that the
// patterns extra match (in dependencies, say), without their tests. env is
// the environment of the go command (nil: this process's); buildFlags are
// the flags of go test that choose the files and modules (-tags, -mod), so
// that the files rewritten are those go test builds.
func Packages(dir string, env, buildFlags, patterns, extra []string) (*Rewritten, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule,
		Tests:      true,
		Dir:        dir,
		Env:        env,
		BuildFlags: buildFlags,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	deps, err := moduleDeps(cfg, pkgs)
	if err != nil {
		return nil, err
	}
	pkgs = append(pkgs, deps...)
	if len(extra) > 0 {
		more, err := extraPackages(cfg, pkgs, extra)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, more...)
	}
	var loadErrs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, e.Error())
		}
	})
	if len(loadErrs) > 0 {
		return nil, errors.New(strings.Join(slices.Compact(slices.Sorted(slices.Values(loadErrs))), "\n"))
	}
	// A package comes as itself, as compiled for its tests, and as its
	// external test package: all are one package of the user's.
	variants := map[string][]*packages.Package{}
	var paths []string
	for _, p := range pkgs {
		if strings.HasSuffix(p.PkgPath, ".test") && p.Name == "main" {
			continue // the generated test main
		}
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if _, ok := variants[path]; !ok {
			paths = append(paths, path)
		}
		variants[path] = append(variants[path], p)
	}
	slices.Sort(paths)
	// The packages rewritten, and weft's, take weft's channels; the others
	// Go's.
	inside := func(path string) bool {
		path = strings.TrimSuffix(path, "_test")
		return variants[path] != nil || path == weftModule || strings.HasPrefix(path, weftModule+"/")
	}
	res := &Rewritten{Files: map[string][]byte{}, Modules: map[string]Module{}}
	var errs Errors
	done := map[string]bool{}
	for _, path := range paths {
		if skip(path, variants[path]) {
			res.Skipped = append(res.Skipped, path)
			continue
		}
		res.Packages = append(res.Packages, path)
		for _, p := range variants[path] {
			for i, f := range p.Syntax {
				name := p.CompiledGoFiles[i]
				if done[name] || !slices.Contains(p.GoFiles, name) {
					continue // rewritten as another variant, or made by cgo
				}
				done[name] = true
				src, err := os.ReadFile(name)
				if err != nil {
					return nil, err
				}
				out, err := File(p.Fset, f, name, src, p.TypesInfo, inside)
				var fe Errors
				if errors.As(err, &fe) {
					errs = append(errs, fe...)
					continue
				}
				if err != nil {
					return nil, err
				}
				if out != nil {
					// The compiler's errors, and vet's, name the user's
					// file rather than the temporary one that replaces it:
					// the rewrite keeps every line where it was.
					res.Files[name] = append([]byte("//line "+name+":1:1\n"), out...)
					if m := p.Module; m != nil && !m.Main {
						res.Modules[m.Path] = Module{Path: m.Path, Version: m.Version, Dir: m.Dir}
					}
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, path := range res.Packages {
		for name, src := range varsFiles(variants[path]) {
			res.Files[name] = src
			if m := variants[path][0].Module; m != nil && !m.Main {
				res.Modules[m.Path] = Module{Path: m.Path, Version: m.Version, Dir: m.Dir}
			}
		}
	}
	return res, nil
}

// varsFiles returns the files, by name, that register the package
// variables of the variants of one package (see weft/rewritten's Vars):
// weft_vars.go for those of its files, weft_vars_internal_test.go for
// those of its test files, weft_vars_external_test.go for those of its
// external test package.
func varsFiles(variants []*packages.Package) map[string][]byte {
	type group struct {
		pkg, path string
		names     []string
	}
	groups := map[string]*group{}
	for _, p := range variants {
		for i, f := range p.Syntax {
			file := p.CompiledGoFiles[i]
			if !slices.Contains(p.GoFiles, file) {
				continue
			}
			name := "weft_vars.go"
			switch {
			case strings.HasSuffix(p.Name, "_test") && strings.HasSuffix(p.PkgPath, "_test"):
				name = "weft_vars_external_test.go"
			case strings.HasSuffix(file, "_test.go"):
				name = "weft_vars_internal_test.go"
			}
			name = filepath.Join(filepath.Dir(file), name)
			g := groups[name]
			if g == nil {
				g = &group{pkg: f.Name.Name, path: p.PkgPath}
				groups[name] = g
			}
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, id := range spec.(*ast.ValueSpec).Names {
						if id.Name != "_" && !slices.Contains(g.names, id.Name) {
							g.names = append(g.names, id.Name)
						}
					}
				}
			}
		}
	}
	files := map[string][]byte{}
	for name, g := range groups {
		if len(g.names) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "// Code generated by weft test. DO NOT EDIT.\n\npackage %s\n\nimport weftrw %q\n\n", g.pkg, weftPkgs["weftrw"])
		fmt.Fprintf(&b, "func init() {\n\tweftrw.Vars(%q", strings.TrimSuffix(g.path, " [test]"))
		for _, n := range g.names {
			fmt.Fprintf(&b, ", &%s", n)
		}
		b.WriteString(")\n}\n")
		files[name] = []byte(b.String())
	}
	return files
}

// moduleDeps loads the packages of the main module that pkgs import,
// directly or not, without their tests: they are rewritten too, or a
// package under test would hand them weft's channels and contexts where
// they take Go's (x/sync's semaphore tests call errgroup).
func moduleDeps(cfg *packages.Config, pkgs []*packages.Package) ([]*packages.Package, error) {
	main := ""
	loaded := map[string]bool{}
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			main = p.Module.Path
		}
		loaded[p.PkgPath] = true
	}
	if main == "" {
		return nil, nil
	}
	depCfg := *cfg
	depCfg.Tests = false
	var deps []*packages.Package
	for next := pkgs; len(next) > 0; {
		var paths []string
		for _, p := range next {
			for path := range p.Imports {
				if (path == main || strings.HasPrefix(path, main+"/")) && !loaded[path] {
					loaded[path] = true
					paths = append(paths, path)
				}
			}
		}
		if len(paths) == 0 {
			break
		}
		slices.Sort(paths)
		more, err := packages.Load(&depCfg, paths...)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", strings.Join(paths, " "), err)
		}
		next = nil
		for _, p := range more {
			if p.Module != nil && p.Module.Main { // not a nested module's
				next = append(next, p)
			}
		}
		deps = append(deps, next...)
	}
	return deps, nil
}

// extraPackages loads the packages that patterns match, without their
// tests, but for those already in pkgs.
func extraPackages(cfg *packages.Config, pkgs []*packages.Package, patterns []string) ([]*packages.Package, error) {
	loaded := map[string]bool{}
	for _, p := range pkgs {
		loaded[p.PkgPath] = true
	}
	extraCfg := *cfg
	extraCfg.Tests = false
	more, err := packages.Load(&extraCfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	var out []*packages.Package
	for _, p := range more {
		if !loaded[p.PkgPath] {
			loaded[p.PkgPath] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// weftDeps are the modules other than weft's own whose packages the
// packages that rewritten code imports import: rewriting one would make
// it import weft, which imports it (TestWeftDeps keeps the list true).
var weftDeps = []string{"github.com/ebitengine/purego", "github.com/go-air/gini"}

// skip says whether the package of the variants is left as it is: its
// tests import weft, or it is part of weft's module (whose packages weft
// itself imports) other than its examples, or of a module that weft's
// packages import.
func skip(path string, variants []*packages.Package) bool {
	if path == weftModule || strings.HasPrefix(path, weftModule+"/") && !strings.HasPrefix(path, weftModule+"/examples/") {
		return true
	}
	for _, m := range weftDeps {
		if path == m || strings.HasPrefix(path, m+"/") {
			return true
		}
	}
	for _, p := range variants {
		for imp := range p.Imports {
			if imp == weftModule || strings.HasPrefix(imp, weftModule+"/") {
				return true
			}
		}
	}
	return false
}
