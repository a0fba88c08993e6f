package apply_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

func TestDigestSeparatesContent(t *testing.T) {
	base := sharevat.Op{OpID: "a", Kind: "message", Key: "k", Body: []byte(`{}`)}
	d := apply.Digest(&base)
	same := base
	same.OpID, same.Seq, same.DependsOn = "b", 7, []string{"x"}
	assert.Equal(t, d, apply.Digest(&same), "ids, seq and preconditions are not content")
	for name, mut := range map[string]func(*sharevat.Op){
		"kind":   func(o *sharevat.Op) { o.Kind = "part" },
		"key":    func(o *sharevat.Op) { o.Key = "k2" },
		"body":   func(o *sharevat.Op) { o.Body = []byte(`{"a":1}`) },
		"delete": func(o *sharevat.Op) { o.Delete = true },
		"shift":  func(o *sharevat.Op) { o.Kind, o.Key = "messag", "ek" },
	} {
		o := base
		mut(&o)
		assert.NotEqual(t, d, apply.Digest(&o), name)
	}
}

// TestDigestIsStable pins the digest to the formula of docs/design.md §5
// (the value computed independently): it is stored with every op in the
// vat's data file and checked on every read, so it must never change.
func TestDigestIsStable(t *testing.T) {
	d := apply.Digest(&sharevat.Op{Kind: "message", Key: "k", Body: []byte(`{}`)})
	assert.Equal(t, "9c30de5b95b755ba24bd188de56e5266e4cfd474580e1a24754a1d39ef2cfc48", hex.EncodeToString(d[:]))
}
