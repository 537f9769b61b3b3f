package main

// With -fields the oracle lists every identifier go/types records in types.Info.Uses whose
// object is a field declared by a package-level `type T struct { … }` of a package of the
// walked tree (selectors, promoted selectors and composite literal keys; for an
// instantiated generic type, the generic type's field), or a method spec of a package-level
// `type I interface { … }` (selectors of interface methods, through embedding too):
// "<file relative to the root>:<line>:<column> <import path>::<type name>.<member>" (1-based
// byte column of the identifier), sorted. The declaring type is the one whose declaration
// spells the struct or the method spec (`type U T` shares T's fields, which stay T's; an
// interface embedding another selects the embedded one's method). Packages are
// type-checked against each other as in -uses (tests excluded). With -std, the members of
// the package-level types of standard-library packages outside the tree count too.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
)

type checked struct {
	pkg  *types.Package
	info *types.Info
}

func (t *treeImporter) fieldLines(root string) []string {
	var all []checked
	// The position of each field's declaring identifier → "<import path>::<type>.<field>".
	owners := map[string]string{}
	for _, p := range t.order {
		t.check(p)
		files := loadFiles(t.ctxt, t.fset, p.dir, p.ip)
		if len(files) == 0 {
			if t.tests { // a package of test files only
				all = append(all, t.testBuilds(p, nil, owners)...)
			}
			continue
		}
		collectOwners(t.fset, owners, p.ip, files)
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
		pkg, _ := conf.Check(p.ip, t.fset, files, info)
		if pkg == nil {
			continue
		}
		all = append(all, checked{pkg, info})
		if t.tests {
			all = append(all, t.testBuilds(p, files, owners)...)
		}
	}
	var out []string
	std := stdOwners{fset: t.fset, pkgs: map[*types.Package]map[types.Object]string{}}
	for _, c := range all {
		for id, obj := range c.info.Uses {
			var origin types.Object
			switch o := obj.(type) {
			case *types.Var:
				if !o.IsField() {
					continue
				}
				origin = o.Origin()
			case *types.Func:
				origin = o.Origin()
			default:
				continue
			}
			target, ok := owners[t.fset.Position(origin.Pos()).String()]
			if !ok && t.std {
				target, ok = std.owner(origin, t.deps)
			}
			if !ok {
				continue
			}
			if line, ok := t.useLine(root, id, target); ok {
				out = append(out, line)
			}
		}
	}
	return out
}

// embeddedIdent is the type name identifier of an embedded field: T, *T, pkg.T, T[A], *pkg.T[A].
func embeddedIdent(e ast.Expr) *ast.Ident {
	switch x := e.(type) {
	case *ast.Ident:
		return x
	case *ast.StarExpr:
		return embeddedIdent(x.X)
	case *ast.SelectorExpr:
		return x.Sel
	case *ast.IndexExpr:
		return embeddedIdent(x.X)
	case *ast.IndexListExpr:
		return embeddedIdent(x.X)
	}
	return nil
}

// collectOwners maps the position of every member a package-level defined struct or
// interface type of files declares to "<ip>::<type>.<member>".
func collectOwners(fset *token.FileSet, owners map[string]string, ip string, files []*ast.File) {
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if ts.Assign.IsValid() {
					continue
				}
				if it, ok := ast.Unparen(ts.Type).(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						if _, isFunc := m.Type.(*ast.FuncType); !isFunc {
							continue
						}
						for _, n := range m.Names {
							owners[fset.Position(n.Pos()).String()] = ip + "::" + ts.Name.Name + "." + n.Name
						}
					}
					continue
				}
				st, ok := ast.Unparen(ts.Type).(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					names := field.Names
					if len(names) == 0 {
						if id := embeddedIdent(field.Type); id != nil {
							names = []*ast.Ident{id}
						}
					}
					for _, n := range names {
						owners[fset.Position(n.Pos()).String()] = ip + "::" + ts.Name.Name + "." + n.Name
					}
				}
			}
		}
	}
}

// testBuilds type-checks p as `go test` builds it: its non-test files with its in-package
// test files, and its external test package (`package x_test`, import path "<ip>_test")
// importing that build of p. Only uses in test files are kept (the non-test build lists the
// others); the members test files declare are added to owners.
func (t *treeImporter) testBuilds(p *treePkg, files []*ast.File, owners map[string]string) []checked {
	bp, err := t.ctxt.ImportDir(p.dir, 0)
	if err != nil && bp == nil {
		return nil
	}
	parse := func(names []string) []*ast.File {
		var out []*ast.File
		for _, name := range names {
			if f, _ := parser.ParseFile(t.fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution); f != nil {
				out = append(out, f)
			}
		}
		return out
	}
	testOnly := func(info *types.Info) *types.Info {
		for id := range info.Uses {
			if !strings.HasSuffix(t.fset.Position(id.Pos()).Filename, "_test.go") {
				delete(info.Uses, id)
			}
		}
		return info
	}
	var out []checked
	inPkg, xtest := parse(bp.TestGoFiles), parse(bp.XTestGoFiles)
	variant := t.check(p)
	if len(inPkg) > 0 {
		collectOwners(t.fset, owners, p.ip, inPkg)
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
		if pkg, _ := conf.Check(p.ip, t.fset, append(append([]*ast.File{}, files...), inPkg...), info); pkg != nil {
			variant = pkg
			out = append(out, checked{pkg, testOnly(info)})
		}
	}
	if len(xtest) > 0 {
		collectOwners(t.fset, owners, p.ip+"_test", xtest)
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		imp := variantImporter{t, p.ip, variant}
		conf := types.Config{Importer: imp, Error: func(error) {}, FakeImportC: true}
		if pkg, _ := conf.Check(p.ip+"_test", t.fset, xtest, info); pkg != nil {
			out = append(out, checked{pkg, testOnly(info)})
		}
	}
	return out
}

// variantImporter imports ip as the given package (the test build) and the rest as t does.
type variantImporter struct {
	t       *treeImporter
	ip      string
	variant *types.Package
}

func (v variantImporter) Import(path string) (*types.Package, error) {
	return v.ImportFrom(path, "", 0)
}

func (v variantImporter) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path == v.ip {
		return v.variant, nil
	}
	return v.t.ImportFrom(path, dir, mode)
}

// stdOwners maps the fields and explicit interface methods of the package-level defined
// types of standard-library packages (loaded by the importer, without their syntax) to
// "<ip>::<type>.<member>", one package at a time.
type stdOwners struct {
	fset *token.FileSet
	pkgs map[*types.Package]map[types.Object]string
}

func (s stdOwners) owner(obj types.Object, deps bool) (string, bool) {
	pkg := obj.Pkg()
	if pkg == nil || !(isStdPath(pkg.Path()) || deps) {
		return "", false
	}
	m, ok := s.pkgs[pkg]
	if !ok {
		m = map[types.Object]string{}
		// Of the types sharing a struct's fields (`type U T`), the one whose declaration
		// spells the struct: the last type name before the field in its file.
		spelledBy := map[types.Object]token.Pos{}
		for _, named := range definedTypes(pkg) {
			tn, name := named.Obj(), named.Obj().Name()
			var members []types.Object
			switch u := named.Underlying().(type) {
			case *types.Struct:
				for i := 0; i < u.NumFields(); i++ {
					members = append(members, u.Field(i))
				}
			case *types.Interface:
				for i := 0; i < u.NumExplicitMethods(); i++ {
					members = append(members, u.ExplicitMethod(i))
				}
			}
			for _, f := range members {
				sameFile := s.fset.File(tn.Pos()) == s.fset.File(f.Pos())
				if !sameFile || tn.Pos() > f.Pos() || (spelledBy[f].IsValid() && spelledBy[f] > tn.Pos()) {
					continue
				}
				spelledBy[f] = tn.Pos()
				m[f] = pkg.Path() + "::" + name + "." + f.Name()
			}
		}
		s.pkgs[pkg] = m
	}
	target, ok := m[obj]
	return target, ok
}
