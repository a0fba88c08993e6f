package opencode

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sharevat/sharevat"
)

// The index remembers, across restarts, which share each creation right
// made for each opencode session, so that a second create answers the
// same share (docs/opencode.md, "Create is idempotent"). It is a file of
// JSON lines in the data directory (IndexFile), appended and synced
// before an answer names the share. The tokens in it (the secret and the
// link) are sealed with AES-256-GCM under a key derived from the vat's
// pepper (HMAC-SHA-256(pepper, sealLabel)), the share id as associated
// data: the file alone opens nothing. A torn last line (a crash while
// appending) is dropped when the file is opened.

// IndexFile is the index's name in the data directory.
const IndexFile = "opencode-index.jsonl"

// sealLabel derives the sealing key from the pepper.
const sealLabel = "sharevat opencode door: seal v1"

// entry is one line of the index.
type entry struct {
	Creator string `json:"creator"`           // the creation token's grant id, or "open"
	Session string `json:"session"`           // opencode's session id
	Share   string `json:"share"`             // the share's id
	Secret  string `json:"secret,omitempty"`  // the owner token, sealed
	Link    string `json:"link,omitempty"`    // the link token, sealed
	Max     int64  `json:"max,omitempty"`     // bytes the share may hold (the creation token's quota); 0: unlimited
	Deleted bool   `json:"deleted,omitempty"` // unshared: a later create makes a new share
	Created int64  `json:"created,omitempty"` // when the share was made, Unix milliseconds
}

// index is the open index file and its entries.
type index struct {
	aead cipher.AEAD

	mu      sync.Mutex
	f       *os.File
	created map[string]*entry           // by creator and session
	shares  map[sharevat.ShareID]*entry // by share
}

// openIndex opens (creating) the index at path, sealing with a key
// derived from pepper.
func openIndex(path string, pepper []byte) (*index, error) {
	mac := hmac.New(sha256.New, pepper)
	mac.Write([]byte(sealLabel))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opencode index: %w", err)
	}
	x := &index{aead: aead, f: f, created: map[string]*entry{}, shares: map[sharevat.ShareID]*entry{}}
	if err := x.load(); err != nil {
		f.Close()
		return nil, fmt.Errorf("opencode index %s: %w", path, err)
	}
	return x, nil
}

// load reads every whole line, truncating a torn last one.
func (x *index) load() error {
	b, err := io.ReadAll(x.f)
	if err != nil {
		return err
	}
	whole := bytes.LastIndexByte(b, '\n') + 1
	if whole < len(b) {
		if err := x.f.Truncate(int64(whole)); err != nil {
			return err
		}
	}
	if _, err := x.f.Seek(int64(whole), io.SeekStart); err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(b[:whole]))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return errors.New("a line is not an index entry")
		}
		x.put(&e)
	}
	return sc.Err()
}

func createdKey(creator, session string) string { return creator + "\x00" + session }

// put records e in the maps (a deletion marks the share's entry).
func (x *index) put(e *entry) {
	if e.Deleted {
		if old := x.shares[sharevat.ShareID(e.Share)]; old != nil {
			old.Deleted = true
		}
		return
	}
	x.created[createdKey(e.Creator, e.Session)] = e
	x.shares[sharevat.ShareID(e.Share)] = e
}

// write appends e to the file, synced, then to the maps.
func (x *index) write(e *entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("opencode index: %w", err)
	}
	if err := x.f.Sync(); err != nil {
		return fmt.Errorf("opencode index: %w", err)
	}
	x.put(e)
	return nil
}

// lookup returns a copy of the live entry of creator's session.
func (x *index) lookup(creator, session string) (entry, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.created[createdKey(creator, session)]
	if e == nil || e.Deleted {
		return entry{}, false
	}
	return *e, true
}

// byShare returns a copy of the entry of a share the door created.
func (x *index) byShare(id sharevat.ShareID) (entry, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.shares[id]
	if e == nil {
		return entry{}, false
	}
	return *e, true
}

// deleted records that a share was unshared.
func (x *index) deleted(id sharevat.ShareID) error {
	if _, ok := x.byShare(id); !ok {
		return nil
	}
	return x.write(&entry{Share: string(id), Deleted: true})
}

// seal encrypts a token for the share id.
func (x *index) seal(id sharevat.ShareID, token string) (string, error) {
	nonce := make([]byte, x.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(x.aead.Seal(nonce, nonce, []byte(token), []byte(id))), nil
}

// open decrypts a sealed token of the share id.
func (x *index) open(id sharevat.ShareID, sealed string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	n := x.aead.NonceSize()
	if err != nil || len(b) < n {
		return "", errors.New("opencode index: a sealed token is damaged")
	}
	plain, err := x.aead.Open(nil, b[:n], b[n:], []byte(id))
	if err != nil {
		return "", errors.New("opencode index: a sealed token does not open (another pepper?)")
	}
	return string(plain), nil
}

// close closes the file.
func (x *index) close() error { return x.f.Close() }
