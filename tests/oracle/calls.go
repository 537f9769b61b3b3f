package main

// With -calls the oracle lists the static calls go/types resolves to package-level funcs:
// "<caller ID> -> <callee ID>", one per caller/callee pair, sorted. The caller is the
// enclosing top-level func or method declaration (calls in function literals belong to
// it; init and _ funcs and package-level initialisers are skipped). A call counts when its
// function expression (parentheses and explicit instantiation removed) is an identifier or
// a package-qualified selector that go/types resolves to a package-level *types.Func.

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
)

func packageCalls(ctxt *build.Context, fset *token.FileSet, imp types.Importer, dir, ip string) []string {
	files := loadFiles(ctxt, fset, dir, ip)
	if len(files) == 0 {
		return nil
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp, Error: func(error) {}, FakeImportC: true}
	_, _ = conf.Check(ip, fset, files, info) // type errors do not matter here
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			caller := callerID(ip, fd, info)
			if caller == "" {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if callee := calleeID(call.Fun, info); callee != "" {
					edge := caller + " -> " + callee
					if !seen[edge] {
						seen[edge] = true
						out = append(out, edge)
					}
				}
				return true
			})
		}
	}
	return out
}

func callerID(ip string, fd *ast.FuncDecl, info *types.Info) string {
	name := fd.Name.Name
	if name == "_" || (fd.Recv == nil && name == "init") {
		return ""
	}
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return ""
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return ip + "::" + name
	}
	t, star := recv.Type(), ""
	if p, ok := t.(*types.Pointer); ok {
		t, star = p.Elem(), "*"
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s::(%s%s).%s", ip, star, named.Origin().Obj().Name(), name)
}

func calleeID(fun ast.Expr, info *types.Info) string {
	for {
		switch e := fun.(type) {
		case *ast.ParenExpr:
			fun = e.X
			continue
		case *ast.IndexExpr:
			fun = e.X
			continue
		case *ast.IndexListExpr:
			fun = e.X
			continue
		}
		break
	}
	var id *ast.Ident
	switch e := fun.(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return ""
		}
		if _, ok := info.Uses[x].(*types.PkgName); !ok {
			return ""
		}
		id = e.Sel
	default:
		return ""
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Parent() != fn.Pkg().Scope() {
		return ""
	}
	return fn.Pkg().Path() + "::" + fn.Name()
}
