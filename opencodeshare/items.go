package opencodeshare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"sharevat"
)

// item is one element of a sync's data array as opencode sends it.
type item struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// ids are the fields of an item's data the mapping reads.
type ids struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
}

// toOp maps one item to its op (docs/opencode.md, "Item mapping"):
// kind = type; key = the session id for session, session_diff and model,
// the message id for message, <messageID>/<id> for part; body = data
// compacted (its key order and number text kept); op id =
// opencode:<kind>:<key>:<12 hex of SHA-256(body)>. sessionID is the
// share's session, the key of session_diff and model (whose data carries
// no id). Any other type, or data without the ids its type needs, is
// invalid.
func toOp(it item, sessionID string) (sharevat.Op, error) {
	var body bytes.Buffer
	if len(it.Data) == 0 {
		return sharevat.Op{}, fail(http.StatusBadRequest, fmt.Sprintf("invalid: a %s item has no data", safeType(it.Type)))
	}
	if err := json.Compact(&body, it.Data); err != nil {
		return sharevat.Op{}, fail(http.StatusBadRequest, "invalid: an item's data is not JSON")
	}
	key, err := itemKey(it, body.Bytes(), sessionID)
	if err != nil {
		return sharevat.Op{}, err
	}
	sum := sha256.Sum256(body.Bytes())
	return sharevat.Op{
		OpID: "opencode:" + it.Type + ":" + key + ":" + hex.EncodeToString(sum[:6]),
		Kind: it.Type, Key: key, Body: body.Bytes(),
	}, nil
}

// itemKey is the op key of it (see toOp).
func itemKey(it item, body []byte, sessionID string) (string, error) {
	switch it.Type {
	case sharevat.KindSessionDiff, sharevat.KindModel:
		return sessionID, nil
	case sharevat.KindSession, sharevat.KindMessage, sharevat.KindPart:
	default:
		return "", fail(http.StatusBadRequest, fmt.Sprintf("invalid: unknown item type %s (want session, message, part, session_diff or model)", safeType(it.Type)))
	}
	var d ids
	if body[0] != '{' || json.Unmarshal(body, &d) != nil || d.ID == "" {
		return "", fail(http.StatusBadRequest, fmt.Sprintf("invalid: a %s item's data needs a string id", it.Type))
	}
	if it.Type != sharevat.KindPart {
		return d.ID, nil
	}
	if d.MessageID == "" {
		return "", fail(http.StatusBadRequest, "invalid: a part item's data needs a string messageID")
	}
	return d.MessageID + "/" + d.ID, nil
}

// safeType quotes an item type for an error: short and plain, or not at
// all (a token pasted there must not come back).
func safeType(t string) string {
	if len(t) > 32 {
		return "(too long to quote)"
	}
	for _, c := range t {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "(not quoted)"
		}
	}
	return fmt.Sprintf("%q", t)
}

// clientKey is the key the public share server sorts items by, and the
// order GET …/data answers them in: session, message/<id>,
// part/<messageID>/<id>, session_diff, model.
func clientKey(kind, key string) string {
	switch kind {
	case sharevat.KindMessage, sharevat.KindPart:
		return kind + "/" + key
	}
	return kind
}
