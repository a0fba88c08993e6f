package capnwebinterop_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeSnippet: the user guide's TypeScript snippet (docs/guide.md,
// "From TypeScript: Cap'n Web") is connect.ts's README block, which
// TestTypeScript type-checks, so the docs never show code that does not
// compile.
func TestReadmeSnippet(t *testing.T) {
	src, err := os.ReadFile("connect.ts")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)// README begin\n(.*?)// README end\n`).FindSubmatch(src)
	require.NotNil(t, m, "connect.ts has no README block")
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "guide.md"))
	require.NoError(t, err)
	block := "```ts\n" + string(m[1]) + "```\n"
	require.True(t, strings.Contains(string(guide), block),
		"docs/guide.md's TypeScript snippet differs from connect.ts's README block:\n%s", block)
}
