package acfcd

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// TestDocs: go doc of this package tells what a user needs without
// following the aliases: the package doc names every problem, the Params
// doc states the zero value of every field, the Dataset and Model aliases
// name every method of their types (documented in packages dataio and
// model), and Result says that Iterations are not liblinear's #iter.
func TestDocs(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.NewFromFiles(fset, files(pkgs["acfcd"]), "github.com/acfcd/acfcd")
	if err != nil {
		t.Fatal(err)
	}
	typeDoc := map[string]string{}
	for _, ty := range p.Types {
		typeDoc[ty.Name] = ty.Doc
		for _, s := range ty.Decl.Specs {
			ts := s.(*ast.TypeSpec)
			if ts.Doc != nil {
				typeDoc[ty.Name] += ts.Doc.Text()
			}
		}
	}
	for _, name := range []string{"LogisticPrimal", "SquaredHingeDual", "SquaredHingePrimal", "HingeDual", "CrammerSinger",
		"L1SquaredHinge", "L1Logistic", "LogisticDual", "SquaredSVRPrimal", "SquaredSVRDual", "SVRDual", "OneClassSVM",
		"Lasso", "WestonWatkins"} {
		if !strings.Contains(p.Doc, name) {
			t.Errorf("the package doc does not name %s", name)
		}
	}
	params := typeDoc["Params"]
	for f := range reflect.TypeFor[Params]().Fields() {
		if f.IsExported() && !strings.Contains(params, f.Name) {
			t.Errorf("the Params doc does not say what a zero %s means", f.Name)
		}
	}
	for _, want := range []string{"P: DefaultP = 0.1, not ε = 0", "ZeroBias", "-s 0, LogisticPrimal"} {
		if !strings.Contains(params, want) {
			t.Errorf("the Params doc lacks %q", want)
		}
	}
	for name, typ := range map[string]reflect.Type{"Dataset": reflect.TypeFor[*Dataset](), "Model": reflect.TypeFor[*Model]()} {
		for m := range typ.Methods() {
			if !strings.Contains(typeDoc[name], m.Name) {
				t.Errorf("the doc of %s does not name its method %s", name, m.Name)
			}
		}
	}
	if !strings.Contains(typeDoc["Dataset"], "Labels") || !strings.Contains(typeDoc["Model"], "Label") {
		t.Error("the docs of Dataset and Model do not tell Dataset.Label from Model.Labels")
	}
	if r := typeDoc["Result"]; !strings.Contains(r, "Iterations") || !strings.Contains(r, "#iter") {
		t.Errorf("the Result doc does not say what Iterations count: %q", r)
	}
}

// files returns the non-test files of pkg.
func files(pkg *ast.Package) []*ast.File {
	var fs []*ast.File
	for name, f := range pkg.Files {
		if !strings.HasSuffix(name, "_test.go") {
			fs = append(fs, f)
		}
	}
	return fs
}
