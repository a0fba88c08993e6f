package privacy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/privacy"
	"github.com/sharevat/sharevat/privacy/privacytest"
)

// TestReadmeListsEveryRule: the "Privacy guard" section of the user guide
// (docs/guide.md, linked from the README) names every rule id, so the
// list users read is the rule set.
func TestReadmeListsEveryRule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(privacytest.Dir(), "..", "..", "docs", "guide.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Privacy guard\n")
	require.True(t, ok, "docs/guide.md has no \"## Privacy guard\" section")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, r := range privacy.Rules() {
		assert.Contains(t, section, "`"+r.ID+"`", "docs/guide.md's Privacy guard does not list rule %s", r.ID)
	}
}
