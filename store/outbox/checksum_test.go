package outbox_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/outbox"
)

// victimBody is the body of the op the damage tests hit; the others get
// bodyOf.
func bodyOf(id string) []byte {
	return []byte(fmt.Sprintf(`{"text":"the body of %s, long enough to be overwritten in the middle by sixty-four random bytes"}`, id))
}

// damagedOutbox writes 40 pending ops (op "p17" the victim), closes the
// file and damages it with hit, which gets the file's bytes and the
// offset of the victim's body (as stored: base64 in its JSON) and of its
// op id in its record.
func damagedOutbox(t *testing.T, hit func(b []byte, body, id int)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "outbox.db")
	db, err := outbox.Open(path, outbox.Options{})
	require.NoError(t, err)
	var in []sharevat.Op
	for i := range 40 {
		id := fmt.Sprint("p", i)
		in = append(in, sharevat.Op{OpID: id, Kind: "message", Key: id, Body: bodyOf(id)})
	}
	require.NoError(t, db.Enqueue(in, now))
	require.NoError(t, db.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	bodyAt := []byte(base64.StdEncoding.EncodeToString(bodyOf("p17")))
	idAt := []byte(`"id":"p17"`)
	require.Equal(t, 1, bytes.Count(b, bodyAt), "one copy of the record in the file")
	require.Equal(t, 1, bytes.Count(b, idAt))
	body, id := bytes.Index(b, bodyAt), bytes.Index(b, idAt)
	require.Positive(t, body)
	require.Positive(t, id)
	hit(b, body, id+len(`"id":"p`))
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// TestOutboxDamagedRecord: a flipped byte in a pending op's body, a
// flipped byte of its op id, and 64 random bytes over its record are each
// found by the record's checksum: the outbox opens, counts and names the
// damaged record (file, seq, op id as stored), never sends it, sends
// every healthy op with its own body, answers StateDamaged for it,
// refuses to enqueue its id over it (naming it), and DiscardDamaged drops
// exactly it, after which its id can be enqueued again. Before format 2
// the body flip was sent as is, the id flip stored one op's body under
// another id, and the overwrite failed every call.
func TestOutboxDamagedRecord(t *testing.T) {
	for name, hit := range map[string]func(b []byte, body, id int){
		"body byte flipped":  func(b []byte, body, _ int) { b[body+21] ^= 0x20 }, // a letter of the base64: the body still decodes
		"op id byte flipped": func(b []byte, _, id int) { b[id] ^= 0x02 },        // "p17" → "r17"… still valid JSON
		"64 bytes overwritten": func(b []byte, body, _ int) {
			r := rand.New(rand.NewPCG(1, 2))
			for i := range 64 {
				b[body+10+i] = byte(r.UintN(256))
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := damagedOutbox(t, hit)
			db := mustOpenAt(t, path, outbox.Options{})
			st, err := db.Status()
			require.NoError(t, err)
			assert.Equal(t, 1, st.Damaged)
			assert.Equal(t, 39, st.Pending)

			ds, err := db.Damaged()
			require.NoError(t, err)
			require.Len(t, ds, 1)
			d := ds[0]
			assert.Equal(t, outbox.StatePending, d.State)
			assert.Equal(t, uint64(18), d.Seq, "p17 is the 18th op enqueued")
			msg := d.Error()
			assert.Contains(t, msg, "the outbox file "+path+" holds a damaged pending record (enqueue seq 18")
			assert.Contains(t, msg, "outbox discard --damaged")
			assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(d))

			sent := sendAll(t, db)
			assert.Len(t, sent, 39)
			for _, op := range sent {
				assert.Equal(t, string(bodyOf(op.OpID)), string(op.Body), "op %s carries its own body", op.OpID)
				assert.NotEqual(t, "p17", op.OpID)
			}
			res, err := db.Results([]string{"p17", "p16"})
			require.NoError(t, err)
			if name != "op id byte flipped" {
				assert.Equal(t, outbox.StateDamaged, res[0].State)
				err = db.Enqueue([]sharevat.Op{{OpID: "p17", Kind: "message", Body: bodyOf("p17")}}, now)
				require.Error(t, err, "enqueueing over a damaged record")
				assert.Contains(t, err.Error(), path)
				assert.Contains(t, err.Error(), "enqueue seq 18")
			}
			assert.Equal(t, outbox.StateDone, res[1].State)

			gone, err := db.DiscardDamaged()
			require.NoError(t, err)
			require.Len(t, gone, 1)
			assert.Equal(t, uint64(18), gone[0].Seq)
			st, err = db.Status()
			require.NoError(t, err)
			assert.Equal(t, [4]int{0, 39, 0, 0}, [4]int{st.Pending, st.Done, st.Failed, st.Damaged})
			require.NoError(t, db.Enqueue([]sharevat.Op{{OpID: "p17", Kind: "message", Body: bodyOf("p17")}}, now))
			again := sendAll(t, db)
			require.Len(t, again, 1)
			assert.Equal(t, string(bodyOf("p17")), string(again[0].Body))
		})
	}
}

// sendAll takes every batch Next gives, acks it as applied, and returns
// the ops sent.
func sendAll(t *testing.T, db *outbox.DB) []sharevat.Op {
	t.Helper()
	newID, _ := ids()
	var sent []sharevat.Op
	st, err := db.Status()
	require.NoError(t, err)
	head := st.LastAckedCursor
	for {
		b, err := db.Next(7, 1<<20, newID)
		require.NoError(t, err)
		if b == nil {
			return sent
		}
		sent = append(sent, b.Ops...)
		head += sharevat.Cursor(len(b.Ops))
		require.NoError(t, db.Ack(b.BatchID, applied(b, head), now))
	}
}

// TestOutboxUpgradeFromV1: testdata/outbox-v1.db was written by the
// format 1 code (no checksums): six ops, a batch of three acked (applied,
// duplicate, rejected), a batch of two assigned and not acked. Open
// upgrades it in place: every op, result, batch and binding is as it
// was, the assigned batch is resent exactly, and from then on a flipped
// byte in a record is found.
func TestOutboxUpgradeFromV1(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "outbox-v1.db"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "outbox.db")
	require.NoError(t, os.WriteFile(path, src, 0o600))
	db := mustOpenAt(t, path, outbox.Options{})
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, outbox.Status{Pending: 3, Done: 2, Failed: 1, LastAckedCursor: 1,
		ShareID: "v1share", Server: "ws://127.0.0.1:1/rpc"}, st)
	res, err := db.Results([]string{"v1-op-0", "v1-op-1", "v1-op-2", "v1-op-3"})
	require.NoError(t, err)
	assert.Equal(t, []outbox.State{outbox.StateDone, outbox.StateDone, outbox.StateFailed, outbox.StatePending},
		[]outbox.State{res[0].State, res[1].State, res[2].State, res[3].State})
	assert.Equal(t, sharevat.StatusDuplicate, res[1].Status)
	assert.Equal(t, "bad", res[2].Message)
	b, err := db.Next(10, 1<<20, func() string { return "new" })
	require.NoError(t, err)
	assert.Equal(t, "batch-v1-b", b.BatchID, "the assigned batch is resent as it was")
	assert.Equal(t, []string{"v1-op-3", "v1-op-4"}, opIDs(b))
	assert.Equal(t, `{"text":"old format op 3"}`, string(b.Ops[0].Body))
	require.NoError(t, db.Close())

	// Upgraded: a flipped body byte is now found.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	// Every copy: bbolt leaves the pre-upgrade copy in a free page.
	pat := []byte(base64.StdEncoding.EncodeToString([]byte(`{"text":"old format op 5"}`)))
	n := 0
	for at := bytes.Index(data, pat); at >= 0; at = bytes.Index(data, pat) {
		data[at+4] ^= 0x01
		n++
	}
	require.Positive(t, n)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	db = mustOpenAt(t, path, outbox.Options{})
	ds, err := db.Damaged()
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "v1-op-5", ds[0].OpID)
}
