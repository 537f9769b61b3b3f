package main

// With -uses the oracle lists every identifier go/types records in types.Info.Uses whose
// object is a package-level func, type, var or const (its parent is its package's scope) or
// a method of a named non-interface type (for an instantiated generic type, the generic
// method) of a package of the walked tree: "<file relative to the root>:<line>:<column>
// <symbol ID>" (1-based byte column of the identifier; IDs as the default mode lists them),
// sorted. Packages are type-checked against each other as in -implements (tests excluded;
// with -tests, also the uses in test files, type-checked as `go test` builds them);
// fields, interface methods, locals, type parameters, labels, package names and objects of
// packages outside the tree are left out (with -std, the package-level objects of
// standard-library packages outside the tree and the methods of their types are listed
// too, and predeclared names as uses of package builtin's declarations). The builtins of
// package unsafe count as uses of the tree's unsafe package (when the tree has it:
// GOROOT/src, or with -std), which declares them.

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"strings"
)

func (t *treeImporter) usesLines(root string) []string {
	var out []string
	for _, p := range t.order {
		t.check(p) // imports of the tree are canonical packages
		files := loadFiles(t.ctxt, t.fset, p.dir, p.ip)
		if len(files) == 0 {
			if t.tests { // a package of test files only
				for _, c := range t.testBuilds(p, nil, map[string]string{}) {
					out = append(out, t.useLines(root, c.info)...)
				}
			}
			continue
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
		_, _ = conf.Check(p.ip, t.fset, files, info)
		out = append(out, t.useLines(root, info)...)
		if t.tests {
			for _, c := range t.testBuilds(p, files, map[string]string{}) {
				out = append(out, t.useLines(root, c.info)...)
			}
		}
	}
	return out
}

// methodID is the symbol ID of a method of a named non-interface type (the generic method
// for an instantiated type), "" otherwise.
func methodID(fn *types.Func) string {
	fn = fn.Origin()
	t, star := fn.Type().(*types.Signature).Recv().Type(), ""
	if p, ok := t.(*types.Pointer); ok {
		t, star = p.Elem(), "*"
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || types.IsInterface(named) {
		return ""
	}
	return fmt.Sprintf("%s::(%s%s).%s", fn.Pkg().Path(), star, named.Origin().Obj().Name(), fn.Name())
}

// useLine is "<file relative to root>:<line>:<column> <target>" for the identifier id.
func (t *treeImporter) useLine(root string, id *ast.Ident, target string) (string, bool) {
	pos := t.fset.Position(id.Pos())
	rel, err := filepath.Rel(root, pos.Filename)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s:%d:%d %s", filepath.ToSlash(rel), pos.Line, pos.Column, target), true
}

// useLines lists the uses of info as -uses does.
func (t *treeImporter) useLines(root string, info *types.Info) []string {
	var out []string
	for id, obj := range info.Uses {
		if b, ok := obj.(*types.Builtin); ok && b.Parent() == types.Unsafe.Scope() && (t.pkgs["unsafe"] != nil || t.std) {
			// unsafe.Sizeof & co. are builtins to go/types; the tree's unsafe package
			// declares them (for documentation), and that is where their uses go.
			if line, ok := t.useLine(root, id, "unsafe::"+b.Name()); ok {
				out = append(out, line)
			}
			continue
		}
		if t.std && obj.Parent() == types.Universe {
			// With -std, predeclared names count as uses of the builtin package's
			// declarations (as gopls shows them), except those the engine's grammar reads
			// as tokens, not identifiers.
			switch obj.Name() {
			case "true", "false", "nil", "iota":
			default:
				if line, ok := t.useLine(root, id, "builtin::"+obj.Name()); ok {
					out = append(out, line)
				}
			}
			continue
		}
		if obj.Pkg() == nil || t.pkgs[strings.TrimSuffix(obj.Pkg().Path(), "_test")] == nil {
			// (An external test package "x_test" of a tree package x counts as the tree's.)
			// With -std, a standard-library package's objects count too.
			if !t.std || obj.Pkg() == nil || !(isStdPath(obj.Pkg().Path()) || t.deps) {
				continue
			}
		}
		target := obj.Pkg().Path() + "::" + obj.Name()
		if fn, ok := obj.(*types.Func); ok && fn.Type().(*types.Signature).Recv() != nil {
			if target = methodID(fn); target == "" {
				continue
			}
		} else if obj.Parent() != obj.Pkg().Scope() {
			continue
		}
		switch obj.(type) {
		case *types.Func, *types.TypeName, *types.Var, *types.Const:
		default:
			continue
		}
		if line, ok := t.useLine(root, id, target); ok {
			out = append(out, line)
		}
	}
	return out
}

// isStdPath reports whether an import path can only name a standard-library package (its
// first element has no dot).
func isStdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return path != "C" && !strings.Contains(first, ".")
}
