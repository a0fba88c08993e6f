package opencode

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// item is one element of a sync's data array as opencode sends it.
type item struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// fields are what the door reads of an item's data: the ids of its key.
// A non-string id is an error.
type fields struct {
	ID        string `json:"id"`
	MessageID string `json:"messageID"`
}

// mapped is an item's op and its version (order.go).
type mapped struct {
	op  sharevat.Op
	ver version
}

// toOp maps one item to its op (docs/opencode.md, "Item mapping"):
// kind = type; key = the session id for session, session_diff and model,
// the message id for message, <messageID>/<id> for part; body = data
// compacted (its key order and number text kept); op id =
// opencode:<kind>:<key>:<12 hex of SHA-256(body)>. sessionID is the
// share's session, the key of session_diff and model (whose data carries
// no id). Any other type, or data without the ids its type needs, is
// invalid.
func toOp(it item, sessionID string) (mapped, error) {
	var body bytes.Buffer
	if len(it.Data) == 0 {
		return mapped{}, fail(http.StatusBadRequest, fmt.Sprintf("invalid: a %s item has no data", safeType(it.Type)))
	}
	if err := json.Compact(&body, it.Data); err != nil {
		return mapped{}, fail(http.StatusBadRequest, "invalid: an item's data is not JSON")
	}
	b := body.Bytes()
	key, _, err := itemKey(it.Type, b, sessionID)
	if err != nil {
		return mapped{}, err
	}
	sum := sha256.Sum256(b)
	return mapped{
		op:  sharevat.Op{OpID: "opencode:" + it.Type + ":" + key + ":" + hex.EncodeToString(sum[:6]), Kind: it.Type, Key: key, Body: b},
		ver: version{Stamp: apply.Stamp(b), Size: len(b), Sum: sum},
	}, nil
}

// itemKey is the op key of an item of type typ (see toOp), and the
// fields of its data.
func itemKey(typ string, body []byte, sessionID string) (string, fields, error) {
	var f fields
	switch typ {
	case sharevat.KindSessionDiff, sharevat.KindModel:
		if body[0] == '{' {
			readFields(body, &f)
		}
		return sessionID, f, nil
	case sharevat.KindSession, sharevat.KindMessage, sharevat.KindPart:
	default:
		return "", f, fail(http.StatusBadRequest, fmt.Sprintf("invalid: unknown item type %s (want session, message, part, session_diff or model)", safeType(typ)))
	}
	if body[0] != '{' || !readFields(body, &f) || f.ID == "" {
		return "", f, fail(http.StatusBadRequest, fmt.Sprintf("invalid: a %s item's data needs a string id", typ))
	}
	if typ != sharevat.KindPart {
		return f.ID, f, nil
	}
	if f.MessageID == "" {
		return "", f, fail(http.StatusBadRequest, "invalid: a part item's data needs a string messageID")
	}
	return f.MessageID + "/" + f.ID, f, nil
}

// readFields decodes body's fields; false if an id is not a string.
func readFields(body []byte, f *fields) bool {
	err := json.Unmarshal(body, f)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field != "id" && te.Field != "messageID"
	}
	return err == nil
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
