package exportfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sharevat/sharevat"
)

// `opencode export <sessionID>` prints one JSON object (indented):
//
//	{"info": Session.Info,
//	 "messages": [{"info": MessageV2.Info, "parts": [MessageV2.Part, …]}, …],
//	 "todos": [Todo, …]}                       (todos: newer opencode only)
//
// Session.Info has id ("ses_…"), projectID, directory, parentID?, title,
// version, time {created, updated} (Unix ms), summary? {additions,
// deletions, files, diffs?: [FileDiff]}, share?, revert?. A message's
// info is a user message (role "user", model {providerID, modelID}) or
// an assistant message (role "assistant", providerID, modelID, parentID,
// tokens, cost, …); every part has id ("prt_…"), sessionID, messageID
// and type (text, reasoning, tool, file, step-start, step-finish, patch,
// agent, subtask, snapshot, retry, compaction). importOpencode maps them
// onto the standard kinds (docs/export-format.md, "opencode"):
//
//	session info           → session       key: the session id
//	a model first used     → model         key: providerID/modelID
//	message info           → message       key: the message id
//	part                   → part          key: the part id
//	info.summary.diffs     → session_diff  key: the session id
//	todos                  → event         {"type":"todo.updated","properties":{"sessionID","todos"}}
//
// Bodies are opencode's own JSON objects, compacted. Op ids are
// "opencode:<kind>:<key>:" and the first 12 hex digits of the body's
// SHA-256, so importing the same session again is all duplicates while
// an entity whose content changed since is appended as a new version.

// ocSession is what import reads of Session.Info.
type ocSession struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Summary   *struct {
		Diffs json.RawMessage `json:"diffs"`
	} `json:"summary"`
}

// ocMessage is what import reads of a message's info.
type ocMessage struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
	Model      *struct {
		ProviderID string `json:"providerID"`
		ModelID    string `json:"modelID"`
	} `json:"model"`
}

// ocPart is what import reads of a part.
type ocPart struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// ocBuilder turns the entities of an opencode export into ops, queued
// in order until the source returns them.
type ocBuilder struct {
	ops    []sharevat.Op
	models map[string]bool // the models given an op already
}

// pop returns the first queued op; ok is false when none is.
func (b *ocBuilder) pop() (op sharevat.Op, ok bool) {
	if len(b.ops) == 0 {
		return op, false
	}
	op, b.ops[0] = b.ops[0], sharevat.Op{}
	b.ops = b.ops[1:]
	if len(b.ops) == 0 {
		b.ops = nil // let the queue's array go
	}
	return op, true
}

// messageInfo queues the ops of a message's info: its model, the first
// time one names it, then the message.
func (b *ocBuilder) messageInfo(info json.RawMessage) error {
	var m ocMessage
	if err := json.Unmarshal(info, &m); err != nil || m.ID == "" {
		return fmt.Errorf("its info is not a message with an id")
	}
	if err := b.model(&m); err != nil {
		return err
	}
	return b.add(sharevat.KindMessage, m.ID, info)
}

// part queues the op of the part raw, the j-th of its message.
func (b *ocBuilder) part(raw json.RawMessage, j int) error {
	var p ocPart
	if err := json.Unmarshal(raw, &p); err != nil || p.ID == "" {
		return fmt.Errorf("part %d is not a part with an id", j)
	}
	return b.add(sharevat.KindPart, p.ID, raw)
}

// tail queues what follows the messages: the session's diffs, then its
// todos as opencode's todo.updated event.
func (b *ocBuilder) tail(se *ocSession, todos json.RawMessage) error {
	if se.Summary != nil && nonEmptyArray(se.Summary.Diffs) {
		if err := b.add(sharevat.KindSessionDiff, se.ID, se.Summary.Diffs); err != nil {
			return err
		}
	}
	if !nonEmptyArray(todos) {
		return nil
	}
	ev, err := json.Marshal(map[string]any{"type": "todo.updated", "properties": map[string]any{"sessionID": se.ID, "todos": todos}})
	if err != nil {
		return err
	}
	b.addOp("todos", sharevat.KindEvent, "", se.ID, ev)
	return nil
}

// model appends a model op the first time a message names its model.
func (b *ocBuilder) model(m *ocMessage) error {
	provider, model := m.ProviderID, m.ModelID
	if m.Model != nil {
		provider, model = m.Model.ProviderID, m.Model.ModelID
	}
	key := provider + "/" + model
	if provider == "" || model == "" || b.models[key] {
		return nil
	}
	b.models[key] = true
	body, err := json.Marshal(map[string]string{"providerID": provider, "modelID": model})
	if err != nil {
		return err
	}
	b.addOp(sharevat.KindModel, sharevat.KindModel, key, key, body)
	return nil
}

// add appends a state op whose body is raw, compacted.
func (b *ocBuilder) add(kind, key string, raw json.RawMessage) error {
	var body bytes.Buffer
	if err := json.Compact(&body, raw); err != nil {
		return fmt.Errorf("%s %s: %v", kind, key, err)
	}
	b.addOp(kind, kind, key, key, body.Bytes())
	return nil
}

// addOp appends one op; its id names what it came from and its content.
func (b *ocBuilder) addOp(what, kind, key, from string, body []byte) {
	sum := sha256.Sum256(body)
	id := "opencode:" + what + ":" + from + ":" + hex.EncodeToString(sum[:6])
	b.ops = append(b.ops, sharevat.Op{OpID: id, Kind: kind, Key: key, Body: body})
}

// nonEmptyArray reports whether raw is a JSON array with an element.
func nonEmptyArray(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return strings.HasPrefix(t, "[") && strings.TrimSpace(t[1:]) != "]"
}
