package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResultCaps(t *testing.T) {
	assert.Equal(t, [][]uint16{{0}}, ResultCaps(MethodKey{Vault_TypeID, 0}))
	assert.Equal(t, [][]uint16{{0}}, ResultCaps(MethodKey{Admin_TypeID, 0}))
	assert.Empty(t, ResultCaps(MethodKey{Vault_TypeID, 3}), "ping returns nothing")
	assert.Empty(t, ResultCaps(MethodKey{Share_TypeID, 0}), "info returns no capability")
	assert.Nil(t, ResultCaps(MethodKey{Vault_TypeID, 99}), "no such method")
}
