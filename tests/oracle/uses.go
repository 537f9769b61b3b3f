package main

// With -uses the oracle lists every identifier go/types records in types.Info.Uses whose
// object is a package-level func, type, var or const (its parent is its package's scope) of
// a package of the walked tree: "<file relative to the root>:<line>:<column> <import
// path>::<Name>" (1-based byte column of the identifier), sorted. Packages are type-checked
// against each other as in -implements (tests excluded); methods, fields, locals, type
// parameters, labels, package names and objects of packages outside the tree are left out.

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
)

func (t *treeImporter) usesLines(root string) []string {
	var out []string
	for _, p := range t.order {
		t.check(p) // imports of the tree are canonical packages
		files := loadFiles(t.ctxt, t.fset, p.dir, p.ip)
		if len(files) == 0 {
			continue
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
		_, _ = conf.Check(p.ip, t.fset, files, info)
		for id, obj := range info.Uses {
			if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || t.pkgs[obj.Pkg().Path()] == nil {
				continue
			}
			switch obj.(type) {
			case *types.Func, *types.TypeName, *types.Var, *types.Const:
			default:
				continue
			}
			pos := t.fset.Position(id.Pos())
			rel, err := filepath.Rel(root, pos.Filename)
			if err != nil {
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d:%d %s::%s", filepath.ToSlash(rel), pos.Line, pos.Column, obj.Pkg().Path(), obj.Name()))
		}
	}
	return out
}
