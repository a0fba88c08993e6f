package vat

import (
	"context"
	"slices"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/privacy"
)

// The privacy guard over the text a peer gives the vat beside op bodies
// (docs/design.md §5): a share's title, project id, directory and
// version (create, update, fork) and a grant's label (mint). Under the
// share's policy redact, each secret-shaped string is stored as
// [REDACTED:<rule>]; under reject, the call fails invalid, the message
// naming the field and the rules, never the secret; under off, the text
// is stored as sent. A new share's policy is the default, redact; a
// fork's is its parent's.

// guardMeta applies pol to the text fields of patch.
func guardMeta(pol sharevat.Privacy, patch *sharevat.MetaPatch) error {
	for _, f := range []struct {
		what string
		text **string
	}{{"title", &patch.Title}, {"project id", &patch.ProjectID}, {"directory", &patch.Directory}, {"version", &patch.Version}} {
		if *f.text == nil {
			continue
		}
		text, err := guardText(pol, f.what, **f.text)
		if err != nil {
			return err
		}
		*f.text = &text
	}
	return nil
}

// guardText returns text under pol: as it is, redacted, or an error.
func guardText(pol sharevat.Privacy, what, text string) (string, error) {
	if pol == sharevat.PrivacyOff {
		return text, nil
	}
	ms := privacy.ScanText([]byte(text))
	if len(ms) == 0 {
		return text, nil
	}
	if pol == sharevat.PrivacyReject {
		var rules []string
		for _, m := range ms {
			rules = append(rules, m.Rule)
		}
		slices.Sort(rules)
		return "", sharevat.Errorf(sharevat.EInvalid, "%s holds a secret-shaped string (%s); the share's privacy policy rejects it",
			what, strings.Join(slices.Compact(rules), ", "))
	}
	red, _ := privacy.RedactText([]byte(text))
	return string(red), nil
}

// guardLabel applies the facet's share's policy to a grant's label.
func (f *facet) guardLabel(ctx context.Context, label string) (string, error) {
	if label == "" {
		return label, nil
	}
	pol, err := f.vat.privacy(ctx, f.share())
	if err != nil {
		return "", err
	}
	return guardText(pol, "label", label)
}
