package tsclient_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// capnpSchema is what schema/sharevat.capnp declares, as far as the
// TypeScript types mirror it.
type capnpSchema struct {
	structs    map[string][]string               // struct → field names (a union group counts as one field)
	enums      map[string][]string               // enum → enumerants
	interfaces map[string]map[string]capnpMethod // interface → method → shape
	codes      []string                          // the error codes of the header
}

type capnpMethod struct {
	params, results []string
}

var (
	blockRe  = regexp.MustCompile(`^(struct|enum|interface) (\w+) \{$`)
	fieldRe  = regexp.MustCompile(`^(\w+) @\d+ :[\w()]+;$`)
	unionRe  = regexp.MustCompile(`^(\w+) :union \{$`)
	enumRe   = regexp.MustCompile(`^(\w+) @\d+;$`)
	methodRe = regexp.MustCompile(`^(\w+) @\d+ \((.*)\) -> (stream|\((.*)\));$`)
	codeRe   = regexp.MustCompile(`^#   ([a-z][A-Za-z]+) {2,}\S`)
)

// parseSchema reads schema/sharevat.capnp strictly: a line inside a block
// that is neither a comment nor a declaration it knows fails the test, so
// a new kind of declaration cannot slip past the comparison.
func parseSchema(t *testing.T, path string) capnpSchema {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s := capnpSchema{structs: map[string][]string{}, enums: map[string][]string{}, interfaces: map[string]map[string]capnpMethod{}}
	var kind, name string
	inUnion, inCodes := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		if strings.HasPrefix(raw, "# Errors.") {
			inCodes = true
		} else if strings.HasPrefix(raw, "# Not domain errors") {
			inCodes = false
		}
		if m := codeRe.FindStringSubmatch(raw); inCodes && m != nil {
			s.codes = append(s.codes, m[1])
		}
		line := strings.TrimSpace(raw)
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "":
		case kind == "":
			if m := blockRe.FindStringSubmatch(line); m != nil {
				kind, name = m[1], m[2]
				if kind == "interface" {
					s.interfaces[name] = map[string]capnpMethod{}
				}
			}
		case line == "}" && inUnion:
			inUnion = false
		case line == "}":
			kind = ""
		case inUnion:
			require.Regexp(t, fieldRe, line, "schema line %d in a union", n)
		case kind == "struct" && unionRe.MatchString(line):
			s.structs[name] = append(s.structs[name], unionRe.FindStringSubmatch(line)[1])
			inUnion = true
		case kind == "struct":
			m := fieldRe.FindStringSubmatch(line)
			require.NotNil(t, m, "schema line %d: not a field this test understands: %q", n, line)
			s.structs[name] = append(s.structs[name], m[1])
		case kind == "enum":
			m := enumRe.FindStringSubmatch(line)
			require.NotNil(t, m, "schema line %d: not an enumerant: %q", n, line)
			s.enums[name] = append(s.enums[name], m[1])
		case kind == "interface":
			m := methodRe.FindStringSubmatch(line)
			require.NotNil(t, m, "schema line %d: not a one-line method: %q", n, line)
			s.interfaces[name][m[1]] = capnpMethod{params: names(m[2]), results: names(m[4])}
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, s.codes, "no error codes found in the schema's header")
	return s
}

// names is the field names of a capnp parameter list "a :T, b :U".
func names(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if n, _, ok := strings.Cut(strings.TrimSpace(p), " :"); ok {
			out = append(out, n)
		}
	}
	return out
}

// tsShape is what scripts/wire-shape.mjs prints for src/wire.ts.
type tsShape struct {
	Interfaces map[string]map[string]struct {
		Params []string `json:"params"`
		Result []string `json:"result"`
	} `json:"interfaces"`
	Types  map[string][]string `json:"types"`
	Unions map[string][]string `json:"unions"`
}

// inputTypes are the TypeScript types a client sends, by the schema
// struct they stand for, and the fields of it they leave out (set by the
// server, ignored on input).
var inputTypes = map[string]struct {
	struct_ string
	omit    []string
}{
	"ScopeInput":    {"Scope", nil},
	"MetaInput":     {"Meta", []string{"createdAt", "updatedAt", "statusAt"}},
	"SettingsInput": {"Settings", nil},
}

// TestTypesMatchSchema: the package's wire types (src/wire.ts, from which
// interop/capnweb/sharevat.d.ts is generated) name every interface,
// method, parameter, struct field, enumerant and error code of
// schema/sharevat.capnp, and nothing else: a schema change the types
// miss fails here.
func TestTypesMatchSchema(t *testing.T) {
	node := needNode(t)
	schema := parseSchema(t, filepath.Join("..", "..", "schema", "sharevat.capnp"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, filepath.Join("scripts", "wire-shape.mjs")).Output()
	require.NoError(t, err, "scripts/wire-shape.mjs")
	var ts tsShape
	require.NoError(t, json.Unmarshal(out, &ts))

	for name, fields := range schema.structs {
		require.Contains(t, ts.Types, name, "schema struct %s has no TypeScript type in src/wire.ts", name)
		require.Equal(t, sorted(fields), ts.Types[name], "the fields of %s", name)
	}
	for tsName, in := range inputTypes {
		want := slices.DeleteFunc(sorted(schema.structs[in.struct_]), func(f string) bool { return slices.Contains(in.omit, f) })
		require.Equal(t, want, ts.Types[tsName], "the fields of %s (input form of %s)", tsName, in.struct_)
	}
	for name, members := range schema.enums {
		require.Equal(t, sorted(members), ts.Unions[name], "the members of enum %s", name)
	}
	require.Equal(t, sorted(schema.codes), ts.Unions["ErrorCode"], "the error codes (the schema's header) and ErrorCode")
	require.Len(t, ts.Interfaces, len(schema.interfaces), "interfaces: schema %v", keys(schema.interfaces))
	for iface, methods := range schema.interfaces {
		got, ok := ts.Interfaces[iface]
		require.True(t, ok, "schema interface %s has no TypeScript interface", iface)
		require.Equal(t, keys(methods), keys(got), "the methods of %s", iface)
		for m, want := range methods {
			require.Equal(t, orEmpty(want.params), orEmpty(got[m].Params), "the parameters of %s.%s", iface, m)
			if len(want.results) > 1 {
				require.Equal(t, sorted(want.results), got[m].Result, "the result fields of %s.%s", iface, m)
			}
		}
	}
	t.Logf("%d structs, %d enums, %d interfaces, %d error codes match", len(schema.structs), len(schema.enums), len(schema.interfaces), len(schema.codes))
}

// TestInteropDeclarationIsGenerated: interop/capnweb/sharevat.d.ts is
// what `npm run gen:interop` makes of src/wire.ts.
func TestInteropDeclarationIsGenerated(t *testing.T) {
	node := needNode(t)
	out, err := exec.Command(node, filepath.Join("scripts", "gen-interop.mjs"), "--check").CombinedOutput()
	require.NoError(t, err, "%s", out)
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return orEmpty(out)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
