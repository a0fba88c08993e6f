package wire

import (
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// MaxRetainFor is the longest retention by age the wire accepts (100
// years, the longest token ttl): longer is no limit at all in practice,
// and it keeps the seconds within a time.Duration.
const MaxRetainFor = 100 * 365 * 24 * time.Hour

// SetSettings writes s into dst. RetainFor goes in whole seconds,
// rounded up, so a retention shorter than a second is not turned off.
func SetSettings(dst schema.Settings, s sharevat.Settings) {
	dst.SetPrivacy(schema.Privacy(s.Privacy))
	dst.SetRetainOps(s.RetainOps)
	secs := int64(0)
	if s.RetainFor > 0 {
		secs = int64((s.RetainFor + time.Second - 1) / time.Second)
	}
	dst.SetRetainSeconds(secs)
}

// ReadSettings decodes settings. Errors: EInvalid for a privacy policy
// this version does not know, or a retention by age that is negative or
// longer than MaxRetainFor.
func ReadSettings(src schema.Settings) (sharevat.Settings, error) {
	p := sharevat.Privacy(src.Privacy())
	if p > sharevat.PrivacyOff {
		return sharevat.Settings{}, sharevat.Errorf(sharevat.EInvalid, "unknown privacy policy %d (want redact, reject or off)", src.Privacy())
	}
	secs := src.RetainSeconds()
	if secs < 0 || secs > int64(MaxRetainFor/time.Second) {
		return sharevat.Settings{}, sharevat.Errorf(sharevat.EInvalid, "retainSeconds must be 0 (no limit by age) to %d", int64(MaxRetainFor/time.Second))
	}
	return sharevat.Settings{Privacy: p, RetainOps: src.RetainOps(), RetainFor: time.Duration(secs) * time.Second}, nil
}
