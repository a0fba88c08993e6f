package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK decodes a call's arguments whole (into generic values, for its
// schema check, then into the tool's type) before the tool sees them: an
// append_ops of 400,000 tiny ops fits in a few MiB of JSON yet takes
// hundreds of MiB decoded. So the ops of an append_ops call are counted
// in the raw message first, one op at a time, and a call of more than
// the vat takes in one batch is answered here, naming the limit.

// overOps reports whether msg, one JSON-RPC message, is an append_ops
// call with more than max ops, and answers its id.
func overOps(msg []byte, max int) (json.RawMessage, bool) {
	if !bytes.Contains(msg, []byte(`"ops"`)) {
		return nil, false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Ops opCount `json:"ops"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "tools/call" || m.Params.Name != "append_ops" {
		return nil, false // the SDK answers what is malformed
	}
	return m.ID, int(m.Params.Arguments.Ops) > max
}

// opCount is the length of a JSON array, counted element by element
// without keeping them; anything else counts 0.
type opCount int

func (c *opCount) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	n := 0
	for dec.More() {
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
		n++
	}
	*c = opCount(n)
	return nil
}

// tooManyOps is the JSON-RPC error of an append_ops over max ops.
func tooManyOps(id json.RawMessage, max int) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code":    jsonrpc.CodeInvalidParams,
		"message": fmt.Sprintf("invalid: append_ops takes at most %d ops per call (the vat's max ops per batch); split the ops into several calls", max),
	}})
	return b
}

// boundOps answers an HTTP append_ops of more than max ops itself (200,
// a JSON-RPC error), before the SDK decodes it. The gate has read the
// body into memory.
func boundOps(max int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body) // in memory: cannot fail
		r.Body = io.NopCloser(bytes.NewReader(b))
		if id, over := overOps(b, max); over {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(tooManyOps(id, max))
			return
		}
		next.ServeHTTP(w, r)
	})
}
