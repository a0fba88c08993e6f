package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sharevat"
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

// ocExport is the shape of opencode's export; bodies stay raw.
type ocExport struct {
	Info     json.RawMessage `json:"info"`
	Messages []struct {
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"messages"`
	Todos json.RawMessage `json:"todos"`
}

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

// opencodeSource replays the ops built from an opencode export.
type opencodeSource struct {
	session ocSession
	ops     []sharevat.Op
	id      string
	i       int
}

func (s *opencodeSource) identity() string { return s.id }

func (s *opencodeSource) meta() sharevat.MetaPatch {
	se := &s.session
	return sharevat.MetaPatch{Title: &se.Title, ProjectID: &se.ProjectID, Directory: &se.Directory, Version: &se.Version}
}

func (s *opencodeSource) total() int { return len(s.ops) }

func (s *opencodeSource) settings() (sharevat.Settings, bool, error) {
	return sharevat.Settings{}, false, nil
}

func (s *opencodeSource) next() (sharevat.Op, error) {
	if s.i == len(s.ops) {
		return sharevat.Op{}, io.EOF
	}
	s.i++
	return s.ops[s.i-1], nil
}

// errNotOpencode says what import reads, for input that is neither.
var errNotOpencode = usagef(`the input is neither a sharevat export (first line {"format":"sharevat-export",...}) ` +
	`nor an opencode session export ({"info":{"id":"ses_...",...},"messages":[...]}, from 'opencode export <sessionID>')`)

// readOpencode decodes an opencode export and builds its ops.
func readOpencode(r io.Reader) (importSource, error) {
	var doc ocExport
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil || len(doc.Info) == 0 {
		return nil, errNotOpencode
	}
	s := &opencodeSource{}
	if err := json.Unmarshal(doc.Info, &s.session); err != nil || s.session.ID == "" {
		return nil, errNotOpencode
	}
	b := &ocBuilder{models: map[string]bool{}}
	if err := b.build(&doc, &s.session); err != nil {
		return nil, usagef("opencode export: %v", err)
	}
	s.ops = b.ops
	s.id = "opencode:" + s.session.ID + ":" + b.digest()
	return s, nil
}

// ocBuilder turns an opencode export into ops, in order.
type ocBuilder struct {
	ops    []sharevat.Op
	models map[string]bool // the models given an op already
}

// build appends the session, each message (after the model it names,
// the first time) with its parts, the session's diffs and its todos.
func (b *ocBuilder) build(doc *ocExport, se *ocSession) error {
	if err := b.add(sharevat.KindSession, se.ID, doc.Info); err != nil {
		return err
	}
	for i, m := range doc.Messages {
		if err := b.message(m.Info, m.Parts); err != nil {
			return fmt.Errorf("message %d: %w", i+1, err)
		}
	}
	if se.Summary != nil && nonEmptyArray(se.Summary.Diffs) {
		if err := b.add(sharevat.KindSessionDiff, se.ID, se.Summary.Diffs); err != nil {
			return err
		}
	}
	if !nonEmptyArray(doc.Todos) {
		return nil
	}
	ev, err := json.Marshal(map[string]any{"type": "todo.updated", "properties": map[string]any{"sessionID": se.ID, "todos": doc.Todos}})
	if err != nil {
		return err
	}
	b.addOp("todos", sharevat.KindEvent, "", se.ID, ev)
	return nil
}

// message appends the ops of one message and its parts.
func (b *ocBuilder) message(info json.RawMessage, parts []json.RawMessage) error {
	var m ocMessage
	if err := json.Unmarshal(info, &m); err != nil || m.ID == "" {
		return fmt.Errorf("its info is not a message with an id")
	}
	if err := b.model(&m); err != nil {
		return err
	}
	if err := b.add(sharevat.KindMessage, m.ID, info); err != nil {
		return err
	}
	for j, raw := range parts {
		var p ocPart
		if err := json.Unmarshal(raw, &p); err != nil || p.ID == "" {
			return fmt.Errorf("part %d is not a part with an id", j+1)
		}
		if err := b.add(sharevat.KindPart, p.ID, raw); err != nil {
			return err
		}
	}
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

// digest fingerprints the ops built (their ids carry their content).
func (b *ocBuilder) digest() string {
	h := sha256.New()
	for i := range b.ops {
		h.Write([]byte(b.ops[i].OpID + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// nonEmptyArray reports whether raw is a JSON array with an element.
func nonEmptyArray(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return strings.HasPrefix(t, "[") && strings.TrimSpace(t[1:]) != "]"
}
