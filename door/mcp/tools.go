package mcp

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
)

// hints are a tool's MCP annotations (docs/mcp.md lists each tool's).
type hints struct {
	readOnly    bool // changes nothing
	destructive bool // may take away what was there (meaningful when not readOnly)
	idempotent  bool // the same arguments again change nothing more
}

var (
	// reading changes nothing, however often.
	reading = hints{readOnly: true, idempotent: true}
	// adding makes something new (ops, a token, a fork) and takes nothing
	// away: the log is append-only, a tombstone is a new op.
	adding = hints{}
	// removing takes away what was there (a revoked grant's tokens stop
	// working); doing it again changes nothing more.
	removing = hints{destructive: true, idempotent: true}
)

// annotations are the MCP annotations of h; no tool reaches outside the
// vat (openWorldHint false).
func (h hints) annotations() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: h.readOnly, DestructiveHint: &h.destructive,
		IdempotentHint: h.idempotent, OpenWorldHint: new(bool)}
}

// addTool adds a typed tool whose input schema is inferred and then
// bounded by d's limits (bound), its output schema inferred.
func addTool[In, Out any](d *door, s *mcp.Server, name, title, desc string, h hints, fn mcp.ToolHandlerFor[In, Out]) {
	in := schemaFor[In]()
	d.bound(in)
	t := &mcp.Tool{Name: name, Title: title, Description: desc,
		InputSchema: in, OutputSchema: schemaFor[Out](), Annotations: h.annotations()}
	mcp.AddTool(s, t, fn)
}

// schemaFor infers T's JSON schema, a json.RawMessage being any JSON
// value (op bodies).
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		panic(err) // the types are this package's: a bug
	}
	return s
}

// bound gives an input schema the bounds and enums its arguments have,
// by property name: what the tool or the vat would refuse anyway is
// refused by the schema, before the call, with the bound in the answer.
func (d *door) bound(s *jsonschema.Schema) {
	l := d.opts.Limits
	for name, p := range s.Properties {
		switch name {
		case "fromCursor", "atCursor", "offset", "ttlSeconds":
			p.Minimum = ptr(0.0)
		case "limit":
			p.Minimum, p.Maximum = ptr(1.0), ptr(float64(maxPage))
		case "waitSeconds":
			p.Minimum, p.Maximum = ptr(1.0), ptr(float64(maxWait))
		case "batchId":
			p.MaxLength = ptr(l.MaxOpIDLen)
		case "ops":
			p.Type, p.Types = "array", nil // never null
			p.MinItems, p.MaxItems = ptr(1), ptr(l.MaxOpsPerBatch)
			d.boundOp(p.Items)
		}
	}
	if t := s.Properties["ttlSeconds"]; t != nil {
		t.Maximum = ptr(float64(maxTTLSeconds))
	}
}

// boundOp bounds the schema of one op of append_ops.
func (d *door) boundOp(op *jsonschema.Schema) {
	if op == nil {
		return
	}
	l := d.opts.Limits
	op.Properties["kind"].Enum = []any{sharevat.KindSession, sharevat.KindMessage, sharevat.KindPart,
		sharevat.KindSessionDiff, sharevat.KindModel, sharevat.KindEvent}
	op.Properties["opId"].MaxLength = ptr(l.MaxOpIDLen)
	op.Properties["key"].MaxLength = ptr(l.MaxKeyLen)
	deps := op.Properties["dependsOn"]
	deps.Type, deps.Types = "array", nil
	deps.MaxItems = ptr(l.MaxDependsOn)
}

func ptr[T any](v T) *T { return &v }
