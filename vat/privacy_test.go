package vat_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/privacy/privacytest"
)

// The privacy guard end to end: the whole fixture corpus (privacy/
// testdata: planted secrets of every rule, look-alikes that must pass
// untouched) appended through a real vat over a real WebSocket, under
// each policy, then looked for in everything the vat kept or said.

// corpusOp is one op of the corpus: its body as sent and as it must be
// read back.
type corpusOp struct {
	op      sharevat.Op
	rule    string   // the rules of its planted secrets, as a rejection names them
	want    []byte   // the body read back under redact
	needles []string // what must be found nowhere (planted secrets)
}

func corpusOps(t *testing.T) (planted, lookalikes []corpusOp) {
	for i, p := range privacytest.MustPlanted(t) {
		op := sharevat.Op{OpID: fmt.Sprintf("planted-%d", i), Kind: sharevat.KindPart, Key: fmt.Sprintf("p%d", i), Body: p.Body}
		rules := slices.Compact(slices.Sorted(slices.Values(p.Rules)))
		planted = append(planted, corpusOp{op, strings.Join(rules, ", "), p.Want, p.Needles})
	}
	for i, l := range privacytest.MustLookAlikes(t) {
		op := sharevat.Op{OpID: fmt.Sprintf("look-%d", i), Kind: sharevat.KindPart, Key: fmt.Sprintf("l%d", i), Body: l.Body}
		lookalikes = append(lookalikes, corpusOp{op, "", l.Body, nil})
	}
	return planted, lookalikes
}

// appendCorpus appends ops in batches of 50 and returns the acks'
// results and the total of Ack.Redacted.
func appendCorpus(t *testing.T, sh *client.Share, ops []corpusOp) ([]sharevat.OpResult, int) {
	t.Helper()
	app, err := sh.Appender(bg)
	require.NoError(t, err)
	defer app.Release()
	var results []sharevat.OpResult
	redacted := 0
	for start := 0; start < len(ops); start += 50 {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("corpus-%d", start), Epoch: 1}
		for _, c := range ops[start:min(len(ops), start+50)] {
			b.Ops = append(b.Ops, c.op)
		}
		ack, err := app.Append(bg, b)
		require.NoError(t, err)
		results = append(results, ack.Results...)
		redacted += ack.Redacted
	}
	return results, redacted
}

// readBack returns every body of the share's log by op id, and the
// snapshot's bodies by key.
func readBack(t *testing.T, sh *client.Share) (log, state map[string][]byte) {
	t.Helper()
	r, err := sh.Reader(bg)
	require.NoError(t, err)
	defer r.Release()
	log, state = make(map[string][]byte), make(map[string][]byte)
	_, err = r.ReadAll(bg, 0, func(es []sharevat.Entry) error {
		for _, e := range es {
			log[e.OpID] = e.Body
		}
		return nil
	})
	require.NoError(t, err)
	ents, _, err := r.Snapshot(bg)
	require.NoError(t, err)
	for _, e := range ents {
		state[e.Key] = e.Body
	}
	return log, state
}

func setPrivacy(t *testing.T, sh *client.Share, p sharevat.Privacy) {
	t.Helper()
	set, err := sh.Settings(bg)
	require.NoError(t, err)
	set.Privacy = p
	got, err := sh.Configure(bg, set)
	require.NoError(t, err)
	require.Equal(t, p, got.Privacy)
}

// assertNoNeedle fails if any planted secret is in the data directory,
// the server's log, or text.
func assertNoNeedle(t *testing.T, tv *testVat, planted []corpusOp, text string) {
	t.Helper()
	serverLog := tv.Log.String()
	for _, c := range planted {
		for _, n := range c.needles {
			assertNotInDir(t, tv.Dir, []byte(n))
			assert.NotContains(t, serverLog, n, "%s: a planted secret in the server log", c.op.OpID)
			assert.NotContains(t, text, n, "%s: a planted secret read back or answered", c.op.OpID)
		}
	}
}

// TestPrivacyCorpusRedact: under redact (the default), every planted
// secret is replaced before anything is written; the ack counts the
// replacements; a retry of the whole corpus is duplicate; the log and
// the snapshot read back the redacted bodies, byte for byte, and the
// look-alikes exactly as sent; no planted secret is in any byte of the
// data directory, the server's log, or what was read back.
func TestPrivacyCorpusRedact(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "privacy redact"))
	set, err := sh.Settings(bg)
	require.NoError(t, err)
	require.Equal(t, sharevat.PrivacyRedact, set.Privacy, "redact is the default")
	planted, lookalikes := corpusOps(t)
	all := append(append([]corpusOp(nil), planted...), lookalikes...)

	results, redacted := appendCorpus(t, sh, all)
	wantRedacted := 0
	for i, c := range all {
		assert.Equal(t, sharevat.StatusApplied, results[i].Status, "%s: %s", c.op.OpID, results[i].Message)
		wantRedacted += strings.Count(string(c.want), "[REDACTED:")
	}
	assert.Equal(t, wantRedacted, redacted, "Ack.Redacted")

	results, redacted = appendCorpus(t, sh, all)
	for i, c := range all {
		assert.Equal(t, sharevat.StatusDuplicate, results[i].Status, "%s: a retry of a redacted op: %s", c.op.OpID, results[i].Message)
	}
	assert.Zero(t, redacted, "a duplicate redacts nothing")

	log, state := readBack(t, sh)
	var text strings.Builder
	for _, c := range all {
		assert.Equal(t, string(c.want), string(log[c.op.OpID]), "%s: read back", c.op.OpID)
		assert.Equal(t, string(c.want), string(state[c.op.Key]), "%s: snapshot", c.op.OpID)
		text.Write(log[c.op.OpID])
		text.Write(state[c.op.Key])
	}
	assertNoNeedle(t, tv, planted, text.String())
}

// TestPrivacyCorpusReject: under reject every op holding a planted
// secret is rejected with reason secret and a message naming its rule,
// never the secret; the look-alikes are applied untouched; no planted
// secret is stored, logged or answered.
func TestPrivacyCorpusReject(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "privacy reject"))
	setPrivacy(t, sh, sharevat.PrivacyReject)
	planted, lookalikes := corpusOps(t)
	all := append(append([]corpusOp(nil), planted...), lookalikes...)

	results, redacted := appendCorpus(t, sh, all)
	assert.Zero(t, redacted)
	var messages strings.Builder
	for i, c := range planted {
		r := results[i]
		assert.Equal(t, sharevat.ReasonSecret, r.Reason, "%s", c.op.OpID)
		assert.Contains(t, r.Message, "("+c.rule+")", "%s: the message names the rule", c.op.OpID)
		messages.WriteString(r.Message)
	}
	for i, c := range lookalikes {
		assert.Equal(t, sharevat.StatusApplied, results[len(planted)+i].Status, "%s", c.op.OpID)
	}

	log, state := readBack(t, sh)
	assert.Len(t, log, len(lookalikes), "only the look-alikes are in the log")
	var text strings.Builder
	for _, c := range lookalikes {
		assert.Equal(t, string(c.op.Body), string(log[c.op.OpID]), "%s: read back", c.op.OpID)
		text.Write(log[c.op.OpID])
	}
	for _, b := range state {
		text.Write(b)
	}
	text.WriteString(messages.String())
	assertNoNeedle(t, tv, planted, text.String())
}

// TestPrivacyCorpusOff: under off the bodies are stored and read back
// as sent, secrets and all; switching back to redact then redacts the
// next append, and a retry of an op stored as sent is still duplicate.
func TestPrivacyCorpusOff(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "privacy off"))
	setPrivacy(t, sh, sharevat.PrivacyOff)
	planted, _ := corpusOps(t)

	results, redacted := appendCorpus(t, sh, planted)
	assert.Zero(t, redacted)
	for i, c := range planted {
		assert.Equal(t, sharevat.StatusApplied, results[i].Status, "%s", c.op.OpID)
	}
	log, _ := readBack(t, sh)
	for _, c := range planted {
		assert.Equal(t, string(c.op.Body), string(log[c.op.OpID]), "%s: stored as sent", c.op.OpID)
	}

	setPrivacy(t, sh, sharevat.PrivacyRedact)
	results, redacted = appendCorpus(t, sh, planted)
	assert.Zero(t, redacted)
	for i, c := range planted {
		assert.Equal(t, sharevat.StatusDuplicate, results[i].Status, "%s: a retry under another policy", c.op.OpID)
	}
	fresh := planted[0]
	fresh.op.OpID, fresh.op.Key = "after-off", "after-off"
	results, redacted = appendCorpus(t, sh, []corpusOp{fresh})
	assert.Equal(t, sharevat.StatusApplied, results[0].Status)
	assert.Positive(t, redacted, "the policy applies from the next append")
	log, _ = readBack(t, sh)
	assert.Equal(t, string(fresh.want), string(log["after-off"]))
}
