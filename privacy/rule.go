package privacy

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Rule is one kind of secret the guard finds.
type Rule struct {
	// ID names the rule in [REDACTED:<id>] and in rejections: lower case,
	// digits and '-'. IDs are stable: never renamed or reused.
	ID string
	// Description says what the rule finds and in what form.
	Description string
}

// rule is a Rule with its matcher. A match is found where one of the
// keywords occurs: the expression is run, anchored, from back bytes
// before the keyword, over at most window bytes. The secret is the
// expression's submatch group (0: all of it).
type rule struct {
	Rule
	keywords []string
	fold     bool // keywords and names match regardless of ASCII case
	back     int  // the match starts this many bytes before the keyword
	pattern  string
	re       *regexp.Regexp
	body     *charset // every byte a match may hold: the window ends before any other
	group    int
	window   int      // bytes the expression may see (default 512)
	left     *charset // the byte before the match must not be one of these
	right    *charset // nor the byte after the secret
	long     bool     // a secret cut by the window goes on while bytes are in right
	assign   bool     // the keyword is a name: ':' or '=' must follow it soon
	nested   bool     // the keyword is a name and a nested value or an environment list's "value" follows it
	alt      *rule    // tried where this rule finds nothing at a keyword
	pair     *rule    // tried, at the same keyword, where this rule matched: an unnamed secret that follows its match
	generic  bool     // lower priority when matches overlap
	// ok, if set, is a last check of a match: win is the window the
	// expression ran over, m its submatch indexes.
	ok func(win []byte, m []int) bool
	// find, if set, replaces the expression: it returns the secret's
	// bounds for a match starting at start.
	find func(t []byte, start int) (s, e int, found bool)
}

const defaultWindow = 512

// Common charsets for boundaries.
var (
	alnum       = chars("A-Za-z0-9")
	word        = chars("A-Za-z0-9_")
	wordDash    = chars("A-Za-z0-9_-")
	base64Chars = chars("A-Za-z0-9+/=")
)

// sep is what may stand between a name and its value: closing quotes
// (escaped ones too, in JSON text inside a string), then ':', '=', ':='
// or '=>', then opening quotes.
const sep = `[\\"'\x60]{0,4}[ \t]{0,4}(?::=|=>|=\\u003[eE]|[:=])[ \t]{0,4}[\\"'\x60]{0,4}`

// nestedSep is what may stand between a name and a value nested one
// level below it, in JSON text: "password": {"value": "…"} or
// "password": ["…"].
const nestedSep = sep + `[\[{][ \t]*(?:\\?["']?[A-Za-z_]{1,16}\\?["']?[ \t]*:[ \t]*)?[\\"']{0,4}`

// envSep is what may stand between a name and its value in an
// environment list, in JSON or YAML text: "name": "API_TOKEN",
// "value": "…" or - name: API_TOKEN⏎  value: ….
const envSep = `[\\"'\x60]{0,4}[ \t]*,?[ \t]*(?:\r?\n|(?:\\r)?\\n)?[ \t]*[\\"'\x60]{0,4}(?i:value)` + sep

// compile prepares every rule's expression, anchored at its start.
func compile(rs []*rule) []*rule {
	for _, r := range rs {
		for _, sub := range []*rule{r.alt, r.pair} {
			if sub != nil {
				compile([]*rule{sub})
			}
		}
		if r.pattern != "" {
			r.re = regexp.MustCompile(`^(?:` + r.pattern + `)`)
			r.body = matchable(r.pattern)
		}
		if r.window == 0 {
			r.window = defaultWindow
		}
		if r.fold {
			for i, k := range r.keywords {
				r.keywords[i] = strings.ToLower(k)
			}
		}
	}
	return rs
}

// match tries r at a keyword found at i of t, and returns the secret's
// bounds.
func (r *rule) match(t []byte, i int) (s, e int, found bool) {
	start := i - r.back
	if start < 0 || (r.left != nil && start > 0 && r.left.has(before(t, start))) {
		return 0, 0, false
	}
	if r.assign && !assignmentFollows(t, i) || r.nested && !nestedFollows(t, i) {
		return 0, 0, false
	}
	if r.find != nil {
		return r.find(t, start)
	}
	end := min(len(t), start+r.window)
	for j := i; j < end; j++ {
		if !r.body.has(t[j]) {
			end = j
			break
		}
	}
	win := t[start:end]
	m := r.re.FindSubmatchIndex(win)
	if m == nil || m[2*r.group] < 0 {
		return 0, 0, false
	}
	s, e = start+m[2*r.group], start+m[2*r.group+1]
	if e == end && end < len(t) && r.right != nil && r.right.has(t[e]) {
		if !r.long {
			return 0, 0, false // cut by the window: longer than the format allows
		}
		for e < len(t) && r.right.has(t[e]) {
			e++
		}
	}
	if r.right != nil && e < len(t) && r.right.has(t[e]) {
		return 0, 0, false
	}
	if r.ok != nil && !r.ok(win, m) {
		return 0, 0, false
	}
	return s, e, true
}

// before returns the character before t[start]. In JSON text held in
// a JSON string (a tool's JSON output), that character may be written
// as an escape — \n before a line's first word, \u0026 for & in Go's
// JSON — and the character it stands for is returned instead.
func before(t []byte, start int) byte {
	if start >= 6 && t[start-5] == 'u' && escapes(t, start-6) {
		if r, ok := hex4(t[start-4 : start]); ok && r < 0x80 {
			return byte(r)
		}
	}
	c := t[start-1]
	if start >= 2 && escapes(t, start-2) {
		switch c {
		case 'n':
			return '\n'
		case 'r':
			return '\r'
		case 't':
			return '\t'
		case 'b', 'f':
			return ' '
		}
	}
	return c
}

// escapes reports whether the backslash at t[i] starts an escape: it
// ends an odd run of backslashes.
func escapes(t []byte, i int) bool {
	n := 0
	for ; i >= 0 && t[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// assignmentFollows reports whether the keyword at i is a name being
// assigned: after the rest of an identifier, closing quotes and blanks,
// a ':' or '=' follows. It is a cheap test before a name=value rule's
// expression runs.
func assignmentFollows(t []byte, i int) bool {
	j := nameEnd(t, i)
	return j < len(t) && (t[j] == ':' || t[j] == '=')
}

// nameEnd returns where the name whose keyword is at i ends: after the
// rest of an identifier, closing quotes and blanks.
func nameEnd(t []byte, i int) int {
	j := i
	for j < len(t) && j < i+32 && word.has(t[j]) || j < len(t) && t[j] == '-' {
		j++
	}
	for k := 0; j < len(t) && k < 8 && (t[j] == '"' || t[j] == '\'' || t[j] == '\\' || t[j] == '`' || t[j] == ' ' || t[j] == '\t'); k++ {
		j++
	}
	return j
}

// nestedFollows reports whether the keyword at i is a name followed by
// a nested value ("password": {… or "token": [… ) or by an environment
// list's value (valueFollows).
func nestedFollows(t []byte, i int) bool {
	j := nameEnd(t, i)
	if j < len(t) && (t[j] == ':' || t[j] == '=') {
		for j++; j < len(t) && j < i+64 && (t[j] == ' ' || t[j] == '\t' || t[j] == '"' || t[j] == '\'' || t[j] == '\\'); j++ {
		}
		return j < len(t) && (t[j] == '{' || t[j] == '[')
	}
	return valueFollows(t, j)
}

// valueFollows reports whether "value" follows t[j:] after a comma, a
// line break (or its escape), blanks and quotes: the value of an
// environment list's entry.
func valueFollows(t []byte, j int) bool {
	if j < len(t) && t[j] == ',' {
		j++
	}
	for k := 0; j < len(t) && k < 12 && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r' ||
		t[j] == '"' || t[j] == '\'' || t[j] == '\\' || t[j] == 'n' && t[j-1] == '\\'); k++ {
		j++
	}
	return len(t)-j >= 5 && containsFold(t[j:j+5], []byte("value"))
}

// matchable returns the bytes a match of pattern may hold (a byte of a
// multi-byte character counts as any byte at or above 0x80), so that a
// rule's window ends where its match must have ended.
func matchable(pattern string) *charset {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err)
	}
	var c charset
	var walk func(*syntax.Regexp)
	add := func(lo, hi rune) {
		for r := lo; r <= hi && r < 0x80; r++ {
			c[r] = true
		}
		if hi >= 0x80 {
			for b := 0x80; b < 0x100; b++ {
				c[b] = true
			}
		}
	}
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				add(r, r)
				if re.Flags&syntax.FoldCase != 0 {
					add(unicode.ToUpper(r), unicode.ToUpper(r))
					add(unicode.ToLower(r), unicode.ToLower(r))
				}
			}
		case syntax.OpCharClass:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				add(re.Rune[i], re.Rune[i+1])
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			add(0, unicode.MaxRune)
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	walk(re)
	return &c
}

// charset is a set of bytes.
type charset [256]bool

// chars builds a charset from ranges ("a-z") and single bytes; a '-'
// that ends spec stands for itself.
func chars(spec string) *charset {
	var c charset
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for b := spec[i]; b <= spec[i+2]; b++ {
				c[b] = true
			}
			i += 2
			continue
		}
		c[spec[i]] = true
	}
	return &c
}

func (c *charset) has(b byte) bool { return c[b] }

// all reports whether every byte of b is in c.
func (c *charset) all(b []byte) bool {
	for _, x := range b {
		if !c[x] {
			return false
		}
	}
	return true
}
