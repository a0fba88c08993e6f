package privacy

import "bytes"

// walker finds the strings of a JSON body and scans them.
type walker struct {
	body    []byte
	buf     []byte // decoded text of strings with escapes
	sc      scanner
	spans   []span
	matches []Match
	frames  []frame // the open objects and arrays, up to maxFrames
	depth   int     // objects and arrays open
	pemOpen bool    // the last string ended inside a private key block
	// Joins (join.go): the value string scanned last, and buffers.
	prev      str
	hasPrev   bool
	pairOpen  bool // prev's last secret is of a rule with a pair
	prevWhole bool // prev ends with a specific rule's match
	joined    bool // a join added matches: w.matches needs merging
	jbuf      []byte
	jspans    []span
}

// frame is an open object or array.
type frame struct {
	// ctx, if set, is the secret-sounding key the container is the
	// value of, or that of a container around it: its strings are read
	// as the values of that name ({"password": {"value": "…"}},
	// {"api_key": ["…"]}).
	ctx    str
	hasCtx bool
	// env, if set, is the value of the object's "name" or "key" member,
	// when it is a secret-sounding name: the object's "value" member is
	// read as its value ({"name": "API_TOKEN", "value": "…"}).
	env    str
	hasEnv bool
}

// maxFrames bounds the containers that keep a context; deeper ones have
// none.
const maxFrames = 64

// str is a JSON string: its content (between the quotes) is
// body[start:end]; esc says whether it holds escapes.
type str struct {
	start, end int
	esc        bool
}

// walk scans every string of b. It needs no parse: outside strings,
// JSON holds no quote, so each quote starts a string; a string followed
// by ':' is an object key, and the string after it, if any, its value;
// brackets outside strings open and close containers.
func (w *walker) walk(b []byte) {
	w.body = b
	var key str
	pending := false
	for i := 0; i < len(b); {
		c := b[i]
		if c != '"' {
			if pending && !isSpace(c) {
				w.scanKey(key)
				pending = false
				if c == '{' || c == '[' {
					w.open(&key)
					i++
					continue
				}
			}
			switch c {
			case '{', '[':
				w.open(nil)
			case '}', ']':
				w.close()
			}
			i++
			continue
		}
		s := stringAt(b, i+1)
		i = s.end + 1
		j := i
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		switch {
		case j < len(b) && b[j] == ':':
			if pending {
				w.scanKey(key)
			}
			key, pending, i = s, true, j+1
		case pending:
			w.member(key, s)
			pending = false
		default:
			w.value(s)
		}
	}
	if pending {
		w.scanKey(key)
	}
	if w.joined {
		w.matches = mergeMatches(w.matches)
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// open opens a container, the value of key if key is not nil.
func (w *walker) open(key *str) {
	w.depth++
	if w.depth > maxFrames {
		return
	}
	var f frame
	if n := len(w.frames); n > 0 {
		f.ctx, f.hasCtx = w.frames[n-1].ctx, w.frames[n-1].hasCtx
	}
	if key != nil && w.isName(*key) {
		f.ctx, f.hasCtx = *key, true
	}
	w.frames = append(w.frames, f)
}

// close closes the innermost container.
func (w *walker) close() {
	if w.depth == 0 {
		return
	}
	if w.depth <= maxFrames {
		w.frames = w.frames[:len(w.frames)-1]
	}
	w.depth--
}

// top returns the innermost container's frame, or nil.
func (w *walker) top() *frame {
	if w.depth == 0 || w.depth > maxFrames {
		return nil
	}
	return &w.frames[len(w.frames)-1]
}

// isName reports whether s's text holds a name some rule needs.
func (w *walker) isName(s str) bool {
	w.buf = w.appendText(w.buf[:0], s)
	return hasName(w.buf)
}

// member scans an object member's key on its own, then its value: with
// the name it is assigned to (its key, the object's "name" member, the
// key of a container around it) when that is a name some rule needs,
// else on its own.
func (w *walker) member(key, val str) {
	w.scanKey(key)
	w.joinPrev(val)
	f := w.top()
	switch {
	case w.isName(key):
		w.named(key, val)
	case f != nil && f.hasEnv && w.textIs(key, "value"):
		w.named(f.env, val)
	case f != nil && f.hasCtx:
		w.named(f.ctx, val)
	default:
		w.scan(val)
	}
	w.scanned(val, w.spans)
	if f != nil && (w.textIs(key, "name") || w.textIs(key, "key")) && w.isName(val) {
		f.env, f.hasEnv = val, true
	}
}

// value scans a string that is not a member's: an array's element.
func (w *walker) value(s str) {
	w.joinPrev(s)
	if f := w.top(); f != nil && f.hasCtx {
		w.named(f.ctx, s)
	} else {
		w.scan(s)
	}
	w.scanned(s, w.spans)
}

// textIs reports whether s's text is word, in any ASCII case.
func (w *walker) textIs(s str, word string) bool {
	raw := w.body[s.start:s.end]
	return len(raw) == len(word) && containsFold(raw, []byte(word))
}

// scanKey scans an object key on its own.
func (w *walker) scanKey(s str) {
	text := w.text(s)
	w.spans = w.sc.findAll(text, 0, w.spans[:0])
	w.record(s, 0)
}

// scan scans a value on its own.
func (w *walker) scan(s str) {
	text := w.text(s)
	if w.continuesPEM(s, text) {
		return
	}
	w.spans = w.sc.findAll(text, 0, w.spans[:0])
	w.pemOpen = opensPEM(text, w.spans)
	w.record(s, 0)
}

// named scans a value as assigned to name: the text name=value.
func (w *walker) named(name, val str) {
	if w.continuesPEM(val, w.text(val)) {
		return
	}
	w.buf = w.appendText(w.buf[:0], name)
	from := len(w.buf) + 1
	w.buf = w.appendText(append(w.buf, '='), val)
	w.spans = w.sc.findAll(w.buf, from, w.spans[:0])
	w.pemOpen = opensPEM(w.buf[from:], w.spans)
	w.record(val, from)
}

// text returns s's decoded text (in buf when it holds escapes).
func (w *walker) text(s str) []byte {
	if !s.esc {
		return w.body[s.start:s.end]
	}
	w.buf = decode(w.body[s.start:s.end], w.buf[:0])
	return w.buf
}

// continuesPEM redacts s, whose text is text, as the next lines of a
// private key block the strings before it began, when it starts with
// one (pemRest): its base64 lines, and the END line if it follows; the
// rest of text is scanned. It reports whether it did.
func (w *walker) continuesPEM(s str, text []byte) bool {
	if !w.pemOpen {
		return false
	}
	a, b, open := pemRest(text)
	if b-a < 4 {
		w.pemOpen = false
		return false
	}
	w.spans = append(w.spans[:0], span{a, b, privateKeyRule})
	if w.pemOpen = open; !open {
		w.spans = w.sc.findAll(text, b, w.spans)
	}
	w.record(s, 0)
	return true
}

// privateKeyRule is the rule private key blocks are redacted under.
var privateKeyRule = func() *rule {
	for _, r := range rules {
		if r.ID == "private-key" {
			return r
		}
	}
	panic("no private-key rule")
}()

// opensPEM reports whether text, with the spans found in it, ends inside
// a private key block: with a BEGIN line, or with a block's base64 and no
// END line.
func opensPEM(text []byte, spans []span) bool {
	_, b := trimBlank(text)
	text = text[:b]
	if n := len(spans); n > 0 && spans[n-1].r == privateKeyRule && spans[n-1].e >= b {
		return !bytes.HasSuffix(text, []byte("-----"))
	}
	if !bytes.HasSuffix(text, []byte("-----")) {
		return false
	}
	tail := max(0, len(text)-pemHeaderWindow)
	i := bytes.LastIndex(text[tail:], []byte("-----BEGIN"))
	if i < 0 {
		return false
	}
	i += tail
	h := pemBegin.FindIndex(text[i:])
	return h != nil && i+h[1] == len(text)
}

// trimBlank returns the bounds of text without its leading and trailing
// blanks.
func trimBlank(text []byte) (int, int) {
	a, b := 0, len(text)
	for a < b && isSpace(text[a]) {
		a++
	}
	for b > a && isSpace(text[b-1]) {
		b--
	}
	return a, b
}

// appendText appends the decoded content of s to dst.
func (w *walker) appendText(dst []byte, s str) []byte {
	raw := w.body[s.start:s.end]
	if !s.esc {
		return append(dst, raw...)
	}
	return decode(raw, dst)
}

// record turns the spans found in s's text (which starts at offset
// from of the scanned text) into matches on the body.
func (w *walker) record(s str, from int) {
	if len(w.spans) == 0 {
		return
	}
	raw := w.body[s.start:s.end]
	pos := make([]int, 0, 2*len(w.spans))
	for _, sp := range w.spans {
		pos = append(pos, sp.s-from, sp.e-from)
	}
	if s.esc {
		rawPositions(raw, pos)
	}
	for i, sp := range w.spans {
		w.matches = append(w.matches, Match{Rule: sp.r.ID, Start: s.start + pos[2*i], End: s.start + pos[2*i+1]})
	}
}
