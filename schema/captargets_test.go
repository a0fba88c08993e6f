package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPipelineTarget(t *testing.T) {
	restore := MethodKey{Vault_TypeID, 0} // -> (share :Share, access :Access, info :ShareInfo)
	ping := MethodKey{Vault_TypeID, 3}    // -> ()
	reader := MethodKey{Share_TypeID, 3}  // -> (reader :Reader)
	subscribe := MethodKey{Reader_TypeID, 2}
	for _, c := range []struct {
		name      string
		m         MethodKey
		transform []uint16
		known, ok bool
	}{
		{"restore.share", restore, []uint16{0}, true, true},
		{"restore.access is a struct", restore, []uint16{1}, true, false},
		{"restore.info.title is text", restore, []uint16{2, 0}, true, false},
		{"restore results themselves", restore, nil, true, false},
		{"beyond the share field", restore, []uint16{0, 0}, true, false},
		{"no such field", restore, []uint16{7}, true, false},
		{"ping has no results", ping, []uint16{0}, true, false},
		{"reader.reader", reader, []uint16{0}, true, true},
		{"subscribe.subscription", subscribe, []uint16{0}, true, true},
		{"unknown method", MethodKey{Vault_TypeID, 99}, []uint16{0}, false, false},
		{"unknown interface", MethodKey{0x1234, 0}, []uint16{0}, false, false},
	} {
		known, ok := PipelineTarget(c.m.Interface, c.m.Method, c.transform)
		assert.Equal(t, c.known, known, c.name)
		assert.Equal(t, c.ok, ok, c.name)
	}
}

func TestResultCaps(t *testing.T) {
	assert.Equal(t, [][]uint16{{0}}, ResultCaps(MethodKey{Vault_TypeID, 0}))
	assert.Equal(t, [][]uint16{{0}}, ResultCaps(MethodKey{Admin_TypeID, 0}))
	assert.Empty(t, ResultCaps(MethodKey{Vault_TypeID, 3}), "ping returns nothing")
	assert.Empty(t, ResultCaps(MethodKey{Share_TypeID, 0}), "info returns no capability")
	assert.Nil(t, ResultCaps(MethodKey{Vault_TypeID, 99}), "no such method")
}
