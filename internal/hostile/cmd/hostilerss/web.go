package main

import (
	"context"
	"time"

	"github.com/sharevat/sharevat/internal/hostile"
)

// webReadLimit is serve's default read limit (largest batch + 1 MiB):
// the Cap'n Web vectors' messages are sized just under it.
const webReadLimit = 9 << 20

// webVectors are the Cap'n Web vectors (/capnweb), each named web-…; not
// in the default set: name them with -vectors.
var webVectors = []vector{
	{name: "web-reads", seedOps: 8, seedBytes: opBytes, run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.WebReadFlood(ctx, url, fx.Read, 100, 1000, cap/3)
	}},
	{name: "web-inflight", seedOps: 8, seedBytes: opBytes, run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.WebInflight(ctx, url, fx.Read, 1000, 1000, 50*time.Millisecond, cap/3)
	}},
	{name: "web-answers", run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.WebAnswerHold(ctx, url, fx.Read, 8, 10_000, 256, cap/2)
	}},
	{name: "web-big", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.WebBigMessages(ctx, "web-big-messages", url, 32, 3, hostile.WebPingPadded(webReadLimit-1<<10))
	}},
	{name: "web-array", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.WebBigMessages(ctx, "web-wide-arrays", url, 16, 2, hostile.WebPingArray(webReadLimit/2-1<<10))
	}},
	{name: "web-object", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.WebBigMessages(ctx, "web-wide-objects", url, 16, 2, hostile.WebPingObject(webReadLimit/12))
	}},
	{name: "web-partial", run: func(ctx context.Context, url string, _ hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.WebPartialFrame(ctx, url, 100, webReadLimit-1<<10, cap*2/3)
	}},
	{name: "web-subscriptions", seedOps: 8, seedBytes: opBytes, run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.WebSubscribeFlood(ctx, url, fx.Read, 4, 25, cap*2/3)
	}},
	{name: "web-batches", seedOps: 8, seedBytes: opBytes, run: func(ctx context.Context, url string, fx hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.WebBatchFlood(ctx, url, fx.Read, 32, 2, webReadLimit-1<<10, 1)
	}},
}

func init() { vectors = append(vectors, webVectors...) }
