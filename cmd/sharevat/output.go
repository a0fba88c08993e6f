package main

import (
	"encoding/json"
	"io"
	"time"

	"github.com/sharevat/sharevat"
)

// jsonEntry is one op as `read` prints it (docs/design.md §11).
type jsonEntry struct {
	Cursor  uint64          `json:"cursor"`
	OpID    string          `json:"op_id"`
	BatchID string          `json:"batch_id"`
	Kind    string          `json:"kind"`
	Key     string          `json:"key,omitempty"`
	Body    json.RawMessage `json:"body"`
	Delete  bool            `json:"delete,omitempty"`
	At      string          `json:"at"`
}

// rawBody returns a body as raw JSON; an empty body (a delete) is null.
func rawBody(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

func toJSONEntry(e *sharevat.Entry) jsonEntry {
	return jsonEntry{
		Cursor: uint64(e.Cursor), OpID: e.OpID, BatchID: e.BatchID, Kind: e.Kind, Key: e.Key,
		Body: rawBody(e.Body), Delete: e.Delete, At: e.At.Format(time.RFC3339Nano),
	}
}

// jsonEntity is one item of `snapshot`.
type jsonEntity struct {
	Kind   string          `json:"kind"`
	Key    string          `json:"key"`
	Body   json.RawMessage `json:"body"`
	Cursor uint64          `json:"cursor"`
	At     string          `json:"at"`
}

// writeJSON writes v as one JSON line.
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
