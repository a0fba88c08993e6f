// capnweb-lite: the small Cap'n Web client the share page uses, written
// for this project from the protocol document (capnweb 0.12,
// reference/protocol.md). It covers the subset the page needs over one
// WebSocket: push, pull, resolve, reject, release and abort; calls as
// "pipeline" expressions (so a call can be pipelined on an answer that
// has not arrived yet); objects the page exports (["export", -n]) and the
// peer's calls on them; and the values the vat sends (objects, escaped
// arrays, undefined, bigint, bytes, date, error with its props, inf/nan,
// stubs, promises). Anything else is refused with an error.

const maxDepth = 64;

// RpcError is an error the peer sent (["error", type, message, stack?,
// props?]) or a local failure of the session. code is props.code when the
// peer set one (the vat does: "unauthorized", "revoked", …).
export class RpcError extends Error {
  constructor(type, message, props) {
    super(message);
    this.name = typeof type === "string" ? type : "Error";
    if (props && typeof props === "object") {
      for (const [k, v] of Object.entries(props)) {
        if (k !== "message" && k !== "name" && k !== "stack") this[k] = v;
      }
    }
  }
}

// Ref names a property path on an entry of the import table: a stub the
// peer exported, or an answer not yet received (pipelining).
export class Ref {
  constructor(session, id, path) {
    this.session = session;
    this.id = id;
    this.path = path;
  }

  // get returns a Ref to a property of this one (no message is sent).
  get(...names) {
    return new Ref(this.session, this.id, [...this.path, ...names]);
  }

  // call calls method on this Ref with args and returns its Answer.
  call(method, ...args) {
    return this.session.call(this.id, [...this.path, method], args);
  }
}

// Answer is the result of one call: a promise of its value, and a Ref on
// which further calls can be pipelined, as long as they are made before
// the answer arrives (it is released as soon as it does).
export class Answer extends Ref {
  constructor(session, id, promise) {
    super(session, id, []);
    this.promise = promise;
  }

  then(onValue, onError) {
    return this.promise.then(onValue, onError);
  }

  catch(onError) {
    return this.promise.catch(onError);
  }
}

// Stub is a capability the peer exported to us. dispose releases it.
export class Stub extends Ref {
  constructor(session, id) {
    super(session, id, []);
    this.disposed = false;
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    this.session.release(this.id, 1);
  }
}

// Session is one Cap'n Web session over an open WebSocket. onClose(err)
// is called once, when the socket closes or either side aborts.
export class Session {
  constructor(ws, onClose) {
    this.ws = ws;
    this.onClose = onClose;
    this.closed = false;
    this.nextImport = 1;
    this.pending = new Map(); // import id -> {resolve, reject}
    this.exports = new Map(); // export id (< 0) -> {target, refs}
    this.nextExport = -1;
    this.answers = new Map(); // the peer's pushes: id (> 0) -> {pulled, done, msg}
    this.peerPushes = 0;
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = (ev) => this.shutdown(new RpcError("Error", `connection closed (${ev.code})`, { code: "disconnected" }));
    ws.onerror = () => this.shutdown(new RpcError("Error", "connection failed", { code: "disconnected" }));
  }

  // main returns the peer's main interface (import id 0).
  main() {
    return new Ref(this, 0, []);
  }

  // exportTarget marks obj (an object of methods, or a function) to be
  // passed to the peer as a stub.
  exportTarget(obj) {
    return new Exported(obj);
  }

  // call pushes a call of path on import id and pulls its answer.
  call(id, path, args) {
    const qid = this.nextImport++;
    const promise = new Promise((resolve, reject) => {
      if (this.closed) {
        reject(this.closeError);
        return;
      }
      this.pending.set(qid, { resolve, reject, release: true });
    });
    promise.catch(() => {}); // the caller may only pipeline on it
    if (!this.closed) {
      try {
        this.send(["push", ["pipeline", id, path, args.map((a) => this.encode(a, 0))]]);
        this.send(["pull", qid]);
      } catch (err) {
        this.settle(qid, false, err);
      }
    }
    return new Answer(this, qid, promise);
  }

  // release tells the peer we dropped refs references to import id.
  release(id, refs) {
    if (!this.closed) this.send(["release", id, refs]);
  }

  // close ends the session from our side.
  close() {
    try {
      this.ws.close(1000);
    } catch {
      // already closed
    }
    this.shutdown(new RpcError("Error", "session closed", { code: "disconnected" }));
  }

  send(msg) {
    this.ws.send(JSON.stringify(msg));
  }

  shutdown(err) {
    if (this.closed) return;
    this.closed = true;
    this.closeError = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.exports.clear();
    this.answers.clear();
    this.onClose(err);
  }

  abort(err) {
    if (this.closed) return;
    try {
      this.send(["abort", ["error", "Error", String(err.message || err)]]);
      this.ws.close(1002);
    } catch {
      // the socket is gone
    }
    this.shutdown(err instanceof RpcError ? err : new RpcError("Error", String(err.message || err), { code: "protocol" }));
  }

  receive(data) {
    if (this.closed) return;
    try {
      if (typeof data !== "string") throw new Error("binary frame");
      this.dispatch(JSON.parse(data));
    } catch (err) {
      this.abort(err);
    }
  }

  dispatch(msg) {
    if (!Array.isArray(msg)) throw new Error("message is not an array");
    switch (msg[0]) {
      case "resolve":
      case "reject":
        return this.onSettle(msg);
      case "push":
        return this.onPush(msg[1]);
      case "pull":
        return this.onPull(msg[1]);
      case "release":
        return this.onRelease(msg[1], msg[2]);
      case "abort": {
        const e = this.decodeError(msg[1]);
        return this.shutdown(e);
      }
    }
    throw new Error(`unsupported message ${JSON.stringify(String(msg[0]))}`);
  }

  onSettle([kind, id, expr]) {
    const p = this.pending.get(id);
    if (!p) throw new Error(`${kind} of unknown import ${id}`);
    this.pending.delete(id);
    if (kind === "reject") {
      p.reject(this.decodeError(expr));
    } else {
      this.decode(expr).then(p.resolve, p.reject);
    }
    if (p.release) this.release(id, 1);
  }

  decodeError(expr) {
    if (Array.isArray(expr) && expr[0] === "error") return this.errorOf(expr, 0);
    return new RpcError("Error", "the peer failed: " + JSON.stringify(expr).slice(0, 200));
  }

  settle(id, ok, value) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (ok) p.resolve(value);
    else p.reject(value);
  }

  // onPush runs a call the peer made on one of our exports.
  onPush(expr) {
    const id = ++this.peerPushes;
    const answer = { pulled: false, msg: null };
    this.answers.set(id, answer);
    let result;
    try {
      result = Promise.resolve(this.invoke(expr));
    } catch (err) {
      result = Promise.reject(err);
    }
    result.then(
      (v) => this.answer(id, ["resolve", id, this.encodeOr(v)]),
      (err) => this.answer(id, ["reject", id, ["error", "Error", String((err && err.message) || err)]]),
    );
  }

  invoke(expr) {
    if (!Array.isArray(expr) || (expr[0] !== "pipeline" && expr[0] !== "import")) {
      throw new Error("unsupported call expression");
    }
    const [, id, path, args] = expr;
    const exp = this.exports.get(id);
    if (!exp) throw new Error(`no export ${id}`);
    if (!Array.isArray(path) || !Array.isArray(args)) throw new Error("a push must call a method");
    return this.decode([args]).then((vals) => callTarget(exp.target, path, vals));
  }

  // encodeOr encodes a result of ours, or undefined when it cannot be.
  encodeOr(v) {
    try {
      return this.encode(v, 0);
    } catch {
      return ["undefined"];
    }
  }

  answer(id, msg) {
    const a = this.answers.get(id);
    if (!a || this.closed) return;
    a.msg = msg;
    if (a.pulled) this.send(msg);
  }

  onPull(id) {
    const a = this.answers.get(id);
    if (!a) throw new Error(`pull of unknown export ${id}`);
    a.pulled = true;
    if (a.msg) this.send(a.msg);
  }

  onRelease(id, refs) {
    if (id > 0) {
      this.answers.delete(id);
      return;
    }
    const e = this.exports.get(id);
    if (!e) return;
    e.refs -= refs;
    if (e.refs <= 0) this.exports.delete(id);
  }

  // encode turns a value into an expression.
  encode(v, depth) {
    if (depth > maxDepth) throw new Error("value nested too deeply");
    if (v === undefined) return ["undefined"];
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") {
      if (Number.isFinite(v)) return v;
      return Number.isNaN(v) ? ["nan"] : [v > 0 ? "inf" : "-inf"];
    }
    if (typeof v === "bigint") return ["bigint", v.toString()];
    if (v instanceof Date) return ["date", v.getTime()];
    if (v instanceof Exported) return this.exportOf(v.target);
    if (v instanceof Stub) return ["import", v.id];
    if (Array.isArray(v)) return [v.map((x) => this.encode(x, depth + 1))];
    if (typeof v === "function") return this.exportOf(v);
    if (typeof v === "object") {
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.encode(x, depth + 1);
      return out;
    }
    throw new Error(`cannot send a ${typeof v}`);
  }

  exportOf(target) {
    for (const [id, e] of this.exports) {
      if (e.target === target) {
        e.refs++;
        return ["export", id];
      }
    }
    const id = this.nextExport--;
    this.exports.set(id, { target, refs: 1 });
    return ["export", id];
  }

  // decode turns an expression into a value, once every promise in it
  // has resolved.
  async decode(expr) {
    const waits = [];
    const box = {};
    box.v = this.value(expr, 0, waits, box, "v");
    await Promise.all(waits.map(async (w) => {
      w.holder[w.key] = await w.promise;
    }));
    return box.v;
  }

  value(e, depth, waits, holder, key) {
    if (depth > maxDepth) throw new Error("value nested too deeply");
    if (e === null || typeof e !== "object") return e;
    if (!Array.isArray(e)) {
      const out = {};
      for (const [k, x] of Object.entries(e)) out[k] = this.value(x, depth + 1, waits, out, k);
      return out;
    }
    if (e.length === 1 && Array.isArray(e[0])) {
      const arr = new Array(e[0].length);
      e[0].forEach((x, i) => {
        arr[i] = this.value(x, depth + 1, waits, arr, i);
      });
      return arr;
    }
    return this.special(e, depth, waits, holder, key);
  }

  special(e, depth, waits, holder, key) {
    switch (e[0]) {
      case "undefined":
        return undefined;
      case "inf":
        return Infinity;
      case "-inf":
        return -Infinity;
      case "nan":
        return NaN;
      case "bigint":
        if (typeof e[1] !== "string" || e[1].length > 400) break;
        return BigInt(e[1]);
      case "date":
        if (typeof e[1] !== "number") break;
        return new Date(e[1]);
      case "bytes":
        if (typeof e[1] !== "string") break;
        return Uint8Array.from(atob(e[1]), (c) => c.charCodeAt(0));
      case "error":
        return this.errorOf(e, depth);
      case "export":
        if (typeof e[1] !== "number") break;
        return new Stub(this, e[1]);
      case "promise":
        if (typeof e[1] !== "number") break;
        return this.promiseOf(e[1], waits, holder, key);
    }
    throw new Error(`unsupported value ${JSON.stringify(String(e[0]))}`);
  }

  promiseOf(id, waits, holder, key) {
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, release: true });
    });
    waits.push({ promise, holder, key });
    return undefined;
  }

  errorOf(e, depth) {
    let props = null;
    if (e.length > 4 && e[4] && typeof e[4] === "object" && !Array.isArray(e[4])) {
      props = this.value(e[4], depth + 1, []);
    }
    return new RpcError(e[1], typeof e[2] === "string" ? e[2] : "error", props);
  }
}

// Exported wraps an object or function the page passes as a stub.
class Exported {
  constructor(target) {
    this.target = target;
  }
}

// callTarget calls path on target (a function, or an object of methods).
function callTarget(target, path, args) {
  if (path.length === 0) {
    if (typeof target !== "function") throw new TypeError("not a function");
    return target(...args);
  }
  if (path.length !== 1 || typeof path[0] !== "string") throw new TypeError("unsupported property path");
  const name = path[0];
  if (typeof target !== "object" || !Object.hasOwn(target, name) || typeof target[name] !== "function") {
    throw new TypeError(`no method ${name}`);
  }
  return target[name](...args);
}

// connect opens a WebSocket to url and resolves with its Session once it
// is open; it rejects if the socket fails first or after timeoutMs.
export function connect(url, onClose, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => {
      ws.close();
      reject(new RpcError("Error", "connection timed out", { code: "disconnected" }));
    }, timeoutMs);
    ws.onopen = () => {
      clearTimeout(timer);
      resolve(new Session(ws, onClose));
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new RpcError("Error", "connection failed", { code: "disconnected" }));
    };
  });
}
