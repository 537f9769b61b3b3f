package main

// With -implements the oracle lists, for every package of the tree, every pair (T, I) of
// package-level named types of the walked tree where T is a non-interface, non-generic
// defined type (not an alias), I is a non-generic, non-empty basic interface (no type
// terms, not comparable; not an alias), and T or *T implements I (types.Implements):
// "<T id> <I id> value" when T does, "<T id> <I id> pointer" when only *T does. Sorted.
//
// All packages of the tree are type-checked against each other (one types.Package per
// import path), so types from different packages are identical exactly as in one build.
// Imports resolve as the go command does for the trees we walk: "unsafe" is types.Unsafe;
// a package of module std imports "x" from "vendor/x" and one of module cmd from
// "cmd/vendor/x" when that package exists in the tree; otherwise the import path itself
// when it is in the tree; otherwise the "source" importer (packages outside the tree,
// e.g. the standard library for fixtures/shop). Type errors are ignored.

import (
	"go/build"
	"go/importer"
	"go/token"
	"go/types"
	"sort"
)

type treePkg struct {
	ip, dir, modPath string
	pkg              *types.Package
	checking, empty  bool
}

type treeImporter struct {
	ctxt     *build.Context
	fset     *token.FileSet
	pkgs     map[string]*treePkg
	order    []*treePkg
	fallback types.ImporterFrom
	byDir    map[string]*treePkg
	// With -fields -tests: test builds too (fields.go).
	tests bool
	// With -uses -std: uses of standard-library objects outside the tree too (uses.go);
	// with -deps also of module dependencies.
	std, deps bool
}

func newTreeImporter(ctxt *build.Context, fset *token.FileSet) *treeImporter {
	return &treeImporter{
		ctxt:     ctxt,
		fset:     fset,
		pkgs:     map[string]*treePkg{},
		byDir:    map[string]*treePkg{},
		fallback: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom),
	}
}

func (t *treeImporter) add(ip, dir, modPath string) {
	p := &treePkg{ip: ip, dir: dir, modPath: modPath}
	t.pkgs[ip] = p
	t.byDir[dir] = p
	t.order = append(t.order, p)
}

func (t *treeImporter) Import(path string) (*types.Package, error) {
	return t.ImportFrom(path, "", 0)
}

func (t *treeImporter) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if from := t.byDir[dir]; from != nil {
		if vendor := vendoredPath(from.modPath, path); vendor != "" {
			if p := t.pkgs[vendor]; p != nil {
				return t.check(p), nil
			}
		}
	}
	if p := t.pkgs[path]; p != nil {
		return t.check(p), nil
	}
	return t.fallback.ImportFrom(path, dir, mode)
}

// check type-checks a tree package once (an import cycle yields an incomplete package).
func (t *treeImporter) check(p *treePkg) *types.Package {
	if p.pkg != nil || p.checking {
		if p.pkg == nil {
			return types.NewPackage(p.ip, "cycle")
		}
		return p.pkg
	}
	p.checking = true
	files := loadFiles(t.ctxt, t.fset, p.dir, p.ip)
	p.empty = len(files) == 0
	conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
	pkg, _ := conf.Check(p.ip, t.fset, files, nil)
	if pkg == nil {
		pkg = types.NewPackage(p.ip, "invalid")
	}
	p.pkg, p.checking = pkg, false
	return pkg
}

// implementsLines type-checks every collected package and lists the implements pairs.
func (t *treeImporter) implementsLines() []string {
	var concrete []*types.Named
	var ifaces []*types.Named
	for _, p := range t.order {
		pkg := t.check(p)
		if p.empty {
			continue
		}
		for _, named := range definedTypes(pkg) {
			if named.TypeParams().Len() > 0 {
				continue
			}
			if iface, ok := named.Underlying().(*types.Interface); ok {
				if iface.NumMethods() > 0 && iface.IsMethodSet() {
					ifaces = append(ifaces, named)
				}
				continue
			}
			concrete = append(concrete, named)
		}
	}
	// Candidate index: method Id -> concrete types whose *T method set has it.
	byMethod := map[string][]int{}
	for i, named := range concrete {
		ms := types.NewMethodSet(types.NewPointer(named))
		for j := 0; j < ms.Len(); j++ {
			id := ms.At(j).Obj().Id()
			byMethod[id] = append(byMethod[id], i)
		}
	}
	var out []string
	for _, in := range ifaces {
		iface := in.Underlying().(*types.Interface)
		var cands []int
		for j := 0; j < iface.NumMethods(); j++ {
			c := byMethod[iface.Method(j).Id()]
			if j == 0 || len(c) < len(cands) {
				cands = c
			}
		}
		iid := symID(in)
		for _, i := range cands {
			T := concrete[i]
			switch {
			case types.Implements(T, iface):
				out = append(out, symID(T)+" "+iid+" value")
			case types.Implements(types.NewPointer(T), iface):
				out = append(out, symID(T)+" "+iid+" pointer")
			}
		}
	}
	sort.Strings(out)
	return out
}

func symID(n *types.Named) string {
	return n.Obj().Pkg().Path() + "::" + n.Obj().Name()
}

// definedTypes lists the package-level defined (non-alias) types of pkg, by name.
func definedTypes(pkg *types.Package) []*types.Named {
	var out []*types.Named
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
			if named, ok := tn.Type().(*types.Named); ok {
				out = append(out, named)
			}
		}
	}
	return out
}
