package capnweb_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/sharevat/sharevat/capnweb"
)

func TestRoundTripValues(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDial(t, s, nil)
	bigN := new(big.Int).Lsh(big.NewInt(1), 60)
	date := time.UnixMilli(1749342170815).UTC()
	in := []capnweb.Value{
		nil, capnweb.Undefined, true, "text é", json.Number("1.25"),
		[]capnweb.Value{[]capnweb.Value{"nested"}, json.Number("0")},
		capnweb.NewObject().Set("z", json.Number("1")).Set("a", json.Number("2")).Set("m", "x"),
		uint64(1) << 60, bigN, []byte{0, 1, 2, 255}, date,
		&capnweb.Error{Type: "RangeError", Message: "m", Props: capnweb.NewObject().Set("code", "revoked")},
	}
	got, err := c.Main().Call(testCtx(t), "echo", in...)
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	want := append([]capnweb.Value(nil), in...)
	want[7] = bigN // a uint64 over 2^53 travels as a bigint
	if !reflect.DeepEqual(got, want) {
		t.Errorf("echo:\n got %#v\nwant %#v", got, want)
	}
	inf, err := c.Main().Call(testCtx(t), "first", math.Inf(-1))
	if err != nil || !math.IsInf(inf.(float64), -1) {
		t.Errorf("echo -Inf = %v, %v", inf, err)
	}
}

func TestWireFormat(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDialRaw(t, s)
	args := `[[["a"]],{"z":1,"a":2},["bigint","9007199254740993"],["bytes","AQID"],["date",1.5],["undefined"],["error","TypeError","m",null,{"code":"x"}]]`
	c.send(`["push",["pipeline",0,["echo"],`+args+`]]`, `["pull",1]`)
	if got, want := c.read(), `["resolve",1,[`+args+`]]`; got != want {
		t.Errorf("resolve:\n got %s\nwant %s", got, want)
	}
	c.send(`["push",["pipeline",0,["fail"],[]]]`, `["pull",2]`)
	if got, want := c.read(), `["reject",2,["error","RangeError","revoked: capability revoked",null,{"code":"revoked"}]]`; got != want {
		t.Errorf("reject:\n got %s\nwant %s", got, want)
	}
	c.send(`["push",["pipeline",0,["plainFail"],[]]]`, `["pull",3]`)
	if got, want := c.read(), `["reject",3,["error","Error","boom"]]`; got != want {
		t.Errorf("plain error:\n got %s\nwant %s", got, want)
	}
}

func TestErrorsReachTheClient(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDial(t, s, nil)
	_, err := c.Main().Call(testCtx(t), "fail")
	var e *capnweb.Error
	if !errors.As(err, &e) || e.Type != "RangeError" {
		t.Fatalf("fail: %v, want a RangeError", err)
	}
	if code, _ := e.Props.Get("code"); code != "revoked" {
		t.Errorf("fail props code = %v, want revoked", code)
	}
	_, err = c.Main().Call(testCtx(t), "nosuch")
	if !errors.As(err, &e) || e.Type != "TypeError" {
		t.Errorf("unknown method: %v, want a TypeError", err)
	}
}

func TestPipelineOneRoundTrip(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDialRaw(t, s)
	// counter() → inc() → add(<inc's answer>), then one pull: every push
	// is sent before any answer, and exactly one message comes back.
	c.send(`["push",["pipeline",0,["counter"],[]]]`,
		`["push",["pipeline",1,["inc"],[]]]`,
		`["push",["pipeline",1,["add"],[["pipeline",2]]]]`,
		`["pull",3]`)
	if got := c.read(); got != `["resolve",3,2]` {
		t.Errorf("pipelined answer = %s, want [\"resolve\",3,2]", got)
	}
	// The next message is the answer to the next pull: nothing came between.
	c.send(`["pull",2]`)
	if got := c.read(); got != `["resolve",2,1]` {
		t.Errorf("next message = %s, want [\"resolve\",2,1]", got)
	}
	// A path into an answer, and a call on a non-function.
	c.send(`["push",["pipeline",0,["echo"],[{"a":[[5]]}]]]`,
		`["push",["pipeline",4,["0","a","0"]]]`, `["pull",5]`,
		`["push",["pipeline",4,["0","a"],[]]]`, `["pull",6]`,
		`["push",["pipeline",0,["counter"]]]`, `["pull",7]`)
	expectAll(t, c.readN(3),
		`["resolve",5,5]`,
		`["reject",6,["error","TypeError","'0.a' is not a function."]]`,
		`["reject",7,["error","TypeError","capnweb: cannot read property \"counter\" of an RPC object; only calls of its methods are supported"]]`)
}

func TestPipelineHelper(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDial(t, s, nil)
	ctr := c.Main().Pipe("counter")
	ctr.Pipe("inc")
	got, err := ctr.Pipe("add", ctr.Pipe("inc")).Await(testCtx(t))
	if err != nil || got != json.Number("4") {
		t.Errorf("counter.add(counter.inc()) after inc = %v, %v; want 4", got, err)
	}
	ctr.Release()
	obj, err := c.Main().Pipe("echo", capnweb.NewObject().Set("k", "v")).Get("0", "k").Await(testCtx(t))
	if err != nil || obj != "v" {
		t.Errorf("echo(...)[0].k = %v, %v", obj, err)
	}
	m := s.main(0)
	m.counters[0].released.wait(t, "the counter's release", 1)
}

func TestUnsupportedRejectsThePush(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDialRaw(t, s)
	c.send(`["push",["remap",0,[],[],[]]]`, `["pull",1]`,
		`["push",["pipeline",0,["echo"],[["url","https://x"]]]]`, `["pull",2]`,
		`["push",["pipeline",0,["first"],[7]]]`, `["pull",3]`)
	expectAll(t, c.readN(3),
		`["reject",1,["error","Error","capnweb: remap is not supported by this server"]]`,
		`["reject",2,["error","Error","capnweb: url is not supported by this server"]]`,
		`["resolve",3,7]`)
}

func TestStubsBothWays(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDial(t, s, nil)
	var released releases
	cb := &releasingFunc{funcTarget: funcTarget{f: func(args []capnweb.Value) (capnweb.Value, error) {
		return fmt.Sprint("got ", args[0]), nil
	}}, released: &released}
	got, err := c.Main().Call(testCtx(t), "callBack", cb)
	if err != nil || got != "got hello" {
		t.Fatalf("callBack = %v, %v", got, err)
	}
	released.wait(t, "the callback's release", 1)

	// Kept beyond the answer: still callable, released once when dropped.
	var kept releases
	k := &releasingFunc{funcTarget: funcTarget{f: func([]capnweb.Value) (capnweb.Value, error) { return "pong", nil }}, released: &kept}
	if _, err := c.Main().Call(testCtx(t), "keep", k); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Main().Call(testCtx(t), "callKept"); err != nil || got != "pong" {
		t.Fatalf("callKept = %v, %v", got, err)
	}
	if kept.Load() != 0 {
		t.Fatal("a kept stub's target was released")
	}
	if _, err := c.Main().Call(testCtx(t), "dropKept"); err != nil {
		t.Fatal(err)
	}
	kept.wait(t, "the kept target's release", 1)
}

type releasingFunc struct {
	funcTarget
	released *releases
}

func (r *releasingFunc) Release() { r.released.add() }

func TestRefcountsAndRelease(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDial(t, s, nil)
	ctx := testCtx(t)
	v1, err := c.Main().Call(ctx, "counter")
	if err != nil {
		t.Fatal(err)
	}
	s1 := v1.(*capnweb.Stub)
	v2, err := s1.Call(ctx, "self") // the same Target: the same export id, twice introduced
	if err != nil {
		t.Fatal(err)
	}
	s2 := v2.(*capnweb.Stub)
	m := s.main(0)
	ctr := m.counters[0]
	s1.Release()
	s1.Release() // idempotent
	if n, err := s2.Call(ctx, "inc"); err != nil || n != json.Number("1") {
		t.Fatalf("inc after one release = %v, %v", n, err)
	}
	if ctr.released.Load() != 0 {
		t.Fatal("released while a reference remains")
	}
	s2.Release()
	ctr.released.wait(t, "the counter's release", 1)

	// Targets inside an answer never pulled, and the main interface, are
	// released once when the session ends.
	if _, err := c.Main().Call(ctx, "nest"); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	m.released.wait(t, "the main interface's release on session end", 1)
	m.counters[1].released.wait(t, "the nested counter's release on session end", 1)
	if ctr.released.Load() != 1 {
		t.Errorf("counter released %d times, want once", ctr.released.Load())
	}
}

func TestEOrder(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDialRaw(t, s)
	c.send(`["push",["pipeline",0,["counter"],[]]]`)
	for i := 0; i < 20; i++ {
		c.send(`["push",["pipeline",1,["inc"],[]]]`)
	}
	for i := 2; i <= 21; i++ {
		c.send(fmt.Sprintf(`["pull",%d]`, i))
	}
	answers := map[string]bool{}
	for i := 2; i <= 21; i++ {
		answers[c.read()] = true
	}
	for i := 2; i <= 21; i++ { // answers may come in any order; calls may not
		if want := fmt.Sprintf(`["resolve",%d,%d]`, i, i-1); !answers[want] {
			t.Fatalf("no %s among %v (calls out of order)", want, answers)
		}
	}
	// A call whose argument waits does not hold up later calls.
	c.send(`["push",["pipeline",0,["wait"],[]]]`,
		`["push",["pipeline",0,["first"],[["pipeline",22]]]]`,
		`["push",["pipeline",0,["open"],[]]]`, `["pull",23]`)
	if got := c.read(); got != `["resolve",23,"opened"]` {
		t.Errorf("got %s", got)
	}
}

func TestClientWithoutMain(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDialRaw(t, s)
	c.send(`["push",["pipeline",0,["callBack"],[["export",-1]]]]`, `["pull",1]`)
	// The server calls our -1: a push on import -1 and a pull.
	if got := c.read(); got != `["push",["pipeline",-1,[],["hello"]]]` {
		t.Fatalf("callback push = %s", got)
	}
	if got := c.read(); got != `["pull",1]` {
		t.Fatalf("callback pull = %s", got)
	}
	c.send(`["resolve",1,"hi back"]`)
	if got := c.read(); got != `["release",1,1]` {
		t.Fatalf("after our resolve = %s, want the release", got)
	}
	if got := c.read(); got != `["release",-1,1]` && got != `["resolve",1,"hi back"]` {
		t.Fatalf("then %s", got)
	}
}
