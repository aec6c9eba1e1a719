package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"weft.dev/weft/internal/rewrite"
)

// overlay rewrites the packages among pkgs whose tests do not use weft
// into dir and writes the overlay that makes go test build them in place
// of the user's files: it returns the overlay's name, or "" when no
// package needed rewriting. The user's tree is only read.
func overlay(dir string, env, buildFlags, pkgs, extra []string) (name string, goFlags []string, err error) {
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	rw, err := rewrite.Packages("", env, buildFlags, pkgs, extra)
	if err != nil {
		return "", nil, err
	}
	if len(rw.Files) == 0 {
		return "", nil, nil
	}
	copies, err := copyModules(dir, rw)
	if err != nil {
		return "", nil, err
	}
	if err := outsideModCache(env, rw.Files); err != nil {
		return "", nil, err
	}
	replace := map[string]string{}
	i := 0
	for name, src := range rw.Files {
		i++
		tmp := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(name)))
		if err := os.WriteFile(tmp, src, 0o644); err != nil {
			return "", nil, err
		}
		replace[name] = tmp
	}
	modded, err := requireWeft(dir, env, replace, copies)
	if err != nil {
		return "", nil, err
	}
	if modded && vendorMode(env, buildFlags) {
		// The go command reads vendor/modules.txt past the overlay, and
		// weft is not in it: the module is built from the module cache
		// (with the go.mod overlaid), as go test -mod=readonly does.
		goFlags = []string{"-mod=readonly"}
	}
	data, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		return "", nil, err
	}
	name = filepath.Join(dir, "overlay.json")
	return name, goFlags, os.WriteFile(name, data, 0o644)
}

// copyModules builds the modules other than the main one whose files the
// rewrite changed (dependencies named by -rewrite) from copies in dir:
// the go command lets no overlay replace a file of the module cache. A
// copy mirrors the module's tree with links to its files, but for the
// rewritten ones, which it holds; their entries leave rw.Files. It returns
// the copies by module path, for the go.mod overlaid to replace the
// modules with.
func copyModules(dir string, rw *rewrite.Rewritten) (map[string]string, error) {
	copies := map[string]string{}
	paths := slices.Sorted(maps.Keys(rw.Modules))
	for i, path := range paths {
		m := rw.Modules[path]
		if m.Dir == "" {
			return nil, fmt.Errorf("-rewrite: module %s has no directory (vendored?): run weft test with -- -mod=mod", path)
		}
		copy := filepath.Join(dir, "mod", strconv.Itoa(i))
		err := filepath.WalkDir(m.Dir, func(src string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(m.Dir, src)
			if err != nil {
				return err
			}
			dst := filepath.Join(copy, rel)
			if d.IsDir() {
				return os.MkdirAll(dst, 0o755)
			}
			if data, ok := rw.Files[src]; ok {
				delete(rw.Files, src)
				return os.WriteFile(dst, data, 0o644)
			}
			return os.Symlink(src, dst)
		})
		if err != nil {
			return nil, fmt.Errorf("copying module %s: %w", path, err)
		}
		if err := raiseGo(filepath.Join(m.Dir, "go.mod"), filepath.Join(copy, "go.mod"), path); err != nil {
			return nil, fmt.Errorf("copying module %s: %w", path, err)
		}
		// The files the rewrite adds (the registration of package
		// variables).
		for name, data := range rw.Files {
			if rel, err := filepath.Rel(m.Dir, name); err == nil && filepath.IsLocal(rel) {
				delete(rw.Files, name)
				if err := os.WriteFile(filepath.Join(copy, rel), data, 0o644); err != nil {
					return nil, err
				}
			}
		}
		copies[path] = copy
	}
	return copies, nil
}

// rewrittenGo is the Go version of the code the rewrite writes (generics,
// range over functions), when weft's own go.mod cannot be read.
const rewrittenGo = "1.23"

// raiseGo writes the go.mod of the copy of a module to rewrite, whose
// original is at orig (or which has none), with a go line of at least
// weft's version: the rewritten files take its language version, and
// benbjohnson/clock's go 1.15 refused the type instantiations of weft's
// channels.
func raiseGo(orig, copy, path string) error {
	want := rewrittenGo
	if root, err := weftRoot(); err == nil {
		if w, err := readMod(filepath.Join(root, "go.mod")); err == nil && w.Go != nil {
			want = w.Go.Version
		}
	}
	m, err := readMod(orig)
	switch {
	case errors.Is(err, os.ErrNotExist):
		m = &modfile.File{Syntax: &modfile.FileSyntax{}}
		if err := m.AddModuleStmt(path); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if m.Go != nil && version.Compare("go"+m.Go.Version, "go"+want) >= 0 {
		return nil
	}
	if err := m.AddGoStmt(want); err != nil {
		return err
	}
	data, err := m.Format()
	if err != nil {
		return err
	}
	if err := os.Remove(copy); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(copy, data, 0o644)
}

// outsideModCache returns an error when a file to rewrite is in the module
// cache: go test refuses to overlay those, with an error that says nothing
// of what to do about it.
func outsideModCache(env []string, files map[string][]byte) error {
	cmd := exec.Command("go", "env", "GOMODCACHE")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go env GOMODCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	if cache == "" {
		return nil
	}
	var in []string
	for name := range files {
		if rel, err := filepath.Rel(cache, name); err == nil && filepath.IsLocal(rel) {
			in = append(in, filepath.Dir(name))
		}
	}
	if len(in) == 0 {
		return nil
	}
	dirs := slices.Compact(slices.Sorted(slices.Values(in)))
	return fmt.Errorf("%s is in the module cache (%s), whose files go test does not let weft test replace with their rewritten versions: "+
		"check a copy of the module instead (cp -r the module's directory to a directory of your own, chmod -R u+w it, and run weft test there)",
		strings.Join(dirs, ", "), cache)
}

// requireWeft adds to the overlay a go.mod and a go.sum that put weft in
// the main module's graph, replaced by the module weft test was built
// from, when it is not there already; it reports whether it did.
func requireWeft(dir string, env []string, replace, copies map[string]string) (bool, error) {
	goList := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Env = env
		return cmd.Output()
	}
	_, err := goList("list", "-m", "weft.dev/weft")
	inGraph := err == nil
	if inGraph && len(copies) == 0 {
		return false, nil
	}
	out, err := goList("env", "GOMOD")
	if err != nil {
		return false, fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return false, errors.New("the packages are not in a module: weft test rewrites the packages of a module")
	}
	user, err := readMod(gomod)
	if err != nil {
		return false, err
	}
	for path, copy := range copies {
		for _, r := range slices.Clone(user.Replace) {
			if r.Old.Path == path {
				if err := user.DropReplace(r.Old.Path, r.Old.Version); err != nil {
					return false, err
				}
			}
		}
		if err := user.AddReplace(path, "", copy, ""); err != nil {
			return false, err
		}
	}
	var sums []string
	if !inGraph {
		root, err := weftRoot()
		if err != nil {
			return false, err
		}
		if err := addWeft(user, root); err != nil {
			return false, err
		}
		sums = append(sums, filepath.Join(root, "go.sum"))
	}
	user.Cleanup()
	mod, err := user.Format()
	if err != nil {
		return false, err
	}
	var sum []byte
	for _, f := range append([]string{strings.TrimSuffix(gomod, ".mod") + ".sum"}, sums...) {
		data, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
		sum = append(sum, data...)
		if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
			sum = append(sum, '\n')
		}
	}
	for name, data := range map[string][]byte{"go.mod": mod, "go.sum": sum} {
		tmp := filepath.Join(dir, name)
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return false, err
		}
		replace[filepath.Join(filepath.Dir(gomod), name)] = tmp
	}
	return true, nil
}

// addWeft makes user require weft, replaced by the module at root, and
// the modules weft requires.
func addWeft(user *modfile.File, root string) error {
	weft, err := readMod(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	// weft's requirements are the user's too: the go command wants every
	// module that provides a package listed in the main module's go.mod.
	have := map[string]string{}
	for _, r := range user.Require {
		have[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range weft.Require {
		if user.Module != nil && r.Mod.Path == user.Module.Mod.Path {
			continue // weft requires the module checked (golang.org/x/sync): it is the main module
		}
		switch v, ok := have[r.Mod.Path]; {
		case !ok:
			user.AddNewRequire(r.Mod.Path, r.Mod.Version, true)
		case semver.Compare(v, r.Mod.Version) < 0:
			// The user's line raised, not a second line for the module,
			// which the go command refuses ("updates to go.mod needed"):
			// conc v0.3.0 requires an older go-internal than weft.
			if err := user.AddRequire(r.Mod.Path, r.Mod.Version); err != nil {
				return err
			}
		}
	}
	user.AddNewRequire("weft.dev/weft", "v0.0.0-00010101000000-000000000000", false)
	if err := user.AddReplace("weft.dev/weft", "", root, ""); err != nil {
		return err
	}
	// go/version, not semver: go 1.25 comes before go 1.25.0.
	if user.Go == nil || version.Compare("go"+user.Go.Version, "go"+weft.Go.Version) < 0 {
		if err := user.AddGoStmt(weft.Go.Version); err != nil {
			return err
		}
	}
	return nil
}

// vendorMode reports whether go test would build the main module from its
// vendor directory: -mod=vendor in GOFLAGS or the flags, or, without a
// -mod flag, a vendor directory beside go.mod (go 1.14 and later).
func vendorMode(env, buildFlags []string) bool {
	cmd := exec.Command("go", "env", "GOFLAGS", "GOMOD")
	cmd.Env = env
	out, _ := cmd.Output()
	lines := strings.Split(string(out), "\n")
	if len(lines) < 2 {
		return false
	}
	modDir := filepath.Dir(strings.TrimSpace(lines[1]))
	mode := ""
	for _, f := range append(strings.Fields(lines[0]), buildFlags...) {
		if v, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "mod="); ok {
			mode = v
		}
	}
	if mode != "" {
		return mode == "vendor"
	}
	fi, err := os.Stat(filepath.Join(modDir, "vendor"))
	return err == nil && fi.IsDir()
}

func readMod(name string) (*modfile.File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(name, data, nil)
}

// weftRoot returns the directory of the module weft test was built from:
// its sources are where the compiler found this file.
func weftRoot() (string, error) {
	_, file, _, ok := goruntime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	if ok && filepath.IsAbs(file) {
		if m, err := readMod(filepath.Join(root, "go.mod")); err == nil && m.Module != nil && m.Module.Mod.Path == "weft.dev/weft" {
			return root, nil
		}
	}
	return "", errors.New("weft's module is not in the module graph and weft was built without its sources (-trimpath?): add it with go get weft.dev/weft")
}
