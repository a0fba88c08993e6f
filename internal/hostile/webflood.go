package hostile

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// WebSubscribeFlood is subscriptions whose sink never answers: sessions
// sessions each restore(token), take the reader, and subscribe perSession
// times from cursor 0, each with a function sink of its own (exported as
// -1, -2, …), every subscription pulled. The server's pushes to the sinks
// are read and counted, never resolved. After hold (or when ctx ends)
// each session is drained.
func WebSubscribeFlood(ctx context.Context, url, token string, sessions, perSession int, hold time.Duration) *Report {
	r := newReport("web-subscriptions-never-answered")
	defer r.timed()()
	var counts webCounts
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			c := r.webDial(ctx, url)
			if c == nil {
				return
			}
			defer c.Close()
			c.ReadText(counts.handle)
			setDeadline(ctx, c)
			msgs := []string{WebRestore(token), WebReader(1)}
			for i := range perSession {
				msgs = append(msgs, WebSubscribe(2, 0, int64(-1-i)), WebPull(int64(3+i)))
			}
			if err := queueAll(c, msgs...); err != nil {
				r.fail(fmt.Errorf("write: %w", err))
			}
			holdOpen(ctx, c, hold)
			r.ended(c, c.Wait(100*time.Millisecond))
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d sessions × %d subscriptions, pushes never answered: %s", sessions, perSession, &counts)
	return r
}

// WebBatchFlood is concurrent large HTTP batches: conns clients each post
// batches until ctx ends, each body being restore(token), reader(),
// pads pings padded to padBytes each (so the body nears the batch limit)
// and reads read(0, 1000) calls pulled (so the answer nears the session's
// budget). Each response's status is counted in the report's ends.
func WebBatchFlood(ctx context.Context, url, token string, conns, pads, padBytes, reads int) *Report {
	r := newReport("web-batches")
	defer r.timed()()
	body := batchBody(token, pads, padBytes, reads)
	hc := &http.Client{Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for ctx.Err() == nil {
				r.posted(postBatch(ctx, hc, BatchURL(url), body))
			}
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d clients posting %.1f MiB batches with %d reads each", conns, float64(len(body))/(1<<20), reads)
	return r
}

func batchBody(token string, pads, padBytes, reads int) string {
	lines := []string{WebRestore(token), WebReader(1)}
	for range pads {
		lines = append(lines, WebPingPadded(padBytes))
	}
	for i := range reads {
		lines = append(lines, WebRead(2, 0, 1000), WebPull(int64(3+pads+i)))
	}
	return strings.Join(lines, "\n")
}

// postBatch posts body and answers how it went: "HTTP <status>" (the
// answer read and discarded), or the error.
func postBatch(ctx context.Context, hc *http.Client, url, body string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return fmt.Sprintf("HTTP %d", resp.StatusCode), err
}

// posted records one batch's outcome: a status, or a failure (a request
// cut short by ctx's end is not one).
func (r *Report) posted(status string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil:
		r.Conns++
		r.Ends[status]++
	case status == "" && strings.Contains(err.Error(), "context"):
	default:
		r.DialErrs++
		if r.Err == nil {
			r.Err = err
		}
	}
}
