package harmony_test

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// apiPackages are the module's importable packages, each recorded in
// api/NAME.txt. A package added to the module must be added here, which
// TestAPIPackagesListed checks.
var apiPackages = map[string]string{
	".":            "harmony",
	"openaicompat": "openaicompat",
	"jsonschema":   "jsonschema",
	"constrain":    "constrain",
}

// TestAPI keeps the exported API of every public package in api/NAME.txt,
// one declaration a line, so that a change of API shows in review as a
// change of that file. After a deliberate change, run
//
//	go test . -run TestAPI -update
func TestAPI(t *testing.T) {
	for dir, name := range apiPackages {
		got := strings.Join(apiLines(t, dir), "\n") + "\n"
		file := filepath.Join("api", name+".txt")
		if golden.Updating() {
			require.NoError(t, os.MkdirAll("api", 0o755))
			require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(file)
		require.NoError(t, err, "run go test . -run TestAPI -update to write it")
		assert.Empty(t, lineDiff(string(want), got), "the exported API of %s differs from %s as shown. If the change is deliberate, run go test . -run TestAPI -update and commit %s.", name, file, file)
	}
}

// TestAPIPackagesListed fails when a directory of the module holds a
// non-main package outside internal/ that TestAPI does not record.
func TestAPIPackagesListed(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		base := d.Name()
		if path != "." && (base == "internal" || base == "testdata" || base == "node_modules" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // a module of its own
		}
		pkg, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		if pkg.Name != "main" {
			assert.Contains(t, apiPackages, path, "package %s (%s) is not recorded in api/: add it to apiPackages", pkg.Name, path)
		}
		return nil
	})
	require.NoError(t, err)
}

// apiLines lists the exported declarations of the package in dir: its
// functions, types (with their exported fields and methods), constants and
// variables, sorted. Parameter names are left out, as in Go's own api files,
// so that only a change of what a caller writes shows.
func apiLines(t *testing.T, dir string) []string {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var lines []string
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		lines = append(lines, fileAPI(fset, f)...)
	}
	sort.Strings(lines)
	return lines
}

func fileAPI(fset *token.FileSet, f *ast.File) []string {
	expr := func(e ast.Expr) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, stripNames(e))
		return b.String()
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			sig := strings.TrimPrefix(expr(d.Type), "func")
			if d.Recv == nil {
				out = append(out, "func "+d.Name.Name+sig)
				continue
			}
			recv := expr(d.Recv.List[0].Type)
			if !ast.IsExported(strings.TrimLeft(recv, "*")) {
				continue
			}
			out = append(out, "method ("+recv+") "+d.Name.Name+sig)
		case *ast.GenDecl:
			var lastType string
			for i, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					out = append(out, typeAPI(s, expr)...)
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					typ := ""
					if s.Type != nil {
						typ = " " + expr(s.Type)
					} else if d.Tok == token.CONST && len(s.Values) == 0 && i > 0 {
						typ = lastType // an iota group repeats the type above
					}
					lastType = typ
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, kind+" "+n.Name+typ)
						}
					}
				}
			}
		}
	}
	return out
}

func typeAPI(s *ast.TypeSpec, expr func(ast.Expr) string) []string {
	name := s.Name.Name
	if s.Assign.IsValid() {
		return []string{"type " + name + " = " + expr(s.Type)}
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		out := []string{"type " + name + " struct"}
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 { // embedded
				e := expr(f.Type)
				if ast.IsExported(strings.TrimLeft(e[strings.LastIndex(e, ".")+1:], "*")) {
					out = append(out, "type "+name+" struct, embedded "+e)
				}
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					out = append(out, "type "+name+" struct, "+n.Name+" "+expr(f.Type))
				}
			}
		}
		return out
	case *ast.InterfaceType:
		out := []string{"type " + name + " interface"}
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					out = append(out, "type "+name+" interface, "+n.Name+strings.TrimPrefix(expr(m.Type), "func"))
				} else {
					out = append(out, "type "+name+" interface, unexported methods")
				}
			}
			if len(m.Names) == 0 {
				out = append(out, "type "+name+" interface, embedded "+expr(m.Type))
			}
		}
		return out
	default:
		return []string{"type " + name + " " + expr(s.Type)}
	}
}

// stripNames returns e with the parameter and result names of every function
// type in it removed.
func stripNames(e ast.Expr) ast.Expr {
	ft, ok := e.(*ast.FuncType)
	if !ok {
		return e
	}
	strip := func(fl *ast.FieldList) *ast.FieldList {
		if fl == nil {
			return nil
		}
		out := &ast.FieldList{}
		for _, f := range fl.List {
			n := max(len(f.Names), 1)
			for range n {
				out.List = append(out.List, &ast.Field{Type: stripNames(f.Type)})
			}
		}
		return out
	}
	return &ast.FuncType{TypeParams: ft.TypeParams, Params: strip(ft.Params), Results: strip(ft.Results)}
}

// lineDiff lists the lines only in want ("-") and only in got ("+"); both
// are sorted, so a merge is the whole diff.
func lineDiff(want, got string) string {
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	g := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var b strings.Builder
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case j == len(g) || (i < len(w) && w[i] < g[j]):
			fmt.Fprintf(&b, "-%s\n", w[i])
			i++
		case i == len(w) || g[j] < w[i]:
			fmt.Fprintf(&b, "+%s\n", g[j])
			j++
		default:
			i++
			j++
		}
	}
	return b.String()
}
