// The steps browser_test.go runs in the page, each an async function on
// window.steps that answers plain JSON. window.loaded is "ok" once
// "@sharevat/client" imported, else why it did not.
const status = document.getElementById("status");

/** The page's state between steps: one connection, one tail. */
const state = { conn: undefined, redeemer: undefined, tail: undefined, seen: [] };

/** A text part op. */
const textOp = (opId, seq) => ({ opId, seq, kind: "part", key: `part-${opId}`, body: { type: "text", text: opId } });

/** What the page knows of an error: its class, code, message and stack. */
const describe = (sv, e) => ({
  sharevatError: e instanceof sv.SharevatError,
  code: e?.code,
  message: String(e?.message),
  stack: String(e?.stack),
});

function install(sv) {
  window.steps = {
    /** Connects, redeems token, appends a batch of two ops and reads the log back. */
    async appendAndRead(url, token) {
      state.conn = await sv.connect(url);
      const share = await state.conn.redeem(token);
      const ack = await (await share.appender()).append({ batchId: "browser-1", ops: [textOp("b1", 0), textOp("b2", 1)] });
      const { ops, head } = await (await share.reader()).read(0, 10);
      return { applied: ack.applied, ackHead: ack.head, head, ops: ops.map((o) => [o.cursor, o.opId, o.batchId, o.body.text]) };
    },
    /** Starts a tail of token's share after cursor from; its ops collect in state.seen. */
    follow(url, token, from) {
      state.redeemer = new sv.Redeemer(url, token);
      state.tail = sv.tail(state.redeemer, from, (e) => void state.seen.push([e.cursor, e.opId])).then(
        () => "resolved",
        (e) => describe(sv, e),
      );
      return true;
    },
    /** The ops the tail saw so far, as [cursor, opId]. */
    seen: () => state.seen,
    /** Redeems token on the open connection and answers the error. */
    async badToken(token) {
      return state.conn.redeem(token).then(() => "redeemed", (e) => describe(sv, e));
    },
    /** Connects to url and answers the error (a page of an origin the vat does not list). */
    async connectRefused(url) {
      return sv.connect(url).then((c) => (c.close(), "connected"), (e) => describe(sv, e));
    },
    /** Closes the Redeemer (ending the tail) and the connection. */
    async close() {
      state.redeemer.close();
      const tail = await state.tail;
      state.conn.close();
      return { tail, connClosed: state.conn.isClosed ?? null };
    },
  };
  window.loaded = "ok";
  status.textContent = "loaded";
}

import("@sharevat/client").then(install, (e) => {
  window.loaded = `import failed: ${e}`;
  status.textContent = window.loaded;
});
