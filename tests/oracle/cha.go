package main

// With -cha the oracle builds go/ssa for every package of the tree (the same inventory and
// file selection as the other modes; all packages type-checked against each other as in
// implements.go) and computes golang.org/x/tools/go/callgraph/cha's call graph (its
// callee function, over a complete function set: see allFunctions). It prints one line per
// (call site, caller, callee):
//
//	<file>:<line>:<col>\t<caller ID>\t<callee ID>\t<static|invoke|dynamic>\t<synthetic|->
//
// file is relative to -root; the position is the call's "(" (ssa.CallCommon.Pos). The caller
// is the enclosing package-level func or method (anonymous functions map to their enclosing
// declaration; synthetic callers — wrappers, thunks, package initializers and what they
// enclose — are skipped). Callees that are anonymous functions are skipped (their calls
// already belong to the enclosing declaration). A synthetic callee (wrapper, thunk, bound
// method) is printed as the declared method it forwards to, marked "synthetic"; generic
// instances are printed at declaration identity (origin). IDs: "pkg::F", "pkg::(*T).M",
// "pkg::(T).M" (receiver as declared). "init" funcs are "pkg::init". Sorted.

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
	"golang.org/x/tools/go/types/typeutil"
)

type ssaPkg struct {
	ip, dir, modPath string
	pkg              *types.Package
	files            []*ast.File
	info             *types.Info
	checking         bool
}

type ssaTree struct {
	ctxt     *build.Context
	fset     *token.FileSet
	pkgs     map[string]*ssaPkg
	byDir    map[string]*ssaPkg
	order    []*ssaPkg
	fallback types.ImporterFrom
}

func newSSATree(ctxt *build.Context, fset *token.FileSet) *ssaTree {
	return &ssaTree{ctxt: ctxt, fset: fset, pkgs: map[string]*ssaPkg{}, byDir: map[string]*ssaPkg{},
		fallback: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)}
}

func (t *ssaTree) add(ip, dir, modPath string) {
	p := &ssaPkg{ip: ip, dir: dir, modPath: modPath}
	t.pkgs[ip] = p
	t.byDir[dir] = p
	t.order = append(t.order, p)
}

func (t *ssaTree) Import(path string) (*types.Package, error) { return t.ImportFrom(path, "", 0) }

func (t *ssaTree) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
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

func (t *ssaTree) check(p *ssaPkg) *types.Package {
	if p.pkg != nil || p.checking {
		if p.pkg == nil {
			return types.NewPackage(p.ip, "cycle")
		}
		return p.pkg
	}
	p.checking = true
	p.files = loadFiles(t.ctxt, t.fset, p.dir, p.ip)
	p.info = &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{Importer: t, Error: func(error) {}, FakeImportC: true}
	pkg, _ := conf.Check(p.ip, t.fset, p.files, p.info)
	if pkg == nil {
		pkg = types.NewPackage(p.ip, "invalid")
	}
	p.pkg, p.checking = pkg, false
	return pkg
}

// chaLines builds SSA for every tree package and lists the CHA call edges.
func (t *ssaTree) chaLines(root string) []string {
	prog := ssa.NewProgram(t.fset, 0)
	created := map[*types.Package]bool{}
	var createDeps func(pkg *types.Package)
	createDeps = func(pkg *types.Package) {
		for _, imp := range pkg.Imports() {
			if !created[imp] {
				created[imp] = true
				createDeps(imp)
				prog.CreatePackage(imp, nil, nil, true)
			}
		}
	}
	var tree []*ssaPkg
	for _, p := range t.order {
		t.check(p)
		if len(p.files) > 0 {
			tree = append(tree, p)
		}
	}
	for _, p := range tree {
		created[p.pkg] = true
	}
	for _, p := range tree {
		prog.CreatePackage(p.pkg, p.files, p.info, true)
	}
	for _, p := range tree {
		createDeps(p.pkg)
	}
	prog.Build()
	funcs := allFunctions(prog, tree)
	callees := lazyCallees(funcs)
	seen := map[string]bool{}
	var out []string
	for fn := range funcs {
		caller := callerOf(fn)
		if caller == "" {
			continue
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				pos := t.fset.Position(site.Common().Pos())
				if !pos.IsValid() {
					continue
				}
				rel, err := filepath.Rel(root, pos.Filename)
				if err != nil {
					rel = pos.Filename
				}
				kind := "dynamic"
				switch {
				case site.Common().IsInvoke():
					kind = "invoke"
				case site.Common().StaticCallee() != nil:
					kind = "static"
				}
				for _, g := range callees(site) {
					callee, synthetic := calleeOf(g)
					if callee == "" {
						continue
					}
					syn := "-"
					if synthetic {
						syn = "synthetic"
					}
					line := fmt.Sprintf("%s:%d:%d\t%s\t%s\t%s\t%s", filepath.ToSlash(rel), pos.Line, pos.Column, caller, callee, kind, syn)
					if !seen[line] {
						seen[line] = true
						out = append(out, line)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// allFunctions is ssautil.AllFunctions (what cha.CallGraph analyses) seeded also with every
// method declared on a package-level named type of the tree — exported or not, generic
// (origin body) or not — and the method sets of the non-generic ones: the contract is
// about the code, not about a linker's reachability. Closed under references (anonymous
// functions, wrappers, instances).
func allFunctions(prog *ssa.Program, tree []*ssaPkg) map[*ssa.Function]bool {
	seen := ssautil.AllFunctions(prog)
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || seen[fn] {
			return
		}
		seen[fn] = true
		var buf [10]*ssa.Value
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				for _, op := range instr.Operands(buf[:0]) {
					if g, ok := (*op).(*ssa.Function); ok {
						visit(g)
					}
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	for fn := range seen {
		delete(seen, fn)
		visit(fn)
	}
	for _, p := range tree {
		scope := p.pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || types.IsInterface(named) {
				continue
			}
			for m := range named.Methods() {
				visit(prog.FuncValue(m))
			}
			if named.TypeParams() != nil {
				continue
			}
			for _, T := range []types.Type{named, types.NewPointer(named)} {
				for sel := range prog.MethodSets.MethodSet(T).Methods() {
					if sel.Obj().(*types.Func).Signature().TypeParams() == nil {
						visit(prog.MethodValue(sel))
					}
				}
			}
		}
	}
	return seen
}

// lazyCallees is golang.org/x/tools/go/callgraph/internal/chautil.LazyCallees (v0.52.0),
// the callee function of cha.CallGraph, over the given function set.
func lazyCallees(fns map[*ssa.Function]bool) func(site ssa.CallInstruction) []*ssa.Function {
	var funcsBySig typeutil.Map
	methodsByID := make(map[string][]*ssa.Function)
	type imethod struct {
		I  *types.Interface
		id string
	}
	methodsMemo := make(map[imethod][]*ssa.Function)
	lookupMethods := func(I *types.Interface, m *types.Func) []*ssa.Function {
		id := m.Id()
		methods, ok := methodsMemo[imethod{I, id}]
		if !ok {
			for _, f := range methodsByID[id] {
				C := f.Signature.Recv().Type()
				if types.Implements(C, I) {
					methods = append(methods, f)
				}
			}
			methodsMemo[imethod{I, id}] = methods
		}
		return methods
	}
	for f := range fns {
		if f.Signature.Recv() == nil {
			if f.Name() == "init" && f.Synthetic == "package initializer" {
				continue
			}
			funcs, _ := funcsBySig.At(f.Signature).([]*ssa.Function)
			funcs = append(funcs, f)
			funcsBySig.Set(f.Signature, funcs)
		} else if obj := f.Object(); obj != nil {
			id := obj.(*types.Func).Id()
			methodsByID[id] = append(methodsByID[id], f)
		}
	}
	return func(site ssa.CallInstruction) []*ssa.Function {
		call := site.Common()
		if call.IsInvoke() {
			tiface := call.Value.Type().Underlying().(*types.Interface)
			return lookupMethods(tiface, call.Method)
		} else if g := call.StaticCallee(); g != nil {
			return []*ssa.Function{g}
		} else if _, ok := call.Value.(*ssa.Builtin); !ok {
			fns, _ := funcsBySig.At(call.Signature()).([]*ssa.Function)
			return fns
		}
		return nil
	}
}

// funcID is the Gograph ID of a package-level func or declared method ("" otherwise).
func funcID(obj types.Object) string {
	f, ok := obj.(*types.Func)
	if !ok || f.Pkg() == nil {
		return ""
	}
	f = f.Origin()
	sig := f.Type().(*types.Signature)
	recv := sig.Recv()
	if recv == nil {
		if f.Parent() != f.Pkg().Scope() && f.Name() != "init" {
			return ""
		}
		return f.Pkg().Path() + "::" + f.Name()
	}
	rt, star := recv.Type(), ""
	if p, ok := rt.(*types.Pointer); ok {
		rt, star = p.Elem(), "*"
	}
	named, ok := types.Unalias(rt).(*types.Named)
	if !ok {
		return ""
	}
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return ""
	}
	return fmt.Sprintf("%s::(%s%s).%s", f.Pkg().Path(), star, named.Origin().Obj().Name(), f.Name())
}

func callerOf(fn *ssa.Function) string {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Synthetic != "" || fn.Object() == nil {
		return ""
	}
	return funcID(fn.Object())
}

func calleeOf(fn *ssa.Function) (string, bool) {
	if fn.Parent() != nil {
		return "", false
	}
	synthetic := false
	if o := fn.Origin(); o != nil {
		fn = o
	} else if s := fn.Synthetic; strings.HasPrefix(s, "wrapper") || strings.HasPrefix(s, "thunk") || strings.HasPrefix(s, "bound") {
		synthetic = true
	}
	if fn.Object() == nil {
		return "", false
	}
	return funcID(fn.Object()), synthetic
}
