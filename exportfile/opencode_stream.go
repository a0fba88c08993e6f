package exportfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/sharevat/sharevat"
)

// opencodeSource reads an opencode export token by token
// (encoding/json's Decoder.Token), holding one message info or one part
// at a time, never the whole export: its memory is bounded by the
// largest entity, whatever the size of the file. The check pass learns
// the session info, the todos, the op count and the digest of the op
// ids (the export's identity); the import pass (Again) reads the
// messages again and takes the rest from the check pass.
type opencodeSource struct {
	dec    *json.Decoder
	b      ocBuilder
	state  ocState
	replay bool // the import pass

	info    json.RawMessage // the session info
	session ocSession
	todos   json.RawMessage
	msgN    int  // messages begun
	partN   int  // parts of the current message
	hasMsg  bool // the current message's info is read
	pending []json.RawMessage

	n      int       // ops returned
	digest hash.Hash // of the op ids returned
	id     string    // the identity, once the check pass ended
	total0 int       // the op count of the check pass
}

// ocState is where opencodeSource is in the export's structure.
type ocState int

const (
	ocTop       ocState = iota // in the top-level object
	ocMessages                 // in the messages array
	ocInMessage                // in one message object
	ocParts                    // in a message's parts array
	ocEnd                      // after the top-level object
	ocDone                     // every op returned
)

// errNotOpencode says what import reads, for input that is neither.
var errNotOpencode = formatf(`the input is neither a sharevat export (first line {"format":"sharevat-export",...}) ` +
	`nor an opencode session export ({"info":{"id":"ses_...",...},"messages":[...]}, from 'opencode export <sessionID>')`)

// readOpencode starts the check pass over an opencode export.
func readOpencode(r io.Reader) (Source, error) {
	s := &opencodeSource{dec: json.NewDecoder(r), b: ocBuilder{models: map[string]bool{}}, digest: sha256.New()}
	if tok, err := s.dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotOpencode
	}
	return s, nil
}

// Again starts the import pass over r: the session op first, from the
// info the check pass read.
func (s *opencodeSource) Again(r io.Reader) (Source, error) {
	t := &opencodeSource{dec: json.NewDecoder(r), b: ocBuilder{models: map[string]bool{}}, digest: sha256.New(),
		replay: true, info: s.info, session: s.session, todos: s.todos, id: s.id, total0: s.total0}
	if tok, err := t.dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, Changed(errNotOpencode)
	}
	return t, t.b.add(sharevat.KindSession, t.session.ID, t.info)
}

func (s *opencodeSource) Identity() string { return s.id }

func (s *opencodeSource) Total() int { return s.total0 }

func (s *opencodeSource) Meta() sharevat.MetaPatch {
	se := &s.session
	return sharevat.MetaPatch{Title: &se.Title, ProjectID: &se.ProjectID, Directory: &se.Directory, Version: &se.Version}
}

func (s *opencodeSource) Settings() (sharevat.Settings, bool, error) {
	return sharevat.Settings{}, false, nil
}

// Next returns the next op, reading as far as it takes.
func (s *opencodeSource) Next() (sharevat.Op, error) {
	for {
		if op, ok := s.b.pop(); ok {
			s.n++
			s.digest.Write([]byte(op.OpID + "\n"))
			return op, nil
		}
		if s.state == ocDone {
			return sharevat.Op{}, s.end()
		}
		if err := s.step(); err != nil {
			return sharevat.Op{}, s.wrap(err)
		}
	}
}

// wrap says where a malformed export is malformed.
func (s *opencodeSource) wrap(err error) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the export ends in the middle: it is cut short")
	}
	if s.msgN > 0 {
		err = fmt.Errorf("message %d: %w", s.msgN, err)
	}
	return formatf("opencode export: %v (near byte %d)", err, s.dec.InputOffset())
}

// end records what the check pass learned, or checks the import pass
// read the same ops.
func (s *opencodeSource) end() error {
	sum := hex.EncodeToString(s.digest.Sum(nil)[:16])
	if !s.replay {
		s.id, s.total0 = "opencode:"+s.session.ID+":"+sum, s.n
		return io.EOF
	}
	if s.n != s.total0 || "opencode:"+s.session.ID+":"+sum != s.id {
		return Changed(fmt.Errorf("it now holds %d ops, %d before, or other ones", s.n, s.total0))
	}
	return io.EOF
}

// step reads the next piece of the export.
func (s *opencodeSource) step() error {
	switch s.state {
	case ocTop:
		return s.top()
	case ocMessages:
		return s.messages()
	case ocInMessage:
		return s.message()
	case ocParts:
		return s.part()
	}
	return s.finish()
}

// top reads one member of the top-level object.
func (s *opencodeSource) top() error {
	if !s.dec.More() {
		s.state = ocEnd
		return s.delim('}')
	}
	key, err := s.key()
	if err != nil {
		return err
	}
	switch {
	case key == "messages":
		s.state = ocMessages
		return s.delim('[')
	case s.replay || (key != "info" && key != "todos"):
		return s.skip()
	case key == "todos":
		return s.dec.Decode(&s.todos)
	}
	return s.sessionInfo()
}

// sessionInfo reads the session info and queues its op.
func (s *opencodeSource) sessionInfo() error {
	if err := s.dec.Decode(&s.info); err != nil {
		return err
	}
	if err := json.Unmarshal(s.info, &s.session); err != nil || s.session.ID == "" {
		return errNotOpencode
	}
	return s.b.add(sharevat.KindSession, s.session.ID, s.info)
}

// messages begins the next message, or ends the array.
func (s *opencodeSource) messages() error {
	if !s.dec.More() {
		s.state = ocTop
		return s.delim(']')
	}
	s.msgN++
	s.partN, s.hasMsg, s.pending = 0, false, nil
	s.state = ocInMessage
	if err := s.delim('{'); err != nil {
		return errors.New("not an object")
	}
	return nil
}

// message reads one member of a message object ("info", "parts").
func (s *opencodeSource) message() error {
	if !s.dec.More() {
		return s.endMessage()
	}
	key, err := s.key()
	switch {
	case err != nil:
		return err
	case key == "parts":
		s.state = ocParts
		return s.delim('[')
	case key != "info":
		return s.skip()
	}
	var info json.RawMessage
	if err := s.dec.Decode(&info); err != nil {
		return err
	}
	if err := s.b.messageInfo(info); err != nil {
		return err
	}
	s.hasMsg = true
	for i, raw := range s.pending { // parts before their info: rare
		if err := s.b.part(raw, i+1); err != nil {
			return err
		}
	}
	s.pending = nil
	return nil
}

// endMessage ends a message object, which must have had an info.
func (s *opencodeSource) endMessage() error {
	if err := s.delim('}'); err != nil {
		return err
	}
	if !s.hasMsg {
		return errors.New("its info is not a message with an id")
	}
	s.state = ocMessages
	return nil
}

// part reads one part of the current message, or ends the array.
func (s *opencodeSource) part() error {
	if !s.dec.More() {
		s.state = ocInMessage
		return s.delim(']')
	}
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return err
	}
	s.partN++
	if !s.hasMsg {
		s.pending = append(s.pending, raw)
		return nil
	}
	return s.b.part(raw, s.partN)
}

// finish queues the ops that follow the messages, once the top-level
// object is read whole.
func (s *opencodeSource) finish() error {
	if s.session.ID == "" {
		return errNotOpencode
	}
	s.state = ocDone
	return s.b.tail(&s.session, s.todos)
}

// key reads an object's member name.
func (s *opencodeSource) key() (string, error) {
	tok, err := s.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("unexpected %v", tok)
	}
	return k, nil
}

// delim reads the delimiter d.
func (s *opencodeSource) delim(d rune) error {
	tok, err := s.dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim(d) {
		return fmt.Errorf("found %v where %q was expected", tok, d)
	}
	return nil
}

// skip reads past one value nobody needs.
func (s *opencodeSource) skip() error {
	var v json.RawMessage
	return s.dec.Decode(&v)
}
