package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// An export's header may carry the exported share's settings. A file is
// not trusted to weaken the share it creates: without --apply-settings,
// import applies the export's privacy policy only when it is stricter
// than the new share's (off < redact < reject), and never its
// retention, which would compact the imported history. It prints what
// it applied and what it did not, and why.

// privacyRank orders the privacy policies from weakest to strictest.
func privacyRank(p sharevat.Privacy) int {
	switch p {
	case sharevat.PrivacyOff:
		return 0
	case sharevat.PrivacyRedact:
		return 1
	}
	return 2
}

// chooseSettings returns the settings to give a new share whose
// settings are cur, from the export's, and what was not applied.
func chooseSettings(exp, cur sharevat.Settings, apply bool) (sharevat.Settings, []string) {
	if apply {
		return exp, nil
	}
	want, skipped := cur, []string(nil)
	switch {
	case privacyRank(exp.Privacy) > privacyRank(cur.Privacy):
		want.Privacy = exp.Privacy
	case exp.Privacy != cur.Privacy:
		skipped = append(skipped, fmt.Sprintf("privacy %s (weaker than the new share's %s)", exp.Privacy, cur.Privacy))
	}
	if exp.RetainOps > 0 || exp.RetainFor > 0 {
		skipped = append(skipped, "retention ("+retentionText(exp)+": it would compact the imported history)")
	}
	return want, skipped
}

// settingsText describes s for a person.
func settingsText(s sharevat.Settings) string {
	return "privacy " + s.Privacy.String() + ", " + retentionText(s)
}

// retentionText describes s's retention for a person.
func retentionText(s sharevat.Settings) string {
	var parts []string
	if s.RetainOps > 0 {
		parts = append(parts, fmt.Sprintf("retain_ops %d", s.RetainOps))
	}
	if s.RetainFor > 0 {
		parts = append(parts, "retain_for "+s.RetainFor.String())
	}
	if len(parts) == 0 {
		return "no retention"
	}
	return strings.Join(parts, ", ")
}

// settingsOutcome is what import did with the export's settings, for
// its report.
type settingsOutcome struct {
	exported sharevat.Settings
	applied  sharevat.Settings // the new share's settings after
	skipped  []string
}

// applySettings gives the new share sh the settings chooseSettings
// picks from the export's, if it has any, and says what it did.
func (im *importer) applySettings(ctx context.Context, sh *client.Share) error {
	exp, ok, err := im.src.Settings()
	if err != nil || !ok {
		return err
	}
	cur, err := sh.Settings(ctx)
	if err != nil {
		return fmt.Errorf("reading the new share's settings: %w", err)
	}
	want, skipped := chooseSettings(exp, cur, im.f.applySettings)
	if want != cur {
		if cur, err = sh.Configure(ctx, want); err != nil {
			return fmt.Errorf("setting the new share's settings: %w", err)
		}
	}
	im.settings = &settingsOutcome{exported: exp, applied: cur, skipped: skipped}
	return nil
}

// printSettings says on stderr what the export's settings were and what
// the new share got.
func (im *importer) printSettings() {
	o := im.settings
	if o == nil || im.f.cf.json {
		return
	}
	fmt.Fprintf(im.env.Stderr, "the export's settings: %s; the new share's: %s\n", settingsText(o.exported), settingsText(o.applied))
	if len(o.skipped) > 0 {
		fmt.Fprintf(im.env.Stderr, "not applied from the export: %s; pass --apply-settings to apply the export's settings as they are\n",
			strings.Join(o.skipped, "; "))
	}
}

// settingsJSON is the outcome for --json: the new share's settings and
// what was not applied; nil when the export had none (or on a resume).
func (im *importer) settingsJSON() map[string]any {
	o := im.settings
	if o == nil {
		return nil
	}
	out := map[string]any{"privacy": o.applied.Privacy.String(), "retain_ops": o.applied.RetainOps, "not_applied": o.skipped}
	if o.applied.RetainFor > 0 {
		out["retain_for"] = o.applied.RetainFor.String()
	}
	if o.skipped == nil {
		out["not_applied"] = []string{}
	}
	return out
}
