package opencode

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"sync"

	"github.com/sharevat/sharevat"
)

// The index remembers which share each creation right made for each
// opencode session, so that a second create answers the same share
// (docs/opencode.md, "Create is idempotent"). It lives in the store
// (sharevat.SessionIndex), shared by every vat on it: two vats on one
// PostgreSQL answer one session with one share. The tokens in an entry
// (the secret and the link) are sealed with AES-256-GCM under a key
// derived from the vat's pepper (HMAC-SHA-256(pepper, sealLabel)), the
// share id as associated data: the store alone opens nothing.

// sealLabel derives the sealing key from the pepper.
const sealLabel = "sharevat opencode door: seal v1"

// openCreator is the index's creator name for creates without a token
// (serve --opencode-open).
const openCreator = "open"

// entry is one entry of the index.
type entry = sharevat.DoorSession

// index is the store's session index, sealing and opening its tokens,
// with the entries of the shares synced lately kept in memory (an
// entry never changes while its share lives).
type index struct {
	aead  cipher.AEAD
	store sharevat.SessionIndex

	mu     sync.Mutex
	shares map[sharevat.ShareID]entry
}

// maxCached bounds the entries kept in memory.
const maxCached = 4096

// newIndex is the index in store, sealing with a key derived from pepper.
func newIndex(store sharevat.SessionIndex, pepper []byte) (*index, error) {
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
	return &index{aead: aead, store: store, shares: map[sharevat.ShareID]entry{}}, nil
}

// lookup returns the entry of creator's session.
func (x *index) lookup(ctx context.Context, creator, session string) (entry, bool, error) {
	return found(x.store.DoorSession(ctx, creator, session))
}

// byShare returns the entry of a share the door created.
func (x *index) byShare(ctx context.Context, id sharevat.ShareID) (entry, bool, error) {
	x.mu.Lock()
	e, ok := x.shares[id]
	x.mu.Unlock()
	if ok {
		return e, true, nil
	}
	e, ok, err := found(x.store.DoorSessionOf(ctx, id))
	if ok {
		x.mu.Lock()
		if len(x.shares) >= maxCached {
			clear(x.shares)
		}
		x.shares[id] = e
		x.mu.Unlock()
	}
	return e, ok, err
}

func found(e entry, err error) (entry, bool, error) {
	if sharevat.ErrorCode(err) == sharevat.ENotFound {
		return entry{}, false, nil
	}
	return e, err == nil, err
}

// claim stores e unless its session has an entry, and returns the one
// stored (whichever vat stored it).
func (x *index) claim(ctx context.Context, e entry) (entry, error) {
	return x.store.ClaimSession(ctx, e)
}

// drop forgets the entry of a share unshared or gone.
func (x *index) drop(ctx context.Context, id sharevat.ShareID) error {
	x.mu.Lock()
	delete(x.shares, id)
	x.mu.Unlock()
	return x.store.DropDoorSession(ctx, id)
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
