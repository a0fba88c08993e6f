package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeLinks: every relative link of README.md leads to a file that
// exists and, with a #fragment into a Markdown file, to one of its
// headings; and each section the README used to hold before it became a
// front door is one click away (a link to its heading in docs/).
func TestReadmeLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, readmeFile))
	require.NoError(t, err)
	linked := map[string]bool{}
	for _, m := range mdLink.FindAllStringSubmatch(string(readme), -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		path, frag, _ := strings.Cut(target, "#")
		if path == "" {
			path = readmeFile
		}
		file := filepath.Join(root, filepath.FromSlash(path))
		_, err := os.Stat(file)
		if !assert.NoError(t, err, "README.md links to %s", target) || frag == "" {
			continue
		}
		doc, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Contains(t, headingAnchors(string(doc)), frag, "README.md links to %s: no such heading", target)
		linked[frag] = true
	}
	for _, h := range formerSections {
		assert.True(t, linked[anchor(h)], "README.md has no link to the section %q", h)
	}
}

// formerSections are the sections the README held before they moved to
// docs/guide.md, docs/operations.md, docs/performance.md and
// docs/architecture.md.
var formerSections = []string{
	"Ops and the append rules", "The durable outbox: `append` and `flush`",
	"Privacy guard", "A session's life: fork, children, delete, list, status",
	"Retention and compaction", "The command line", "Export, import, backup, check",
	"Serving", "Limits", "Damaged data, a lost file, a full disk", "Interop (Cap'n Proto)",
	"From TypeScript: Cap'n Web", "The share page", "Running several vats",
	"Current figures", "What limits the missed targets", "Where the code lives",
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#{1,6} (.+)$`)
	notInSlug = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// headingAnchors are the anchors GitHub gives the headings of doc,
// outside its fenced code blocks.
func headingAnchors(doc string) []string {
	var out []string
	fenced := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if m := mdHeading.FindStringSubmatch(l); m != nil && !fenced {
			out = append(out, anchor(m[1]))
		}
	}
	return out
}

// anchor is GitHub's anchor for a heading: lower case, punctuation
// dropped, spaces turned to hyphens.
func anchor(heading string) string {
	s := notInSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), "")
	return strings.ReplaceAll(s, " ", "-")
}
