package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// MaxSyncItems bounds the items of one sync. A long opencode session's
// full sync is about a thousand items; the bound keeps a body of tiny
// items (`[0,0,…]`) from costing far more memory than its bytes, which
// the memory budget counts.
const MaxSyncItems = 65536

// syncBody is a sync's body, parsed.
type syncBody struct {
	secret *string // nil: the body had none
	items  []item
}

// parseSync parses a sync's JSON body: an object with a "secret" string
// and a "data" array of at most MaxSyncItems items {"type","data"}. The
// items are decoded one by one, so that a body of too many (or of a
// wrong shape) is refused before they are all held.
func parseSync(b []byte) (syncBody, error) {
	var in struct {
		Secret *string         `json:"secret"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return syncBody{}, fail(http.StatusBadRequest, "invalid: the body is not the JSON object this call takes")
	}
	out := syncBody{secret: in.Secret}
	t := bytes.TrimSpace(in.Data)
	if len(t) == 0 || t[0] != '[' {
		return out, errNotItems
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if _, err := dec.Token(); err != nil { // the '['
		return out, errNotItems
	}
	for dec.More() {
		if len(out.items) == MaxSyncItems {
			return out, fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("tooLarge: a sync holds at most %d items", MaxSyncItems))
		}
		var it item
		if err := dec.Decode(&it); err != nil {
			return out, errNotItems
		}
		out.items = append(out.items, it)
	}
	return out, nil
}

var errNotItems = fail(http.StatusBadRequest, `invalid: data must be an array of items {"type","data"}`)

// dataBytes is the bytes of the items' data.
func (in syncBody) dataBytes() int64 {
	n := int64(0)
	for _, it := range in.items {
		n += int64(len(it.Data))
	}
	return n
}
