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
// type-checked against each other as in -uses (tests excluded).

import (
	"go/ast"
	"go/token"
	"go/types"
)

func (t *treeImporter) fieldLines(root string) []string {
	type checked struct {
		pkg  *types.Package
		info *types.Info
	}
	var all []checked
	// The position of each field's declaring identifier → "<import path>::<type>.<field>".
	owners := map[string]string{}
	for _, p := range t.order {
		t.check(p)
		files := loadFiles(t.ctxt, t.fset, p.dir, p.ip)
		if len(files) == 0 {
			continue
		}
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
								owners[t.fset.Position(n.Pos()).String()] = p.ip + "::" + ts.Name.Name + "." + n.Name
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
							owners[t.fset.Position(n.Pos()).String()] = p.ip + "::" + ts.Name.Name + "." + n.Name
						}
					}
				}
			}
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
		pkg, _ := conf.Check(p.ip, t.fset, files, info)
		if pkg == nil {
			continue
		}
		all = append(all, checked{pkg, info})
	}
	var out []string
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
