package sharevat

import (
	"fmt"
	"strings"
)

// Scope is a set of rights on a share.
type Scope uint8

// The rights. The share's creator holds all four (ScopeOwner).
const (
	ScopeRead     Scope = 1 << iota // read the log, snapshot, subscribe
	ScopeAppend                     // append ops
	ScopeDelegate                   // mint narrower grants (grant, save)
	ScopeAdmin                      // update meta, revoke any grant, bump the epoch

	ScopeOwner = ScopeRead | ScopeAppend | ScopeDelegate | ScopeAdmin
)

var scopeNames = []struct {
	bit  Scope
	name string
}{
	{ScopeRead, "read"}, {ScopeAppend, "append"},
	{ScopeDelegate, "delegate"}, {ScopeAdmin, "admin"},
}

// Has reports whether s holds every right in want.
func (s Scope) Has(want Scope) bool { return s&want == want }

// SubsetOf reports whether every right of s is also in parent.
func (s Scope) SubsetOf(parent Scope) bool { return parent.Has(s) }

// String lists the rights comma-separated in a fixed order ("read,append").
// The empty scope is "none".
func (s Scope) String() string {
	var names []string
	for _, n := range scopeNames {
		if s.Has(n.bit) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// ParseScope parses a comma-separated list of rights ("read,append"). The
// word "owner" stands for all four. Unknown words and an empty list are
// EInvalid.
func ParseScope(text string) (Scope, error) {
	var s Scope
	for _, word := range strings.Split(text, ",") {
		bit, err := parseRight(strings.TrimSpace(word))
		if err != nil {
			return 0, err
		}
		s |= bit
	}
	return s, nil
}

func parseRight(word string) (Scope, error) {
	if word == "owner" {
		return ScopeOwner, nil
	}
	for _, n := range scopeNames {
		if n.name == word {
			return n.bit, nil
		}
	}
	return 0, Errorf(EInvalid, "unknown right %q (want read, append, delegate, admin or owner)", word)
}

// MarshalText implements encoding.TextMarshaler.
func (s Scope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Scope) UnmarshalText(b []byte) error {
	if string(b) == "none" {
		*s = 0
		return nil
	}
	v, err := ParseScope(string(b))
	if err != nil {
		return fmt.Errorf("scope: %w", err)
	}
	*s = v
	return nil
}
