package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sharevat"
	"sharevat/schema"
	"sharevat/wire"
)

// TestSettingsRoundTrip: every policy and retention survives the wire;
// a retention by age under a second is rounded up, never turned off.
func TestSettingsRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want sharevat.Settings }{
		{sharevat.Settings{}, sharevat.Settings{}},
		{sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 10}, sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 10}},
		{sharevat.Settings{Privacy: sharevat.PrivacyOff, RetainFor: time.Hour}, sharevat.Settings{Privacy: sharevat.PrivacyOff, RetainFor: time.Hour}},
		{sharevat.Settings{RetainFor: time.Millisecond}, sharevat.Settings{RetainFor: time.Second}},
	} {
		dst, err := schema.NewRootSettings(newSeg(t))
		require.NoError(t, err)
		wire.SetSettings(dst, tc.in)
		got, err := wire.ReadSettings(dst)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}

// TestSettingsRefusesWhatItDoesNotKnow: an unknown policy or a retention
// out of range is invalid, not silently mapped.
func TestSettingsRefusesWhatItDoesNotKnow(t *testing.T) {
	for name, set := range map[string]func(schema.Settings){
		"unknown privacy": func(s schema.Settings) { s.SetPrivacy(schema.Privacy(7)) },
		"negative age":    func(s schema.Settings) { s.SetRetainSeconds(-1) },
		"age too long":    func(s schema.Settings) { s.SetRetainSeconds(int64(wire.MaxRetainFor/time.Second) + 1) },
	} {
		dst, err := schema.NewRootSettings(newSeg(t))
		require.NoError(t, err)
		set(dst)
		_, err = wire.ReadSettings(dst)
		assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), name)
	}
}
