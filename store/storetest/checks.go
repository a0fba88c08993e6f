package storetest

import (
	"strings"
	"testing"

	"github.com/sharevat/sharevat"
)

// checkTests cover limits and the order of the checks of docs/design.md §5.
var checkTests = []test{
	{"TooLarge", testTooLarge},
	{"TooManyOps", testTooManyOps},
	{"BatchTooLarge", testBatchTooLarge},
	{"Order", testCheckOrder},
	{"BadRequest", testBadRequest},
}

// smallLimits are tight limits for the limit tests.
func smallLimits() sharevat.Limits {
	return sharevat.Limits{
		MaxBodyBytes: 64, MaxOpsPerBatch: 4, MaxBatchBytes: 200,
		MaxOpIDLen: 16, MaxKeyLen: 8, MaxDependsOn: 2,
	}
}

// jsonOf returns a JSON string body of n bytes.
func jsonOf(n int) string { return `"` + strings.Repeat("x", n-2) + `"` }

func testTooLarge(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	lim := smallLimits()
	too := rejected(sharevat.ReasonTooLarge)
	b := batch(1,
		put("a", sharevat.KindMessage, "k", jsonOf(64)),  // at the limit
		put("b", sharevat.KindMessage, "k", jsonOf(65)),  // body over
		put("c", sharevat.KindMessage, "123456789", `1`), // key over
		withDeps(ev("d"), "a", "a", "a"),                 // too many deps
	)
	ack, err := tryAppend(t, st, "s", b, lim)
	ok(t, err)
	checkAck(t, ack, b, 1, applied(1), too, too, too)
	checkLog(t, st, "s", "a")
}

func testTooManyOps(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b := batch(1, ev("a"), ev("b"), ev("c"), ev("d"), ev("e"))
	ack, err := tryAppend(t, st, "s", b, smallLimits())
	ok(t, err)
	too := rejected(sharevat.ReasonTooLarge)
	checkAck(t, ack, b, 0, too, too, too, too, too)
	b = batch(1, ev("a"), ev("b"), ev("c"), ev("d"))
	ack, err = tryAppend(t, st, "s", b, smallLimits())
	ok(t, err)
	checkAck(t, ack, b, 4, applied(1), applied(2), applied(3), applied(4))
}

func testBatchTooLarge(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	body := jsonOf(60)
	b := batch(1, put("a", sharevat.KindModel, "k", body), put("b", sharevat.KindModel, "k", body),
		put("c", sharevat.KindModel, "k", body), put("d", sharevat.KindModel, "k", body))
	ack, err := tryAppend(t, st, "s", b, smallLimits())
	ok(t, err)
	too := rejected(sharevat.ReasonTooLarge)
	checkAck(t, ack, b, 0, too, too, too, too)
	checkLog(t, st, "s")
}

// testCheckOrder sends ops that fail two checks at once and expects the
// one that comes first: duplicate, staleEpoch, missingDependency,
// conflict, invalid/tooLarge.
func testCheckOrder(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1, put("a", sharevat.KindMessage, "k", `{}`)))
	bad := sharevat.Op{OpID: "n", Kind: "bogus", Body: []byte("not json")}
	huge := put("n", sharevat.KindMessage, "k", jsonOf(65))
	cases := []struct {
		name  string
		epoch sharevat.Epoch
		op    sharevat.Op
		want  res
	}{
		{"duplicate before staleEpoch", 2, put("a", sharevat.KindMessage, "k", `{}`), dup(1)},
		{"idReused before staleEpoch", 2, put("a", sharevat.KindMessage, "k", `[]`), reused(1)},
		{"duplicate before missingDependency", 1, withDeps(put("a", sharevat.KindMessage, "k", `{}`), "zz"), dup(1)},
		{"duplicate before conflict", 1, expect(put("a", sharevat.KindMessage, "k", `{}`), 7), dup(1)},
		{"duplicate before tooLarge", 1, withDeps(put("a", sharevat.KindMessage, "k", `{}`), "1", "2", "3"), dup(1)},
		{"staleEpoch before missingDependency", 2, withDeps(ev("n"), "zz"), rejected(sharevat.ReasonStaleEpoch)},
		{"staleEpoch before conflict", 2, expect(ev("n"), 7), rejected(sharevat.ReasonStaleEpoch)},
		{"staleEpoch before invalid", 2, bad, rejected(sharevat.ReasonStaleEpoch)},
		{"missingDependency before conflict", 1, expect(withDeps(ev("n"), "zz"), 7), rejected(sharevat.ReasonMissingDependency)},
		{"missingDependency before invalid", 1, withDeps(bad, "zz"), rejected(sharevat.ReasonMissingDependency)},
		{"conflict before invalid", 1, expect(bad, 7), rejected(sharevat.ReasonConflict)},
		{"conflict before tooLarge", 1, expect(huge, 7), rejected(sharevat.ReasonConflict)},
	}
	for _, tc := range cases {
		b := batch(tc.epoch, tc.op)
		ack, err := tryAppend(t, st, "s", b, smallLimits())
		ok(t, err)
		t.Run(tc.name, func(t *testing.T) { checkAck(t, ack, b, 1, tc.want) })
	}
	checkLog(t, st, "s", "a")
}

// testBadRequest: a request the store cannot run is EInvalid, not a panic.
func testBadRequest(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	_, err := tryAppend(t, st, "s", nil, sharevat.DefaultLimits())
	wantCode(t, err, sharevat.EInvalid)
	_, err = tryAppend(t, st, "s", batch(1, ev("a")), sharevat.Limits{})
	wantCode(t, err, sharevat.EInvalid)
	checkLog(t, st, "s")
}
