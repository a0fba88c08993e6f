package loadgen

import "fmt"

// transportRows are the targets an append run's transport ceiling
// judges: the ping against the raw echo (one client: p50 and CPU per
// call; 64 clients: the rate) and, for one sequential client, the append
// against the echo plus one log append.
func transportRows(a *appendReport) []targetRow {
	tr := a.Transport
	if tr == nil {
		return nil
	}
	var rows []targetRow
	switch {
	case a.sequential():
		rows = append(rows, targetRow{
			Target:   "1 client: ping p50 vs raw WebSocket echo p50 (median of rounds)",
			Measured: "p50 " + msText(a.Ping.Latency.P50Ms), Ceiling: "echo p50 " + msText(tr.EchoLatency.P50Ms),
			Ratio: tr.PingP50OverEcho, Want: "≤ 1.5", Pass: passIf(tr.PingP50OverEcho <= 1.5),
		}, targetRow{
			Target:   "1 client: CPU per ping vs per echo (both processes)",
			Measured: fmt.Sprintf("%.0f µs", tr.PingCPUPerCallUs), Ceiling: fmt.Sprintf("%.0f µs", tr.EchoCPUPerCallUs),
			Ratio: tr.PingCPUOverEcho, Want: "≤ 2", Pass: passIf(tr.PingCPUOverEcho <= 2),
		})
		if w := a.WALRatios; w != nil && a.WALAppend != nil && a.Shape.Ops == 1 {
			rows = append(rows, targetRow{
				Target:   "1 client, sequential 1-op appends: (p50 − echo p50) ÷ log append p50",
				Measured: "p50 " + msText(a.Latency.P50Ms),
				Ceiling:  fmt.Sprintf("echo %s; log append %s", msText(tr.EchoLatency.P50Ms), msText(a.WALAppend.P50Ms)),
				Ratio:    w.EchoLatencyOverWAL, Want: "≤ 1.2", Pass: passIf(w.EchoLatencyOverWAL <= 1.2),
			})
		}
	case a.Shape.Clients == allClients && a.Shape.Inflight == 1:
		rows = append(rows, targetRow{
			Target:   fmt.Sprintf("%d clients: pings/s vs raw WebSocket echoes/s (median of rounds)", a.Shape.Clients),
			Measured: num(a.Ping.CallsPerSec) + " pings/s", Ceiling: num(tr.EchoCallsPerSec) + " echoes/s",
			Ratio: tr.PingRateOverEcho, Want: "≥ 0.5", Pass: passIf(tr.PingRateOverEcho >= 0.5),
		})
	}
	return rows
}
