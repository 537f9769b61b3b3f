// Command oracle lists, for a directory tree (GOROOT/src by default), every package-level
// symbol ID go/types reports under linux/amd64 with cgo off, tests excluded: package-scope
// objects (funcs, types, vars, consts; not "_", not init) and the explicit methods of named
// types, as "<import path>::Name" and "<import path>::(*T).M" / "<import path>::(T).M"
// (receiver as declared). One ID per line, sorted.
//
// Package inventory (matching `go list std cmd` and DocForge's walker): every directory
// under the root, skipping "testdata" and names starting with "_" or "."; a directory with
// a go.mod starts a module. Import path = module path + "/" + directory relative to the
// module root, except module "std" whose packages have no prefix (so GOROOT/src/vendor/x is
// "vendor/x" and GOROOT/src/cmd/vendor/x is "cmd/vendor/x", as go list names them).
// File selection is go/build's (Context.ImportDir with GOOS=linux GOARCH=amd64
// CgoEnabled=false, default release and tool tags); packages `go list std cmd` leaves out
// are dropped (goListExcluded). Type checking uses the "source"
// importer; type errors are ignored (they never change which package-level objects exist).
// -calls, -implements, -cha and -uses list other facts of the same packages (see calls.go,
// implements.go, cha.go, uses.go).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

func main() {
	root := flag.String("root", filepath.Join(runtime.GOROOT(), "src"), "directory tree to list")
	noImports := flag.Bool("fake-imports", false, "do not type-check imported packages (faster; same package-level objects)")
	calls := flag.Bool("calls", false, "list static calls of package-level funcs instead of symbol IDs (see calls.go)")
	implements := flag.Bool("implements", false, "list implements pairs of the tree's named types instead of symbol IDs (see implements.go)")
	stdOnly := flag.Bool("std-only", false, "skip <root>/cmd (GOROOT/src: module std only)")
	usesMode := flag.Bool("uses", false, "list identifier uses of the tree's package-level objects instead of symbol IDs (see uses.go)")
	fieldsMode := flag.Bool("fields", false, "list uses of struct fields of the tree's package-level named types instead of symbol IDs (see fields.go)")
	stdMode := flag.Bool("std", false, "with -uses or -fields: also the uses of package-level objects of standard-library packages outside the tree and of their types' methods, fields and interface methods")
	depsMode := flag.Bool("deps", false, "with -std: also the objects of module dependencies outside the tree (packages the tree's go.mod requires)")
	testsMode := flag.Bool("tests", false, "with -fields or -uses: also the uses in _test.go files, each package type-checked as `go test` builds it")
	chaMode := flag.Bool("cha", false, "list go/ssa + callgraph/cha call edges with call-site positions instead of symbol IDs (see cha.go)")
	flag.Parse()

	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled, ctxt.Compiler = "linux", "amd64", false, "gc"
	ctxt.BuildTags = nil
	build.Default = ctxt // the source importer reads build.Default

	fset := token.NewFileSet()
	var imp types.Importer = importer.ForCompiler(fset, "source", nil)
	if *noImports {
		imp = fakeImporter{}
	}
	var ids []string
	tree := newTreeImporter(&ctxt, fset)
	ssaTree := newSSATree(&ctxt, fset)
	var walk func(dir, modPath, modDir string)
	walk = func(dir, modPath, modDir string) {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if p := modulePath(data); p != "" {
				modPath, modDir = p, dir
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		if modPath != "" {
			ip := importPath(modPath, modDir, dir)
			if *chaMode {
				ssaTree.add(ip, dir, modPath)
			} else if *implements || *usesMode || *fieldsMode {
				tree.add(ip, dir, modPath)
			} else if *calls {
				ids = append(ids, packageCalls(&ctxt, fset, imp, dir, ip)...)
			} else {
				ids = append(ids, packageIDs(&ctxt, fset, imp, dir, ip)...)
			}
		}
		for _, e := range entries {
			n := e.Name()
			if *stdOnly && dir == *root && n == "cmd" {
				continue
			}
			if e.IsDir() && n != "testdata" && !strings.HasPrefix(n, "_") && !strings.HasPrefix(n, ".") {
				walk(filepath.Join(dir, n), modPath, modDir)
			}
		}
	}
	walk(*root, "", "")
	if *implements {
		ids = tree.implementsLines()
	}
	if *chaMode {
		ids = ssaTree.chaLines(*root)
	}
	if *usesMode {
		tree.tests = *testsMode
		tree.std = *stdMode
		tree.deps = *depsMode
		ids = tree.usesLines(*root)
	}
	if *fieldsMode {
		tree.tests = *testsMode
		tree.std = *stdMode
		tree.deps = *depsMode
		ids = tree.fieldLines(*root)
	}
	sort.Strings(ids)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	prev := ""
	for _, id := range ids {
		if id != prev {
			fmt.Fprintln(w, id)
		}
		prev = id
	}
}

func importPath(modPath, modDir, dir string) string {
	rel, _ := filepath.Rel(modDir, dir)
	rel = filepath.ToSlash(rel)
	switch {
	case rel == ".":
		return modPath
	case modPath == "std":
		return rel
	default:
		return modPath + "/" + rel
	}
}

// modulePath returns the module path of a go.mod file (its first "module" directive).
// vendoredPath is where the go command looks first for an import made from module modPath:
// GOROOT's std and cmd modules have their own vendor trees; "" for any other module.
func vendoredPath(modPath, path string) string {
	switch modPath {
	case "std":
		return "vendor/" + path
	case "cmd":
		return "cmd/vendor/" + path
	}
	return ""
}

func modulePath(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			if p, err := strconv.Unquote(f[1]); err == nil {
				return p
			}
			return f[1]
		}
	}
	return ""
}

// goListExcluded mirrors what `go list std cmd` leaves out although the directory has Go
// files (cmd/go/internal/modload/search.go): the pseudo-package builtin, runtime/cgo when
// cgo is disabled, and vendored commands under cmd/vendor.
func goListExcluded(ip, name string, ctxt *build.Context) bool {
	switch {
	case ip == "builtin":
		return true
	case ip == "runtime/cgo" && !ctxt.CgoEnabled:
		return true
	case strings.HasPrefix(ip, "cmd/vendor/") && name == "main":
		return true
	}
	return false
}

type fakeImporter struct{}

func (fakeImporter) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("not importing %s", path)
}

// loadFiles parses the Go files go/build selects in dir (tests excluded).
func loadFiles(ctxt *build.Context, fset *token.FileSet, dir, ip string) []*ast.File {
	bp, err := ctxt.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); !ok {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
		}
		if bp == nil || len(bp.GoFiles) == 0 {
			return nil
		}
	}
	if goListExcluded(ip, bp.Name, ctxt) {
		return nil
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		}
		if f != nil {
			files = append(files, f)
		}
	}
	return files
}

func packageIDs(ctxt *build.Context, fset *token.FileSet, imp types.Importer, dir, ip string) []string {
	files := loadFiles(ctxt, fset, dir, ip)
	if len(files) == 0 {
		return nil
	}
	conf := types.Config{Importer: imp, Error: func(error) {}, FakeImportC: true}
	pkg, _ := conf.Check(ip, fset, files, nil)
	if pkg == nil {
		return nil
	}
	var ids []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if name == "_" || name == "init" {
			continue
		}
		ids = append(ids, ip+"::"+name)
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for i := 0; i < named.NumMethods(); i++ {
			m := named.Method(i)
			if m.Name() == "_" {
				continue
			}
			recv := m.Type().(*types.Signature).Recv()
			star := ""
			if recv != nil {
				if _, ok := recv.Type().(*types.Pointer); ok {
					star = "*"
				}
			}
			ids = append(ids, fmt.Sprintf("%s::(%s%s).%s", ip, star, name, m.Name()))
		}
	}
	return ids
}
