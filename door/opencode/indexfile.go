package opencode

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sharevat/sharevat"
)

// IndexFile is where the door kept its index before it moved into the
// store: a file of JSON lines in the data directory. ImportIndexFile
// moves what it holds into the store once.
const IndexFile = "opencode-index.jsonl"

// fileEntry is one line of IndexFile.
type fileEntry struct {
	Creator string `json:"creator"`
	Session string `json:"session"`
	Share   string `json:"share"`
	Secret  string `json:"secret,omitempty"`
	Link    string `json:"link,omitempty"`
	Max     int64  `json:"max,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

// ImportIndexFile claims, in store, every live entry of the index file
// at path (its tokens stay sealed as they were: same pepper, same key),
// then renames the file to path+".imported". No file: nothing to do. A
// torn last line (a crash while appending) is skipped.
func ImportIndexFile(ctx context.Context, store sharevat.SessionIndex, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opencode index: %w", err)
	}
	defer f.Close()
	live := map[string]fileEntry{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e fileEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a torn last line
		}
		if !e.Deleted {
			live[e.Share] = e
			order = append(order, e.Share)
		} else {
			delete(live, e.Share)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("opencode index %s: %w", path, err)
	}
	for _, id := range order {
		if e, ok := live[id]; ok {
			s := sharevat.DoorSession{Creator: e.Creator, Session: e.Session, Share: sharevat.ShareID(e.Share),
				Secret: e.Secret, Link: e.Link, Max: e.Max} // no Created: an open create never joins it
			if _, err := store.ClaimSession(ctx, s); err != nil {
				return fmt.Errorf("opencode index %s: %w", path, err)
			}
		}
	}
	return os.Rename(path, path+".imported")
}
